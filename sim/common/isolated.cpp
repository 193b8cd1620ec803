// run_isolated: fork, the work in the child, its bytes back through a pipe (see isolated.h).
#include "common/isolated.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "common/error.h"

// Present in sanitizer builds only (weak: null otherwise). libFuzzer sets it to save the current
// input as a crash whenever a sanitizer reports an error.
extern "C" __attribute__((weak)) void __sanitizer_set_death_callback(void (*callback)(void));

namespace tcsim {
namespace {

// The first byte of the child's answer says what follows.
constexpr char kResult = 'R';      // the work's bytes
constexpr char kInputError = 'I';  // pack_strings({where, detail})
constexpr char kOtherError = 'X';  // the exception's what()

void write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// Sanitizer builds map terabytes of shadow memory: no address-space limit there.
#if defined(TCSIM_SANITIZED) || defined(__SANITIZE_ADDRESS__)
#define TCSIM_NO_RLIMIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TCSIM_NO_RLIMIT 1
#endif
#endif

#ifndef TCSIM_NO_RLIMIT
// The address space the process maps now (/proc/self/statm's first field, in pages).
std::size_t mapped_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long pages = 0;
  const int got = std::fscanf(f, "%lu", &pages);
  std::fclose(f);
  return got == 1 ? pages * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)) : 0;
}
#endif

// A crash of the child is an answer (the file is corrupted) that the parent reports, so the crash
// handling the child inherits from its parent must not run here: a sanitizer's or libFuzzer's signal
// handlers and libFuzzer's death callback would report the parent's program as crashed and save its
// input as a crash (tests/fuzz). With the default actions a crash is a plain death by a signal, and
// a sanitizer report (an error seen in an interceptor) ends the child with its exit code 1.
void forget_inherited_crash_handling() {
  for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGALRM, SIGXCPU})
    ::signal(sig, SIG_DFL);
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(nullptr);
}

[[noreturn]] void child(int fd, const std::function<std::string()>& work, unsigned timeout_s, std::size_t memory_bytes) {
  forget_inherited_crash_handling();
  ::alarm(timeout_s);  // a hang ends as SIGALRM, which the parent reports
#ifndef TCSIM_NO_RLIMIT
  if (memory_bytes > 0) {
    const rlimit limit{mapped_bytes() + memory_bytes, mapped_bytes() + memory_bytes};
    ::setrlimit(RLIMIT_AS, &limit);
  }
#else
  (void)memory_bytes;
#endif
  std::string answer;
  try {
    answer = kResult + work();
  } catch (const InputError& e) {
    answer = kInputError + pack_strings({e.where(), e.detail()});
  } catch (const std::exception& e) {
    answer = kOtherError + std::string(e.what());
  } catch (...) {
    answer = std::string(1, kOtherError) + "unknown exception";
  }
  write_all(fd, answer);
  ::close(fd);
  ::_exit(0);  // no destructors or atexit handlers of the parent's state
}

}  // namespace

std::string pack_strings(const std::vector<std::string>& parts) {
  std::string out;
  auto put = [&](std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(parts.size());
  for (const auto& p : parts) {
    put(p.size());
    out += p;
  }
  return out;
}

std::vector<std::string> unpack_strings(const std::string& bytes) {
  std::size_t pos = 0;
  auto get = [&]() {
    std::uint64_t v = 0;
    if (bytes.size() - pos < sizeof v) throw std::runtime_error("unpack_strings: truncated");
    std::memcpy(&v, bytes.data() + pos, sizeof v);
    pos += sizeof v;
    return v;
  };
  const std::uint64_t n = get();
  std::vector<std::string> out;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t len = get();
    if (bytes.size() - pos < len) throw std::runtime_error("unpack_strings: truncated");
    out.emplace_back(bytes, pos, len);
    pos += len;
  }
  if (pos != bytes.size()) throw std::runtime_error("unpack_strings: trailing bytes");
  return out;
}

std::string run_isolated(const std::function<std::string()>& work, const std::string& where, unsigned timeout_s,
                         std::size_t memory_bytes) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("run_isolated: pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("run_isolated: fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1], work, timeout_s, memory_bytes);
  }
  ::close(fds[1]);
  std::string answer;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    answer.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    if (sig == SIGALRM)
      throw InputError(where, "reading took more than " + std::to_string(timeout_s) +
                                  " s and was stopped; the file is corrupted or far larger than expected");
    throw InputError(where, "the file is corrupted: reading it crashed the library that reads it (signal " +
                                std::to_string(sig) + ")");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || answer.empty())
    throw InputError(where, "the file is corrupted: reading it failed (exit status " +
                                std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
  const char kind = answer[0];
  answer.erase(0, 1);
  if (kind == kResult) return answer;
  if (kind == kInputError) {
    const auto parts = unpack_strings(answer);
    if (parts.size() == 2) throw InputError(parts[0], parts[1]);
  }
  throw std::runtime_error(answer);
}

}  // namespace tcsim
