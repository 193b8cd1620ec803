#include "engine/kernel_key.h"

#include <sstream>

namespace tcsim::engine {

std::string kernel_key(const Kernel& k) {
  std::ostringstream os;
  // The double fields (byte counts, flops, Kernel::written_before) exactly: at the stream's default
  // 6 significant digits, two kernels on either side of a threshold (GpuConfig::dirty_drains_quietly)
  // could share a key and so an estimate.
  os.precision(17);
  const ConvShape& c = k.conv;
  const AttentionShape& a = k.attention;
  os << int(k.kind) << '|' << k.m << ',' << k.n << ',' << k.k << ',' << k.batch << '|' << int(k.a_format) << ','
     << int(k.b_format) << ',' << int(k.c_format) << ',' << int(k.d_format) << '|' << int(k.layout) << ','
     << int(k.pass) << ',' << k.sparse_a << k.l2_warm << ',' << k.epilogue_inputs;
  if (k.kind == Kernel::Kind::gemm) os << '|' << k.cublas_version;
  if (k.kind == Kernel::Kind::conv)
    os << '|' << c.batch << ',' << c.ifmap_h << ',' << c.ifmap_w << ',' << c.filter_h << ',' << c.filter_w << ','
       << c.channels << ',' << c.num_filters << ',' << c.stride_h << ',' << c.stride_w << ',' << c.pad_h << ','
       << c.pad_w << ',' << c.dilation_h << ',' << c.dilation_w << ',' << c.groups << ',' << int(c.layout) << ',' << c.cudnn_version;
  if (k.kind == Kernel::Kind::attention)
    os << '|' << a.batch << ',' << a.heads << ',' << a.kv_heads << ',' << a.q_len << ',' << a.kv_len << ','
       << a.head_dim << ',' << a.causal << ',' << a.dropout;
  if (k.kind == Kernel::Kind::memory)
    os << '|' << k.bytes_read << ',' << k.bytes_written << ',' << k.flops_nontensor << ',' << k.memory.op << ','
       << k.memory.elements << ',' << k.memory.row_length << ',' << k.memory.strided_dims << ',' << k.memory.lines_per_warp << ',' << k.memory.cast << ',' << k.memory.operands << ',' << k.memory.cold << ',' << k.memory.evicted_bytes << ',' << k.memory.cold_read_bytes << ','
       << k.memory.rope_query << ',' << k.follows_itself << k.profiled << ',' << k.written_before;  // only memory kernels' fixed cost reads it (GpuConfig::kernel_fixed_s)
  if (k.kind == Kernel::Kind::memory && k.memory.pool.n > 0) {
    const PoolShape& p = k.memory.pool;
    os << '|' << p.n << ',' << p.c << ',' << p.h << ',' << p.w << ',' << p.p << ',' << p.q << ',' << p.kernel_h << ','
       << p.kernel_w << ',' << p.stride_h << ',' << p.stride_w << ',' << p.pad_h << ',' << p.pad_w << ','
       << p.channels_last << p.backward;
  }
  return os.str();
}

}  // namespace tcsim::engine
