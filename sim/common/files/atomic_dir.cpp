#include "common/files/atomic_dir.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>

#include "common/files/atomic_file.h"
#include "common/error.h"

namespace tcsim {

namespace fs = std::filesystem;

namespace {

// The temporary folders alive now, removed by the SIGINT/SIGTERM handler. The handler may interrupt
// the program inside malloc (writing traces), so it touches no heap and no lock: the paths live in
// fixed slots, written before a slot is marked used, and the removal uses system calls only
// (openat, getdents64, unlinkat; all async-signal-safe). std::filesystem::remove_all there aborted
// the process in glibc's malloc now and then, leaving the folder behind.
constexpr int kLiveSlots = 16;
constexpr std::size_t kLivePath = 4096;
char g_live_path[kLiveSlots][kLivePath];
volatile std::sig_atomic_t g_live_used[kLiveSlots];

std::mutex& live_mutex() {  // registration only; the handler never takes it
  static std::mutex m;
  return m;
}

// Returns the slot holding `path`, or -1 when none is free or the path does not fit (that folder is
// then removed on normal exits only).
int register_live(const std::string& path) {
  if (path.size() >= kLivePath) return -1;
  std::lock_guard lock(live_mutex());
  for (int i = 0; i < kLiveSlots; ++i)
    if (!g_live_used[i]) {
      std::memcpy(g_live_path[i], path.c_str(), path.size() + 1);
      std::atomic_signal_fence(std::memory_order_seq_cst);
      g_live_used[i] = 1;
      return i;
    }
  return -1;
}

void unregister_live(int slot) {
  if (slot < 0) return;
  std::lock_guard lock(live_mutex());
  g_live_used[slot] = 0;
}

bool is_dot_entry(const char* n) { return n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0)); }

// Removes `name` under the folder `parent` (a file, or a folder and everything in it) with system
// calls only. Entries removed while a folder is read can be skipped by the read: up to four passes.
void remove_tree(int parent, const char* name, int depth) {
  if (::unlinkat(parent, name, 0) == 0 || depth > 32) return;
  const int fd = ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  struct Dirent64 {
    std::uint64_t ino;
    std::int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[1];
  };
  for (int pass = 0; pass < 4; ++pass) {
    alignas(8) char buf[4096];
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0) break;
      for (long at = 0; at < n;) {
        const auto* d = reinterpret_cast<const Dirent64*>(buf + at);
        at += d->reclen;
        if (!is_dot_entry(d->name)) remove_tree(fd, d->name, depth + 1);
      }
    }
    if (::unlinkat(parent, name, AT_REMOVEDIR) == 0) break;
    ::lseek(fd, 0, SEEK_SET);
  }
  ::close(fd);
}

extern "C" void remove_work_folders(int sig) {
  for (int i = 0; i < kLiveSlots; ++i)
    if (g_live_used[i]) remove_tree(AT_FDCWD, g_live_path[i], 0);
  // Die of the same signal so that the exit status says what happened.
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
  live_slot_ = register_live(work_.string());
  fs::remove_all(work_, ec);
  fs::create_directories(work_, ec);
  if (ec) throw InputError(work_.string(), "cannot create folder: " + ec.message());
}

AtomicDir::~AtomicDir() {
  std::error_code ec;
  if (!committed_) fs::remove_all(work_, ec);
  unregister_live(live_slot_);
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
