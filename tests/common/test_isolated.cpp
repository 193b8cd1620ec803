// run_isolated (sim/common/isolated.h): the child's answers come back, and a crash or hang of the
// child is an InputError decided by the default signal actions, never by crash handling the child
// inherited from its parent (a sanitizer's or libFuzzer's: tests/fuzz/README.md, "The HDF5 child").
#include <doctest/doctest.h>
#include <unistd.h>

#include <csignal>
#include <string>

#include "common/error.h"
#include "common/isolated.h"

using tcsim::InputError;
using tcsim::run_isolated;

namespace {

// The message of the InputError `f` throws ("" when it throws none).
template <class F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return std::string(e.what());
  }
  return "";
}

// A parent's crash handler as libFuzzer installs one: it would end the child with its own code.
void parent_crash_handler(int) { ::_exit(77); }

// Installs `handler` for `sig` for the scope, then restores the one before.
struct ScopedHandler {
  int sig;
  struct sigaction before {};
  ScopedHandler(int s, void (*handler)(int)) : sig(s) {
    struct sigaction a {};
    a.sa_handler = handler;
    sigemptyset(&a.sa_mask);
    ::sigaction(sig, &a, &before);
  }
  ~ScopedHandler() { ::sigaction(sig, &before, nullptr); }
};

}  // namespace

TEST_CASE("run_isolated: the child's bytes and its InputError come back to the parent") {
  CHECK(run_isolated([] { return std::string("a\0b", 3); }, "f.h5", 10) == std::string("a\0b", 3));
  const std::string e = input_error_of([] {
    (void)run_isolated([]() -> std::string { throw InputError("f.h5:/measured/m", "expected a 1-D dataset"); }, "f.h5", 10);
  });
  CHECK(e.find("f.h5:/measured/m") != std::string::npos);
  CHECK(e.find("expected a 1-D dataset") != std::string::npos);
}

TEST_CASE("run_isolated: a crash in the child is an InputError and runs none of the parent's crash handlers") {
  const ScopedHandler segv(SIGSEGV, parent_crash_handler);
  const std::string e = input_error_of([] {
    (void)run_isolated([]() -> std::string {
      std::raise(SIGSEGV);
      return "not reached";
    }, "bad.h5", 10);
  });
  INFO(e);
  // With the parent's handler the child would have ended with exit status 77 instead.
  CHECK(e.find("bad.h5: the file is corrupted: reading it crashed the library that reads it (signal " +
               std::to_string(SIGSEGV) + ")") != std::string::npos);
}

TEST_CASE("run_isolated: a hang in the child ends at the timeout even when the parent ignores SIGALRM") {
  const ScopedHandler alarm(SIGALRM, SIG_IGN);
  const std::string e = input_error_of([] {
    (void)run_isolated([]() -> std::string {
      for (int i = 0; i < 30; ++i) ::sleep(1);  // sleep() returns early on signals; the alarm must kill
      return "finished";
    }, "slow.h5", 1);
  });
  INFO(e);
  CHECK(e.find("slow.h5: reading took more than 1 s and was stopped") != std::string::npos);
}
