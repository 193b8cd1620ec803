#include "workload/kernel.h"

namespace tcsim {

double Kernel::macs() const {
  if (kind == Kind::memory) return 0;
  if (kind == Kind::conv) {
    const Kernel g = gemm_view(*this);
    return static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k) *
           static_cast<double>(g.batch);
  }
  return static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(batch);
}

Kernel gemm_view(const Kernel& kernel) {
  if (kernel.kind != Kernel::Kind::conv) return kernel;
  Kernel g = kernel;
  g.kind = Kernel::Kind::gemm;
  const ConvShape& c = kernel.conv;
  if (c.depthwise) {
    // Each channel is its own GEMM: M = batch*P*Q, N = 1, K = R*S, batch = channels.
    g.m = c.batch * c.out_h() * c.out_w();
    g.n = 1;
    g.k = c.filter_h * c.filter_w;
    g.batch = c.channels;
  } else {
    g.m = c.batch * c.out_h() * c.out_w();
    g.n = c.num_filters;
    g.k = c.channels * c.filter_h * c.filter_w;
    g.batch = 1;
  }
  return g;
}

Kernel make_gemm(std::string name, std::int64_t m, std::int64_t n, std::int64_t k, FormatId ab, FormatId cd) {
  Kernel g;
  g.kind = Kernel::Kind::gemm;
  g.name = std::move(name);
  g.m = m;
  g.n = n;
  g.k = k;
  g.a_format = g.b_format = ab;
  g.c_format = g.d_format = cd;
  return g;
}

}  // namespace tcsim
