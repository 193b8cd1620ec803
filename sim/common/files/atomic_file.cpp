#include "common/files/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace tcsim {

namespace fs = std::filesystem;

AtomicOutput::AtomicOutput(fs::path final_path) : final_(std::move(final_path)) {
  if (final_.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(final_.parent_path(), ec);
    if (ec) throw InputError(final_.parent_path().string(), "cannot create folder: " + ec.message());
  }
  temp_ = final_;
  temp_ += ".tmp." + std::to_string(::getpid());
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) {
    std::error_code ec;
    fs::remove(temp_, ec);
  }
}

void AtomicOutput::commit() {
  std::error_code ec;
  fs::rename(temp_, final_, ec);
  if (ec) throw InputError(final_.string(), "cannot write output: " + ec.message());
  committed_ = true;
}

void write_file_atomically(const fs::path& path, const std::string& contents) {
  AtomicOutput out(path);
  {
    std::ofstream f(out.temp_path(), std::ios::binary | std::ios::trunc);
    if (!f) throw InputError(path.string(), std::string("cannot open for writing: ") + std::strerror(errno));
    f.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    f.flush();
    if (!f) throw InputError(path.string(), "write failed (disk full?)");
  }
  out.commit();
}

std::string read_file(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path.string(), "cannot open file (missing or unreadable)");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace tcsim
