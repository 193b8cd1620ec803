#include "engine/kernel_runner.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "common/error.h"

namespace tcsim::engine {

int resolve_jobs(int jobs) {
  if (jobs > 0) return jobs;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

std::vector<KernelOutcome> run_kernels_collect(const Accelerator& acc, const std::vector<Kernel>& kernels, int jobs,
                                               double clock_hz) {
  std::vector<KernelOutcome> out(kernels.size());
  std::atomic<std::size_t> next{0};
  std::exception_ptr bug;
  std::mutex bug_mutex;
  std::size_t bug_index = kernels.size();
  auto worker = [&] {
    for (std::size_t i = next++; i < kernels.size(); i = next++) {
      try {
        out[i].result = clock_hz > 0 ? acc.run_fixed_clock(kernels[i], clock_hz) : acc.run(kernels[i]);
        out[i].ok = true;
      } catch (const InputError& e) {
        out[i].error = e.what();
        out[i].where = e.where();
        out[i].detail = e.detail();
      } catch (...) {
        std::lock_guard lock(bug_mutex);
        if (i < bug_index) {  // keep the lowest index, so the error does not depend on timing
          bug_index = i;
          bug = std::current_exception();
        }
      }
    }
  };
  const int n = std::min<int>(resolve_jobs(jobs), static_cast<int>(std::max<std::size_t>(kernels.size(), 1)));
  if (n <= 1) {
    worker();
  } else {
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(n));
    for (int t = 0; t < n; ++t) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
  }
  if (bug) std::rethrow_exception(bug);
  return out;
}

std::vector<KernelResult> run_kernels(const Accelerator& acc, const std::vector<Kernel>& kernels, int jobs,
                                      const std::vector<std::string>& where) {
  std::vector<KernelOutcome> outcomes = run_kernels_collect(acc, kernels, jobs);
  std::vector<KernelResult> results;
  results.reserve(outcomes.size());
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (!outcomes[i].ok)
      throw InputError(i < where.size() ? where[i] : "kernel '" + kernels[i].name + "'", outcomes[i].error);
    results.push_back(std::move(outcomes[i].result));
  }
  return results;
}

}  // namespace tcsim::engine
