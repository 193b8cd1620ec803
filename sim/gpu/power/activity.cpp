#include "gpu/power/activity.h"

namespace tcsim::gpu {

Activity Activity::of(const KernelResult& r) {
  auto m = [&](const char* name) { return r.get(name).value_or(0.0); };
  Activity a;
  a.warp_instructions = m(kWarpInstructions);
  a.ffma = m(kFfma);
  a.mufu = m(kMufu);
  a.rf_reads = m(kRfReads);
  a.tensor_fma = m(kTensorFma);
  a.smem_bytes = m(kSmem);
  a.l1_bytes = m(kL1);
  a.l2_bytes = m("l2_read_bytes") + m("l2_write_bytes");
  a.dram_bytes = m("dram_read_bytes") + m("dram_write_bytes");
  return a;
}

void Activity::add(const Activity& o) {
  warp_instructions += o.warp_instructions, ffma += o.ffma, mufu += o.mufu, rf_reads += o.rf_reads;
  tensor_fma += o.tensor_fma, smem_bytes += o.smem_bytes, l1_bytes += o.l1_bytes;
  l2_bytes += o.l2_bytes, dram_bytes += o.dram_bytes;
}

void Activity::record(KernelResult& r) const {
  r.set(kWarpInstructions, warp_instructions);
  r.set(kFfma, ffma);
  r.set(kMufu, mufu);
  r.set(kRfReads, rf_reads);
  r.set(kTensorFma, tensor_fma);
  r.set(kSmem, smem_bytes);
  r.set(kL1, l1_bytes);
}

}  // namespace tcsim::gpu
