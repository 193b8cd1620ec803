// The fused-attention model (sim/gpu/attention_*): closed forms of the work, causal masking, GQA,
// decode (DRAM-bound, split-KV), backward, architecture rules, bad input, determinism.
#include <doctest/doctest.h>

#include <string>

#include "common/error.h"
#include "gpu/attention/attention_plan.h"
#include "gpu/gpu_model.h"
#include "gpu/sm/sm_sim.h"
#include "gpu/gpu_test_util.h"

namespace tcsim::gpu {
namespace {

Kernel attention(std::int64_t batch, std::int64_t heads, std::int64_t kv_heads, std::int64_t q_len, std::int64_t kv_len,
                 std::int64_t head_dim, bool causal, Pass pass = Pass::forward) {
  Kernel k;
  k.kind = Kernel::Kind::attention;
  k.name = "attn";
  k.attention = {batch, heads, kv_heads, q_len, kv_len, head_dim, causal};
  k.pass = pass;
  return k;
}

bool has_note(const KernelResult& r, const std::string& text) {
  for (const auto& n : r.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("attention MACs: both products over the unmasked pairs, five products backward") {
  CHECK(attention(2, 3, 3, 100, 200, 64, false).macs() == 2.0 * 100 * 200 * 64 * 3 * 2);
  // Causal, q_len == kv_len: the triangle with its diagonal.
  CHECK(attention(1, 1, 1, 8, 8, 16, true).macs() == 2.0 * (8 * 9 / 2) * 16);
  // Causal with a prefix: 4 new queries after 6 cached keys see 6 + 1..4 keys.
  CHECK(attention(1, 1, 1, 4, 10, 16, true).macs() == 2.0 * (4 * 6 + 4 * 5 / 2) * 16);
  const Kernel fwd = attention(2, 8, 2, 512, 512, 128, true);
  const Kernel bwd = attention(2, 8, 2, 512, 512, 128, true, Pass::data_grad);
  CHECK(bwd.macs() == doctest::Approx(2.5 * fwd.macs()));
  CHECK(fwd.flops() == 2 * fwd.macs());
}

TEST_CASE("MUFU groups occupy the sub-core's special-function unit for 32 / lanes cycles each") {
  const GpuConfig g = test::shipped("a100");
  WarpProgram p;
  p.iterations = 1;
  Instr m;
  m.op = Op::mufu;
  m.count = 100;
  p.body.push_back(m);
  const SmRunStats st = simulate_sm(g, p, 1, 1, SmEnvironment{});
  CHECK(g.sfu_lanes_per_subcore == 4);
  CHECK(st.sfu_busy == doctest::Approx(100 * 8.0));
  CHECK(st.cycles >= 100 * 8.0);
  CHECK(st.cycles <= 100 * 8.0 + g.ffma_latency + 2);
}

TEST_CASE("causal masking skips the fully masked key tiles: about half the work") {
  GpuModel model(test::shipped("a100"));
  const KernelResult full = model.run(attention(1, 16, 16, 8192, 8192, 128, false));
  const KernelResult causal = model.run(attention(1, 16, 16, 8192, 8192, 128, true));
  // FA2 head_dim 128: Br 128, Bc 64; query block i visits 2(i+1) of the 128 key tiles.
  const double n = 8192 / 128;
  CHECK(full.get("tile_iterations").value() == 16 * n * 128);
  CHECK(causal.get("tile_iterations").value() == 16 * n * (n + 1));
  const double ratio = causal.time_s / full.time_s;
  CHECK(ratio > 0.5);
  CHECK(ratio < 0.6);
  CHECK(has_note(causal, "causal"));
}

TEST_CASE("dropout inside fused attention: a random draw per score element; sm_90's forward visits every key tile") {
  // GPT-2 AMP training's attention (validation/measured/H100/profiles/gpt2_amp-bf16_b16): cuDNN's
  // sm90 forward 186 us, its backward kernels 344 us per call.
  GpuModel h100(test::shipped("h100"));
  Kernel fwd = attention(16, 12, 12, 1024, 1024, 64, true);
  fwd.a_format = fwd.b_format = FormatId::bf16;
  const KernelResult plain = h100.run(fwd);
  fwd.attention.dropout = 0.1;
  const KernelResult dropped = h100.run(fwd);
  // Br 192 x Bc 128: the 6 query blocks visit 2+3+5+6+8+8 = 32 key tiles causally, 48 in all
  CHECK(dropped.get("tile_iterations").value() == doctest::Approx(1.5 * plain.get("tile_iterations").value()));
  CHECK(dropped.mapping.find("dropout") != std::string::npos);
  CHECK(dropped.mapping.find("every key tile") != std::string::npos);
  CHECK_FALSE(has_note(dropped, "fully masked key tiles skipped"));
  MESSAGE("H100 GPT-2 attention forward: " << plain.time_s * 1e6 << " us without dropout, " << dropped.time_s * 1e6
                                           << " with (186 measured)");
  CHECK(std::abs(dropped.time_s * 1e6 / 186 - 1) < 0.3);
  Kernel bwd = attention(16, 12, 12, 1024, 1024, 64, true, Pass::data_grad);
  bwd.a_format = bwd.b_format = FormatId::bf16;
  const double bwd_plain = h100.run(bwd).time_s;
  bwd.attention.dropout = 0.1;
  const KernelResult bwd_dropped = h100.run(bwd);
  CHECK(bwd_dropped.time_s > bwd_plain);  // the mask is drawn again for P
  MESSAGE("backward: " << bwd_dropped.time_s * 1e6 << " us (344 measured)");
  CHECK(std::abs(bwd_dropped.time_s * 1e6 / 344 - 1) < 0.15);
  // FlashAttention-2 (A100) keeps skipping the masked tiles with dropout: only the draws cost more
  GpuModel a100(test::shipped("a100"));
  Kernel fa2 = attention(8, 16, 16, 2048, 2048, 128, true);
  const KernelResult fa2_plain = a100.run(fa2);
  fa2.attention.dropout = 0.1;
  const KernelResult fa2_dropped = a100.run(fa2);
  CHECK(fa2_dropped.get("tile_iterations").value() == fa2_plain.get("tile_iterations").value());
  CHECK(fa2_dropped.time_s > fa2_plain.time_s);
  // a dropout probability must be in [0, 1)
  fa2.attention.dropout = 1;
  CHECK_THROWS_AS(a100.run(fa2), InputError);
  fa2.attention.dropout = -0.1;
  CHECK_THROWS_AS(a100.run(fa2), InputError);
}

TEST_CASE("grouped-query decode reads each KV head's cache once") {
  GpuModel model(test::shipped("a100"));
  const std::int64_t batch = 32, kv = 8192, d = 128;  // enough KV heads to need no split
  const KernelResult gqa = model.run(attention(batch, 32, 8, 1, kv, d, true));
  const KernelResult mha = model.run(attention(batch, 32, 32, 1, kv, d, true));
  const double q = double(batch) * 32 * d * 2;
  CHECK(gqa.get("dram_read_bytes").value() == doctest::Approx(2.0 * batch * 8 * kv * d * 2 + q));
  CHECK(mha.get("dram_read_bytes").value() == doctest::Approx(2.0 * batch * 32 * kv * d * 2 + q));
  CHECK(gqa.mapping.find("GQA heads packed") != std::string::npos);
  CHECK(gqa.get("kv_splits").value() == 1);
  const double ratio = gqa.time_s / mha.time_s;
  CHECK(ratio > 0.2);
  CHECK(ratio < 0.4);
}

TEST_CASE("decode attention is DRAM-bound and its time scales with kv_len") {
  for (const char* cfg : {"a100", "h100"}) {
    CAPTURE(cfg);
    GpuModel model(test::shipped(cfg));
    const KernelResult a = model.run(attention(16, 32, 8, 1, 16384, 128, true));
    const KernelResult b = model.run(attention(16, 32, 8, 1, 32768, 128, true));
    CHECK(a.bound == "dram");
    CHECK(b.bound == "dram");
    CHECK(b.get("dram_util_pct").value() > 70);
    const double ratio = b.time_s / a.time_s;
    CHECK(ratio > 1.9);
    CHECK(ratio < 2.05);
  }
}

TEST_CASE("decode splits the KV length when batch x kv_heads cannot fill the GPU") {
  const GpuConfig g = test::shipped("a100");
  GpuModel model(g);
  const KernelResult small = model.run(attention(1, 32, 8, 1, 32768, 128, true));
  CHECK(small.get("kv_splits").value() > 1);
  CHECK(has_note(small, "split-KV"));
  CHECK(small.get("launch_overhead_us").value() == doctest::Approx(2 * g.launch_overhead_s * 1e6));
  // The combine kernel reads every split's fp32 partial O and LSE back.
  const double splits = small.get("kv_splits").value(), rows = 8 * 4;  // 8 KV heads x 4 packed query heads
  CHECK(small.get("dram_read_bytes").value() ==
        doctest::Approx(2.0 * 8 * 32768 * 128 * 2 + rows * 128 * 2 + splits * rows * (128 * 4 + 4)));
  const KernelResult large = model.run(attention(64, 32, 8, 1, 32768, 128, true));
  CHECK(large.get("kv_splits").value() == 1);
  // Splitting is what keeps one sequence fast: it streams the cache at a similar rate per byte.
  const double per_byte_small = small.time_s / 1.0, per_byte_large = large.time_s / 64.0;
  CHECK(per_byte_small < 2.0 * per_byte_large);
}

TEST_CASE("split-KV decode on more SMs never takes longer: its last wave runs at its own concurrency") {
  // Llama-2-7B's decode attention (32 heads, KV 2048) splits the KV length 6 ways on 96-126 SMs: 192
  // CTAs, one wave. The bandwidth share of a CTA is bandwidth / 192 whatever the slots; rounding the
  // concurrency up to the slots (252 on 126 SMs) made the H100 up to 24% slower than with 99 SMs.
  GpuConfig g = test::shipped("h100");
  double first = 0;
  for (int sms : {96, 99, 108, 120, 126}) {
    CAPTURE(sms);
    g.sm_count = sms;
    const KernelResult r = GpuModel(g).run(attention(1, 32, 32, 1, 2048, 128, true));
    REQUIRE(r.get("kv_splits").value() == 6);
    if (first == 0) first = r.time_s;
    CHECK(r.time_s <= first * 1.02);
  }
}

TEST_CASE("backward: FlashAttention-2's dQ/dK/dV kernel, 2.5x the forward products") {
  GpuModel model(test::shipped("a100"));
  const KernelResult f = model.run(attention(4, 16, 16, 4096, 4096, 64, false));
  const KernelResult b = model.run(attention(4, 16, 16, 4096, 4096, 64, false, Pass::data_grad));
  CHECK(b.flops == doctest::Approx(2.5 * f.flops));
  CHECK(b.mapping.find("FlashAttention-2 backward") != std::string::npos);
  const double ratio = b.time_s / f.time_s;
  CHECK(ratio > 2.0);
  CHECK(ratio < 4.0);
  // dK, dV and the fp32 dQ accumulator reach DRAM.
  CHECK(b.get("dram_write_bytes").value() >= 2.0 * 4 * 16 * 4096 * 64 * 2 + 4.0 * 16 * 4096 * 64 * 4);
}

TEST_CASE("prefill: FlashAttention-2 on A100, FlashAttention-3 on H100, with their tiles") {
  GpuModel a100(test::shipped("a100"));
  const KernelResult a = a100.run(attention(2, 16, 16, 8192, 8192, 128, false));
  CHECK(a.mapping.find("FlashAttention-2 forward Br 128 x Bc 64, 4 warps") != std::string::npos);
  CHECK(a.mapping.find("1-stage, 2 CTAs/SM") != std::string::npos);
  CHECK(a.get("tensor_util_pct").value() > 40);
  CHECK(a.get("tensor_util_pct").value() < 92);
  // Q, K and V once from DRAM (K/V of a head stay in L2 while its query blocks run), O written once.
  const double qkv = 3.0 * 2 * 16 * 8192 * 128 * 2;
  CHECK(a.get("dram_read_bytes").value() == doctest::Approx(qkv));
  CHECK(a.get("dram_write_bytes").value() >= qkv / 3);
  GpuModel h100(test::shipped("h100"));
  const KernelResult h = h100.run(attention(2, 16, 16, 8192, 8192, 128, false));
  CHECK(h.mapping.find("FlashAttention-3 forward Br 128 x Bc 176") != std::string::npos);
  CHECK(h.mapping.find("2-stage, 1 CTAs/SM") != std::string::npos);
  CHECK(h.tflops() > a.tflops() * 2);
  // Decode on H100 takes the split-KV kernel.
  CHECK(h100.run(attention(1, 32, 8, 1, 4096, 128, true)).mapping.find("split-KV") != std::string::npos);
}

TEST_CASE("FlashAttention-2's tiles follow the GPU's shared memory: sm_86 / sm_89 get the 99 KB kernels") {
  // Every head dimension, forward (causal or not) and backward, fits every shipped sm_80+ GPU.
  for (const char* name : {"a100", "a10", "l4", "l40s", "h100"}) {
    const GpuConfig g = test::shipped(name);
    for (int hd : {32, 64, 96, 128, 192, 256})
      for (const bool causal : {false, true})
        for (const Pass pass : {Pass::forward, Pass::data_grad}) {
          CAPTURE(name);
          CAPTURE(hd);
          CAPTURE(causal);
          const AttentionPlan p = plan_attention(g, attention(2, 8, 8, 2048, 2048, hd, causal, pass), false);
          CHECK(p.smem_bytes <= g.max_smem_per_cta);
          CHECK(p.ctas_per_sm >= 1);
        }
  }
  auto plan = [](const char* gpu, std::int64_t hd, bool causal, Pass pass) {
    return plan_attention(test::shipped(gpu), attention(2, 8, 8, 2048, 2048, hd, causal, pass), false);
  };
  // [FA2-bwd] head_dim 128: 64 x 128 with >= 144 KB per CTA (A100), 64 x 64 with V in registers
  // on the A10's 99 KB (80 KB).
  const AttentionPlan a100 = plan("a100", 128, true, Pass::data_grad);
  CHECK(a100.br == 64);
  CHECK(a100.bc == 128);
  CHECK(a100.smem_bytes == 144 * 1024);
  const AttentionPlan a10 = plan("a10", 128, true, Pass::data_grad);
  CHECK(a10.br == 64);
  CHECK(a10.bc == 64);
  CHECK(a10.smem_bytes == 80 * 1024);
  // head_dim 256 on sm_89: 64 x 32, V in registers, Q not double-buffered.
  const AttentionPlan l4 = plan("l4", 256, false, Pass::data_grad);
  CHECK(l4.bc == 32);
  CHECK(l4.stages == 1);
  // [FA2-fwd] head_dim 128 on sm_86 / sm_89: 128 x 32 non-causal, 64 x 64 causal; A100 128 x 64.
  CHECK(plan("a10", 128, false, Pass::forward).bc == 32);
  CHECK(plan("l40s", 128, true, Pass::forward).br == 64);
  CHECK(plan("l40s", 128, true, Pass::forward).bc == 64);
  CHECK(plan("a100", 128, true, Pass::forward).br == 128);
  CHECK(plan("a100", 128, true, Pass::forward).bc == 64);
  // A training step's backward runs on the A10 (it threw "does not fit an SM" before).
  GpuModel model(test::shipped("a10"));
  CHECK(model.run(attention(1, 32, 32, 4096, 4096, 128, true, Pass::data_grad)).time_s > 0);
}

TEST_CASE("the softmax's exp2 on the special-function units costs time") {
  GpuConfig g = test::shipped("a100");
  const Kernel k = attention(4, 32, 32, 4096, 4096, 64, false);
  const double base = GpuModel(g).run(k).time_s;
  g.sfu_lanes_per_subcore = 1;  // a quarter of the MUFU rate
  const KernelResult slow = GpuModel(g).run(k);
  CHECK(slow.time_s > 1.3 * base);
  CHECK(slow.bound == "sfu");
}

TEST_CASE("fused attention needs sm_80+: V100 and T4 reject it") {
  CHECK(fused_attention_supported(test::shipped("a100")));
  CHECK(fused_attention_supported(test::shipped("h100")));
  for (const char* cfg : {"v100", "t4"}) {
    CAPTURE(cfg);
    CHECK_FALSE(fused_attention_supported(test::shipped(cfg)));
    GpuModel model(test::shipped(cfg));
    try {
      model.run(attention(1, 16, 16, 1024, 1024, 64, false));
      FAIL("expected an InputError");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find("sm_80") != std::string::npos);
      CHECK(std::string(e.what()).find("attn") != std::string::npos);
    }
  }
}

TEST_CASE("bad attention shapes and formats are input errors") {
  GpuModel model(test::shipped("a100"));
  CHECK_THROWS_AS(model.run(attention(1, 12, 5, 128, 128, 64, false)), InputError);  // heads % kv_heads
  CHECK_THROWS_AS(model.run(attention(1, 8, 8, 0, 128, 64, false)), InputError);
  CHECK_THROWS_AS(model.run(attention(1, 8, 8, 128, 128, 320, false)), InputError);  // head_dim > 256
  CHECK_THROWS_AS(model.run(attention(1, 8, 8, 128, 128, 64, false, Pass::weight_grad)), InputError);
  Kernel fp8 = attention(1, 8, 8, 128, 128, 64, false);
  fp8.a_format = fp8.b_format = FormatId::e4m3;
  CHECK_THROWS_AS(model.run(fp8), InputError);  // no fp8 FlashAttention on sm_80
  Kernel acc16 = attention(1, 8, 8, 128, 128, 64, false);
  acc16.c_format = FormatId::fp16;
  CHECK_THROWS_AS(model.run(acc16), InputError);
  // fp8 forward is FlashAttention-3's on H100.
  GpuModel h100(test::shipped("h100"));
  CHECK(h100.run(fp8).mapping.find("FlashAttention-3") != std::string::npos);
}

TEST_CASE("attention results are deterministic") {
  const Kernel k = attention(2, 32, 8, 2048, 2048, 128, true);
  GpuModel a(test::shipped("a100"));
  const KernelResult r1 = a.run(k);
  const KernelResult r2 = a.run(k);  // cached SM runs
  GpuModel b(test::shipped("a100"));
  const KernelResult r3 = b.run(k);  // fresh model
  CHECK(r1.cycles == r2.cycles);
  CHECK(r1.cycles == r3.cycles);
  CHECK(r1.mapping == r3.mapping);
}

}  // namespace tcsim::gpu
