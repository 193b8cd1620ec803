// global_heap_damage: a damaged object size in a global heap collection is found on the bytes,
// before libhdf5 would copy that many bytes (issue 13's sanitizer audit: H5HG_read overlaps).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "common/hdf5/hdf5_global_heap.h"

namespace {

void put(std::string& b, std::size_t at, std::uint64_t v, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// A version-0 superblock (lengths of 8 bytes) and, at byte 512, a 4096-byte collection holding
// "hello" (object 1) and the free space (object 0) up to its end.
std::string file_with_heap() {
  std::string b(512 + 4096, '\0');
  b.replace(0, 8, std::string("\x89HDF\r\n\x1a\n", 8));
  b[13] = 8;  // size of offsets
  b[14] = 8;  // size of lengths
  b.replace(512, 8, std::string("GCOL\x01\0\0\0", 8));
  put(b, 520, 4096, 8);
  put(b, 528, 1, 2);   // object 1: index, reference count, reserved, size, data
  put(b, 530, 1, 2);
  put(b, 536, 5, 8);
  b.replace(544, 5, "hello");
  put(b, 552, 0, 2);   // object 0: the free space, its size counting its header
  put(b, 560, 4096 - 40, 8);
  return b;
}

}  // namespace

TEST_CASE("global heap: a consistent collection passes; damaged sizes are found with the collection's offset") {
  const std::string good = file_with_heap();
  CHECK(tcsim::global_heap_damage(good).empty());

  std::string huge = good;  // the wild copy the sanitizer audit found in H5HG_read
  put(huge, 536, 0x7fffffffffffffffULL, 8);
  CHECK(tcsim::global_heap_damage(huge).find("global heap collection at byte 512: object 1 of 9223372036854775807 bytes") == 0);

  std::string bigger = good;  // a few bytes more: the objects no longer tile the collection
  put(bigger, 536, 20, 8);
  CHECK_FALSE(tcsim::global_heap_damage(bigger).empty());

  std::string past_eof = good;  // the collection's own size
  put(past_eof, 520, 8192, 8);
  CHECK(tcsim::global_heap_damage(past_eof).find("runs past the end of the file") != std::string::npos);

  std::string endless = good;  // a free-space object of 0 bytes makes libhdf5's walk stand still
  put(endless, 560, 0, 8);
  CHECK(tcsim::global_heap_damage(endless).find("smaller than its header") != std::string::npos);
}

TEST_CASE("global heap: \"GCOL\" inside a string is data; files without a superblock are not checked") {
  std::string b = file_with_heap();
  b.replace(544, 5, "GCOL\x01");  // a string that spells a signature, inside a valid collection
  CHECK(tcsim::global_heap_damage(b).empty());
  CHECK(tcsim::global_heap_damage(std::string("GCOL\x01\0\0\0\xff", 9)).empty());
}
