#pragma once
// The per-process kernel cache of a sweep. One model instance per distinct resolved config (the
// config text with every value and default, so two points that resolve to the same hardware share
// it), wrapped in a CachingAccelerator that simulates each distinct kernel once per kernel-relevant
// config (key: that config's text and the kernel's full description, engine/kernel_key.h) and
// answers repeats from memory: the same layer shape again, another workload, or another point
// that differs only in what run() does not read (the host's launch cost, the memory capacity).
// Thread-safe.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "workload/accelerator.h"

namespace tcsim::engine::sweep {

// Kernel results of one kernel-relevant config (load_accelerator.h: kernel_relevant_config), shared
// by the models of every config that differs from it only in what run() does not read.
struct KernelResultStore {
  std::mutex mu;
  std::map<std::string, KernelResult> results;  // kernel_key -> result
};

class CachingAccelerator : public Accelerator {
 public:
  CachingAccelerator(std::unique_ptr<Accelerator> inner, std::shared_ptr<KernelResultStore> store,
                     std::atomic<std::uint64_t>* lookups, std::atomic<std::uint64_t>* hits)
      : inner_(std::move(inner)), store_(std::move(store)), lookups_(lookups), hits_(hits) {}
  std::string name() const override { return inner_->name(); }
  double clock_hz() const override { return inner_->clock_hz(); }
  KernelResult run(const Kernel& kernel) const override;
  double host_overhead_s() const override { return inner_->host_overhead_s(); }
  double host_op_overhead_s(HostOpClass c) const override { return inner_->host_op_overhead_s(c); }
  double host_autograd_factor() const override { return inner_->host_autograd_factor(); }
  double memory_bytes() const override { return inner_->memory_bytes(); }
  double host_launch_delay_s() const override { return inner_->host_launch_delay_s(); }
  bool models_energy() const override { return inner_->models_energy(); }
  double idle_power_w() const override { return inner_->idle_power_w(); }
  bool reads_epilogue_inputs() const override { return inner_->reads_epilogue_inputs(); }
  std::vector<double> power_capped_clocks() const override { return inner_->power_capped_clocks(); }
  KernelResult run_fixed_clock(const Kernel& kernel, double clock_hz) const override;
  double power_limit_w() const override { return inner_->power_limit_w(); }

 private:
  // The stored result of `key`, or `simulate()`'s (then stored).
  template <class Simulate>
  KernelResult cached(const std::string& key, const Kernel& kernel, Simulate simulate) const;
  std::unique_ptr<Accelerator> inner_;
  std::shared_ptr<KernelResultStore> store_;
  std::atomic<std::uint64_t>* lookups_;
  std::atomic<std::uint64_t>* hits_;
};

class ModelCache {
 public:
  // Keeps at most `capacity` models (the least recently used one is dropped first).
  explicit ModelCache(std::size_t capacity = 64) : capacity_(capacity) {}
  // The model of `resolved_yaml` (the config loaded from `config` with `overrides` resolves to it),
  // built on first use.
  std::shared_ptr<const Accelerator> get(const std::filesystem::path& config, const std::vector<std::string>& overrides,
                                         const std::string& resolved_yaml, const std::string& kind);
  std::uint64_t lookups() const { return lookups_; }
  std::uint64_t hits() const { return hits_; }
  std::uint64_t models_built() const { return built_; }

 private:
  std::size_t capacity_;
  std::mutex mu_;
  std::list<std::pair<std::string, std::shared_ptr<const Accelerator>>> models_;  // most recent first
  std::list<std::pair<std::string, std::shared_ptr<KernelResultStore>>> stores_;   // most recent first
  std::atomic<std::uint64_t> lookups_{0}, hits_{0}, built_{0};
};

}  // namespace tcsim::engine::sweep
