#include "engine/sweep/model_cache.h"

#include <cstdio>

#include "engine/kernel_key.h"
#include "engine/load_accelerator.h"

namespace tcsim::engine::sweep {

template <class Simulate>
KernelResult CachingAccelerator::cached(const std::string& key, const Kernel& kernel, Simulate simulate) const {
  ++*lookups_;
  {
    std::lock_guard<std::mutex> lock(store_->mu);
    if (auto it = store_->results.find(key); it != store_->results.end()) {
      ++*hits_;
      KernelResult r = it->second;
      r.name = kernel.name;
      return r;
    }
  }
  // Two threads may simulate the same kernel at once; the model is deterministic, so either
  // result is the same and the first one stored is kept.
  KernelResult r = simulate();
  std::lock_guard<std::mutex> lock(store_->mu);
  store_->results.emplace(key, r);
  return r;
}

KernelResult CachingAccelerator::run(const Kernel& kernel) const {
  return cached(kernel_key(kernel), kernel, [&] { return inner_->run(kernel); });
}

KernelResult CachingAccelerator::run_fixed_clock(const Kernel& kernel, double clock_hz) const {
  char at[40];
  std::snprintf(at, sizeof at, "@%.17g Hz", clock_hz);
  return cached(kernel_key(kernel) + at, kernel, [&] { return inner_->run_fixed_clock(kernel, clock_hz); });
}

std::shared_ptr<const Accelerator> ModelCache::get(const std::filesystem::path& config,
                                                   const std::vector<std::string>& overrides,
                                                   const std::string& resolved_yaml, const std::string& kind) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = models_.begin(); it != models_.end(); ++it)
    if (it->first == resolved_yaml) {
      models_.splice(models_.begin(), models_, it);
      return models_.front().second;
    }
  // Built under the lock: a model is cheap to build next to the kernels it runs (milliseconds).
  const std::string relevant = kernel_relevant_config(kind, resolved_yaml);
  std::shared_ptr<KernelResultStore> store;
  for (auto it = stores_.begin(); it != stores_.end(); ++it)
    if (it->first == relevant) {
      stores_.splice(stores_.begin(), stores_, it);
      store = stores_.front().second;
      break;
    }
  if (!store) {
    store = std::make_shared<KernelResultStore>();
    stores_.emplace_front(relevant, store);
    if (stores_.size() > capacity_) stores_.pop_back();
  }
  auto model = std::make_shared<CachingAccelerator>(load_accelerator(config, overrides), store, &lookups_, &hits_);
  ++built_;
  models_.emplace_front(resolved_yaml, model);
  if (models_.size() > capacity_) models_.pop_back();
  return model;
}

}  // namespace tcsim::engine::sweep
