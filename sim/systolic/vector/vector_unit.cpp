#include "systolic/vector/vector_unit.h"

#include <algorithm>
#include <sstream>

namespace tcsim::systolic {

KernelResult run_vector_kernel(const Kernel& kernel, const SystolicConfig& c) {
  const double bytes = static_cast<double>(kernel.bytes_read) + static_cast<double>(kernel.bytes_written);
  const double ops = std::max(0.0, kernel.flops_nontensor);
  const double alu_cycles = ops / static_cast<double>(c.vector.lanes);
  const double sram_cycles = bytes / c.vector.sram_bytes_per_cycle;
  // The activation buffer keeps what fits, as back-to-back layers leave it; larger tensors and a
  // training step's parameters (last written by the previous step's optimizer) stream from DRAM.
  const bool from_dram = kernel.memory.cold || bytes > static_cast<double>(c.ifmap_sram_bytes);
  const double dram_rate = c.dram_bytes_per_cycle(static_cast<double>(c.word_bytes));
  const double dram_cycles = from_dram && dram_rate > 0 ? bytes / dram_rate : 0;

  KernelResult r;
  r.name = kernel.name;
  const double busy = std::max({alu_cycles, sram_cycles, dram_cycles});
  r.cycles = busy + c.vector.latency_cycles;
  r.time_s = c.clock_hz > 0 ? r.cycles / c.clock_hz : 0;
  r.flops = ops;
  r.bound = busy <= 0 ? "latency" : busy == dram_cycles ? "dram" : busy == sram_cycles ? "sram" : "vector";
  std::ostringstream m;
  m << "vector unit (" << kernel.memory.op << "): " << c.vector.lanes << " lanes, "
    << (from_dram ? "operands from DRAM" : "operands in the activation buffer");
  r.mapping = m.str();
  r.set("vector_ops", ops);
  r.set("vector_util_pct", r.cycles > 0 ? 100 * alu_cycles / r.cycles : 0);
  r.set("sram_read_bytes", static_cast<double>(kernel.bytes_read));
  r.set("sram_write_bytes", static_cast<double>(kernel.bytes_written));
  r.set("dram_read_bytes", from_dram ? static_cast<double>(kernel.bytes_read) : 0);
  r.set("dram_write_bytes", from_dram ? static_cast<double>(kernel.bytes_written) : 0);
  if (from_dram && dram_rate <= 0)
    r.notes.push_back("DRAM unlimited (dram.mode calc without dram.bandwidth): the buffer's bandwidth bounds it");
  return r;
}

}  // namespace tcsim::systolic
