#pragma once
// The host/GPU launch queue of an eager framework: the CPU spends `host_s` per kernel launch (or the
// launch's own cost: an op class's, autograd's in a training forward) and runs ahead of the GPU; the GPU starts
// a kernel `gap_s` after the previous one is done (the stream's queue gap, kernel.queue_gap: the front
// end's work between eager launches) and once the CPU has launched it. With few, short kernels the GPU
// waits for the CPU (the step is host-bound).
//
// The queue's state (host clock, GPU clock) after a run of launches is a max-plus linear function
// of its state before, so a run repeated N times (a repeat block's copies, a kernel's N launches)
// is computed in closed form or by squaring, not launch by launch: a network of a billion layers
// costs what one of a thousand does.
#include <cstdint>
#include <limits>

namespace tcsim::engine {

class LaunchQueue {
 public:
  explicit LaunchQueue(double host_s, double gap_s = 0) : host_s_(host_s), gap_s_(gap_s) {}

  // `count` launches of a kernel that runs `gpu_s` on the GPU, each costing the host the queue's host_s.
  void launch(double gpu_s, std::int64_t count = 1) { launch(gpu_s, count, host_s_); }
  // The same, each launch costing the host `host` seconds. Launch k (1-based) is issued at cpu + k
  // host and ends at max(gpu, cpu + k host) + gap + gpu_s after the k-1 before it (t = gap + gpu_s),
  // so the last ends at max(gpu + n t, cpu + max(host + n t, n host + t)).
  void launch(double gpu_s, std::int64_t count, double host) {
    if (count <= 0) return;
    const double n = double(count), t = gap_s_ + gpu_s;
    gpu_ = max(gpu_ + n * t, cpu_ + max(host + n * t, n * host + t));
    cpu_ += n * host;
    busy_ += n * gpu_s;
    gaps_ += n * gap_s_;
  }
  // The host waits for the GPU to drain (a value read back, `.item()`) before its next launch.
  void synchronize() { cpu_ = max(cpu_, gpu_); }
  // One CUDA-graph launch before the kernels (host cost of the whole step, paid once).
  void graph_launch(double host_s) {
    cpu_ += host_s;
    gpu_ += host_s;
  }
  // `times` runs of what `body(LaunchQueue&)` launches (the same launches each time).
  template <class Body>
  void repeat(std::int64_t times, Body&& body) {
    if (times <= 0) return;
    Map step = map_of(body), total = identity();
    for (std::int64_t t = times; t > 0; t >>= 1) {  // max-plus power by squaring
      if (t & 1) total = compose(step, total);
      if (t > 1) step = compose(step, step);
    }
    const double cpu = max(total.cc + cpu_, total.cg + gpu_), gpu = max(total.gc + cpu_, total.gg + gpu_);
    cpu_ = cpu, gpu_ = gpu, busy_ += total.busy, gaps_ += total.gaps;
  }

  double finish_s() const { return gpu_; }
  double gpu_busy_s() const { return busy_; }  // the kernels' own time
  double gaps_s() const { return gaps_; }      // the queue gaps before them
  double host_s() const { return cpu_; }

 private:
  static constexpr double kNone = -std::numeric_limits<double>::infinity();
  static double max(double a, double b) { return a < b ? b : a; }
  // cpu' = max(cc + cpu, cg + gpu), gpu' = max(gc + cpu, gg + gpu); busy, gaps: kernel and gap time added.
  struct Map {
    double cc, cg, gc, gg, busy, gaps;
  };
  static Map identity() { return {0, kNone, kNone, 0, 0, 0}; }
  // `second` after `first`.
  static Map compose(const Map& second, const Map& first) {
    return {max(second.cc + first.cc, second.cg + first.gc), max(second.cc + first.cg, second.cg + first.gg),
            max(second.gc + first.cc, second.gg + first.gc), max(second.gc + first.cg, second.gg + first.gg),
            second.busy + first.busy, second.gaps + first.gaps};
  }
  // The map of one run: the run applied to the state with only the host clock (at 0), then to the
  // state with only the GPU clock.
  template <class Body>
  Map map_of(Body& body) const {
    LaunchQueue from_cpu(host_s_, gap_s_), from_gpu(host_s_, gap_s_);
    from_cpu.gpu_ = kNone;
    from_gpu.cpu_ = kNone;
    body(from_cpu);
    body(from_gpu);
    return {from_cpu.cpu_, from_gpu.cpu_, from_cpu.gpu_, from_gpu.gpu_, from_cpu.busy_, from_cpu.gaps_};
  }

  double host_s_, gap_s_;
  double cpu_ = 0, gpu_ = 0, busy_ = 0, gaps_ = 0;
};

}  // namespace tcsim::engine
