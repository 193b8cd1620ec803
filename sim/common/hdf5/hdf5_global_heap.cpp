// Global heap collections as the HDF5 file format specification describes them (section III.E,
// "Global Heap"): "GCOL", version 1, 3 reserved bytes, the collection size (a length), then objects:
// index (2 bytes), reference count (2), reserved (4), size (a length), data padded to 8 bytes.
// Object 0 is the free space; its size counts its own header. The walk mirrors libhdf5's parser
// (H5HG__cache_heap_deserialize): a tail too short for an object header is free space too.
#include "common/hdf5/hdf5_global_heap.h"

#include <cstddef>

namespace tcsim {
namespace {

constexpr std::string_view kSuperblockSignature{"\x89HDF\r\n\x1a\n", 8};

std::uint64_t little_endian(std::string_view b, std::size_t at, std::size_t width) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < width; ++i) v |= std::uint64_t{static_cast<unsigned char>(b[at + i])} << (8 * i);
  return v;
}

// The superblock's "size of lengths" (0 when there is no superblock where the format allows one:
// byte 0, 512, 1024, 2048, ...).
std::size_t length_size(std::string_view b) {
  for (std::size_t at = 0; at + 16 <= b.size(); at = at ? at * 2 : 512) {
    if (b.substr(at, 8) != kSuperblockSignature) continue;
    const auto version = static_cast<unsigned char>(b[at + 8]);
    if (version <= 1) return static_cast<unsigned char>(b[at + 14]);
    if (version <= 3) return static_cast<unsigned char>(b[at + 10]);
    return 0;
  }
  return 0;
}

// What is wrong with the collection at `at` (its signature checked), or empty; `end` its end.
std::string collection_damage(std::string_view b, std::size_t at, std::size_t len_size, std::size_t& end) {
  const std::size_t header = 8 + len_size;  // signature, version, reserved, collection size
  const std::size_t object_header = 8 + len_size;
  const std::string here = "global heap collection at byte " + std::to_string(at);
  if (b.size() - at < header) return here + ": cut off";
  const std::uint64_t size = little_endian(b, at + 8, len_size);
  if (size < header || size > b.size() - at)
    return here + ": its size " + std::to_string(size) + " runs past the end of the file (" + std::to_string(b.size()) + " bytes)";
  end = at + static_cast<std::size_t>(size);
  std::size_t p = at + header;
  while (p < end) {
    if (end - p < object_header) break;  // free space too small for a header
    const std::uint64_t index = little_endian(b, p, 2);
    const std::uint64_t object = little_endian(b, p + 8, len_size);
    const std::size_t room = end - p;
    // Object 0 (free space) counts its header; the others have their data padded to 8 bytes.
    const bool fits = index == 0 ? object <= room : object <= room - object_header && ((object + 7) & ~std::uint64_t{7}) <= room - object_header;
    if (!fits)
      return here + ": object " + std::to_string(index) + " of " + std::to_string(object) + " bytes at byte " + std::to_string(p) +
             " runs past the collection's end (byte " + std::to_string(end) + ")";
    if (index == 0 && object < object_header && object != room)
      return here + ": free-space object of " + std::to_string(object) + " bytes at byte " + std::to_string(p) + " is smaller than its header";
    p += index == 0 ? static_cast<std::size_t>(object) : object_header + static_cast<std::size_t>((object + 7) & ~std::uint64_t{7});
  }
  return {};
}

}  // namespace

std::string global_heap_damage(std::string_view b) {
  const std::size_t len_size = length_size(b);
  if (len_size != 2 && len_size != 4 && len_size != 8) return {};
  for (std::size_t at = b.find("GCOL"); at != std::string_view::npos;) {
    // Version 1 and three zero reserved bytes: a collection, not the four letters inside other data.
    std::size_t next = at + 4;
    if (b.substr(at + 4, 4) == std::string_view("\x01\0\0\0", 4)) {
      std::size_t end = at;
      if (auto what = collection_damage(b, at, len_size, end); !what.empty()) return what;
      next = end;  // the objects inside (strings that contain "GCOL") are data, not collections
    }
    at = b.find("GCOL", next);
  }
  return {};
}

}  // namespace tcsim
