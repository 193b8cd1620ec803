#pragma once
// Runs a list of Kernels on one Accelerator with N threads. Results come back in the order of the
// kernels whatever the thread count (each thread writes its own slots), so outputs are identical
// for -j1 and -j16.
#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "workload/accelerator.h"

namespace tcsim::engine {

// 0 -> the number of hardware threads (at least 1).
int resolve_jobs(int jobs);

// One kernel's outcome: its result, or the InputError message the model gave for it.
struct KernelOutcome {
  bool ok = false;
  KernelResult result;   // when ok
  std::string error;     // when !ok: "what" of the model's InputError
  std::string where, detail;  // its two parts (error = where + ": " + detail)
};

// Runs every kernel; a kernel the model rejects (InputError) gives an outcome with the error
// instead of stopping the others. Any other exception is rethrown (a bug). clock_hz > 0: every
// kernel at that clock (Accelerator::run_fixed_clock), not at the clock its own power allows.
std::vector<KernelOutcome> run_kernels_collect(const Accelerator& acc, const std::vector<Kernel>& kernels, int jobs,
                                               double clock_hz = 0);

// Runs every kernel; the first (lowest-index) rejected kernel throws
// InputError(where[i] or the kernel's name, model's message).
std::vector<KernelResult> run_kernels(const Accelerator& acc, const std::vector<Kernel>& kernels, int jobs,
                                      const std::vector<std::string>& where = {});

}  // namespace tcsim::engine
