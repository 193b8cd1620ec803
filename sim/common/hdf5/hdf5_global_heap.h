#pragma once
// A structural check of an HDF5 file's global heap collections, done on the file's bytes before
// libhdf5 reads it. libhdf5 (1.10) trusts the object sizes inside a collection: a damaged size
// makes it copy past the collection and past the buffer it allocated for a variable-length string
// (a wild read and a heap overflow; AddressSanitizer reports it in H5HG_read). This check walks each
// collection the way libhdf5 parses it and refuses the file when the objects do not tile it exactly.
#include <cstdint>
#include <string>
#include <string_view>

namespace tcsim {

// Empty when every global heap collection ("GCOL", version 1) in `file_bytes` is consistent: it lies
// inside the file, and its objects (headers and 8-byte-aligned data) end exactly at its end.
// Otherwise what is wrong, with the collection's byte offset. Files whose superblock gives lengths
// other than 2, 4 or 8 bytes are not checked (empty).
std::string global_heap_damage(std::string_view file_bytes);

}  // namespace tcsim
