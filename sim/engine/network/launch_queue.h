#pragma once
// The host/GPU launch queue of an eager framework: the CPU spends `host_s` per kernel launch and
// runs ahead of the GPU; the GPU starts a kernel when the previous one is done and the CPU has
// launched it. With few, short kernels the GPU waits for the CPU (the step is host-bound).
#include <algorithm>
#include <cstdint>

namespace tcsim::engine {

class LaunchQueue {
 public:
  explicit LaunchQueue(double host_s) : host_s_(host_s) {}

  // `count` launches of a kernel that runs `gpu_s` on the GPU.
  void launch(double gpu_s, std::int64_t count = 1) {
    for (std::int64_t i = 0; i < count; ++i) {
      cpu_ += host_s_;
      gpu_ = std::max(gpu_, cpu_) + gpu_s;
      busy_ += gpu_s;
    }
  }
  // The host waits for the GPU to drain (a value read back, `.item()`) before its next launch.
  void synchronize() { cpu_ = std::max(cpu_, gpu_); }
  // One CUDA-graph launch before the kernels (host cost of the whole step, paid once).
  void graph_launch(double host_s) {
    cpu_ += host_s;
    gpu_ += host_s;
  }

  double finish_s() const { return gpu_; }
  double gpu_busy_s() const { return busy_; }
  double host_s() const { return cpu_; }

 private:
  double host_s_;
  double cpu_ = 0, gpu_ = 0, busy_ = 0;
};

}  // namespace tcsim::engine
