#include <doctest/doctest.h>
#include <cstdio>
#include <chrono>
#include "gpu/gpu_model.h"
#include "gpu_test_util.h"
namespace tcsim::gpu {
TEST_CASE("scratch edge") {
  GpuModel h(test::shipped("h100"));
  GpuModel a(test::shipped("a100"));
  auto mk = [](std::int64_t b, std::int64_t hh, std::int64_t kvh, std::int64_t q, std::int64_t kv, std::int64_t d, bool c) {
    Kernel k; k.kind = Kernel::Kind::attention; k.name = "e"; k.attention = {b, hh, kvh, q, kv, d, c}; return k; };
  for (int b : {2, 4, 8}) {
    auto r = h.run(mk(b, 16, 16, 8192, 8192, 128, false));
    std::printf("b%d %.1f TF\n", b, 4.0*b*16*8192.0*8192*128/r.time_s/1e12);
    auto rc = h.run(mk(b, 16, 16, 8192, 8192, 128, true));
    std::printf("b%d causal %.1f TF\n", b, 2.0*b*16*8192.0*8192*128/rc.time_s/1e12);
  }
  for (auto k : {mk(1,1,1,1,1,64,true), mk(1,4,4,3000,100,128,true), mk(1,8,8,100,3000,40,true), mk(3,8,2,17,4000,96,false), mk(64,64,64,4096,4096,128,true), mk(256,32,8,1,4096,128,true), mk(2,8,8,5,5000,256,false)}) {
    for (GpuModel* m : {&a, &h}) {
      auto t0 = std::chrono::steady_clock::now();
      auto r = m->run(k);
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      std::printf("%s q%lld kv%lld d%lld: %.2f us %s [%s] sim %.1f ms\n", m->name().c_str(), (long long)k.attention.q_len, (long long)k.attention.kv_len, (long long)k.attention.head_dim, r.time_s*1e6, r.bound.c_str(), r.mapping.c_str(), ms);
    }
  }
}
}
