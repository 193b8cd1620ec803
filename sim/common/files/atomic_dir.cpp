#include "common/files/atomic_dir.h"

#include <unistd.h>

#include <csignal>
#include <mutex>
#include <set>
#include <string>

#include "common/files/atomic_file.h"
#include "common/error.h"

namespace tcsim {

namespace fs = std::filesystem;

namespace {

// The temporary folders alive now, removed by the SIGINT/SIGTERM handler.
std::mutex& live_mutex() {
  static std::mutex m;
  return m;
}
std::set<std::string>& live() {
  static std::set<std::string> s;
  return s;
}

extern "C" void remove_work_folders(int sig) {
  // Not async-signal-safe in the strict sense (the process is about to die anyway): remove what
  // we can, then die of the same signal so the exit status says what happened.
  for (const auto& p : live()) {
    std::error_code ec;
    fs::remove_all(p, ec);
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::signal(SIGINT, remove_work_folders);
    std::signal(SIGTERM, remove_work_folders);
  });
}

}  // namespace

AtomicDir::AtomicDir(fs::path target) : target_(std::move(target)) {
  if (target_.empty()) throw InputError("--output", "expected a folder name");
  std::error_code ec;
  if (fs::exists(target_, ec) && !fs::is_directory(target_, ec))
    throw InputError(target_.string(), "exists and is not a folder");
  const fs::path parent = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
  fs::create_directories(parent, ec);
  if (ec) throw InputError(parent.string(), "cannot create folder: " + ec.message());
  std::string name = target_.filename().string();
  if (name.empty() || name == "." || name == "..") name = "out";
  work_ = parent / ("." + name + ".tmp." + std::to_string(::getpid()));
  install_handlers();
  {
    std::lock_guard lock(live_mutex());
    live().insert(work_.string());
  }
  fs::remove_all(work_, ec);
  fs::create_directories(work_, ec);
  if (ec) throw InputError(work_.string(), "cannot create folder: " + ec.message());
}

AtomicDir::~AtomicDir() {
  std::error_code ec;
  if (!committed_) fs::remove_all(work_, ec);
  std::lock_guard lock(live_mutex());
  live().erase(work_.string());
}

void AtomicDir::commit() {
  std::error_code ec;
  fs::create_directories(target_, ec);
  if (ec) throw InputError(target_.string(), "cannot create folder: " + ec.message());
  fs::remove(target_ / kCompleteMarker, ec);
  for (const auto& entry : fs::directory_iterator(work_)) {
    const fs::path dest = target_ / entry.path().filename();
    if (fs::is_directory(dest, ec) && !fs::is_symlink(dest, ec)) fs::remove_all(dest, ec);
    fs::rename(entry.path(), dest, ec);
    if (ec) throw InputError(dest.string(), "cannot move the output into place: " + ec.message());
  }
  write_file_atomically(target_ / kCompleteMarker, "complete\n");
  fs::remove_all(work_, ec);
  committed_ = true;
}

}  // namespace tcsim
