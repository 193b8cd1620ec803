#pragma once
// Shared by the libFuzzer targets (tests/fuzz/README.md). A target feeds one reader the fuzzer's
// bytes; an InputError is the expected answer to bad input, anything else (another exception, a
// crash, a sanitizer report, a hang) is a bug the fuzzer reports.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "common/error.h"

namespace tcsim::fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A scratch folder for readers that take file names, unique to this process.
inline std::filesystem::path scratch() {
  static const std::filesystem::path d = [] {
    auto p = std::filesystem::temp_directory_path() / ("tcsim_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(p);
    std::atexit([] { std::error_code ec; std::filesystem::remove_all(std::filesystem::temp_directory_path() / ("tcsim_fuzz_" + std::to_string(::getpid())), ec); });
    return p;
  }();
  return d;
}

inline std::filesystem::path write_scratch(const std::string& name, const std::string& bytes) {
  const auto p = scratch() / name;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
  return p;
}

// Runs `f`; InputError is fine, any other exception aborts (the fuzzer records the input).
template <class F>
int run(F&& f) {
  try {
    f();
  } catch (const InputError&) {
  } catch (const std::exception& e) {
    std::cerr << "fuzz: not an InputError: " << e.what() << "\n";
    std::abort();
  }
  return 0;
}

// Splits the input at the first newline: the first line, the rest.
inline std::pair<std::string, std::string> first_line(const std::string& s) {
  const auto nl = s.find('\n');
  if (nl == std::string::npos) return {s, ""};
  return {s.substr(0, nl), s.substr(nl + 1)};
}

}  // namespace tcsim::fuzz
