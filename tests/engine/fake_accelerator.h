#pragma once
// A tiny Accelerator for engine tests: time = flops / rate (+ a fixed overhead); it rejects
// kernels whose name starts with "bad" (InputError) and throws std::logic_error for "bug".
#include <stdexcept>
#include <string>

#include "common/error.h"
#include "workload/accelerator.h"

namespace tcsim::test {

class FakeAccelerator : public Accelerator {
 public:
  explicit FakeAccelerator(double flops_per_s = 1e12, double overhead_s = 0) : rate_(flops_per_s), overhead_(overhead_s) {}
  std::string name() const override { return "fake"; }
  double clock_hz() const override { return 1e9; }
  KernelResult run(const Kernel& k) const override {
    if (k.name.rfind("bad", 0) == 0) throw InputError("fake", "cannot run " + k.name);
    if (k.name == "bug") throw std::logic_error("a bug");
    KernelResult r;
    r.name = k.name;
    r.flops = k.flops();
    r.time_s = r.flops / rate_ + overhead_;
    r.cycles = r.time_s * clock_hz();
    r.bound = "tensor";
    r.mapping = "fake " + std::to_string(k.m);
    r.set("tensor_util_pct", 50);
    if (k.m > 100) r.set("dram_read_bytes", static_cast<double>(k.m));
    if (k.m == 20) r.notes = {"first note", "second note"};
    return r;
  }

 private:
  double rate_, overhead_;
};

}  // namespace tcsim::test
