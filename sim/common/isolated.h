#pragma once
// Runs a piece of reading work in a child process, for input read through a C library that a
// corrupted file can make crash or hang (libhdf5 follows variable-length string references into
// its global heap without bounds checks: a damaged heap is a wild read). The child returns its
// result as bytes through a pipe; an InputError thrown in the child is rethrown in the parent;
// a crash, a hang (past `timeout_s`) or any other failure of the child becomes an InputError
// naming `where`, so bad input never takes tcsim down.
#include <functional>
#include <string>
#include <vector>

namespace tcsim {

// `memory_bytes` (0: none) caps what the child may allocate beyond what it inherits (RLIMIT_AS; not
// in sanitizer builds, whose shadow memory needs the address space): a damaged size field that makes
// the library allocate gigabytes then fails fast instead of paging for minutes.
std::string run_isolated(const std::function<std::string()>& work, const std::string& where, unsigned timeout_s,
                         std::size_t memory_bytes = 0);

// A list of strings as one byte string and back (length-prefixed: any bytes survive).
std::string pack_strings(const std::vector<std::string>& parts);
// Throws std::runtime_error when `bytes` is not what pack_strings wrote.
std::vector<std::string> unpack_strings(const std::string& bytes);

}  // namespace tcsim
