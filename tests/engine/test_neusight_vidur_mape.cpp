// Memory-bound kernels against measured PyTorch ops (skipped without shared/): NeuSight's FP32
// elementwise, softmax and layer-norm kernels on V100 PCIe and A100 PCIe (timed around the op
// call: host overhead included), and Vidur's fp16 memory operators (embedding, norms, rope,
// activation, residual add) and projections on A100 80GB PCIe (GPU time).
// The bounds are the MAPE reached today (sim/gpu/README.md, "Memory-bound kernels"), a little
// above; the project's target is 15% per family. Each host's parameters were fitted on its own
// direct torch calls (add, mul, div, pow, tanh); the other ops, softmax and layer norm are checks.
#include <doctest/doctest.h>

#include <filesystem>

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "engine/validation/validation.h"
#include "gpu/gpu_model.h"
#include "../gpu/gpu_test_util.h"
#include "workload/measured/measured.h"

using namespace tcsim;

namespace {

const char* const kVectorOps[] = {"add", "mul", "div", "pow", "addu", "mulu", "divu", "powu",
                                  "relu", "gelu", "tanh", "softmax", "ln"};

double group_mape(const engine::ValidationReport& rep, const std::string& group) {
  for (const auto& g : rep.groups)
    if (g.group == group) return g.errors.mape_pct;
  FAIL("no group " << group);
  return 0;
}

engine::ValidationReport neusight(const std::filesystem::path& dir, const std::string& gpu_dir,
                                  const std::string& config) {
  std::vector<workload::MeasuredRow> rows;
  for (const char* op : kVectorOps) {
    auto s = workload::read_measured(dir / gpu_dir / (std::string(op) + ".csv"));
    rows.insert(rows.end(), s.rows.begin(), s.rows.end());
  }
  const gpu::GpuModel model(gpu::test::shipped(config));
  return engine::validate(model, rows, 2);
}

// The rows of Vidur's three profiled models that `keep` accepts.
template <class Keep>
std::vector<workload::MeasuredRow> vidur_rows(const std::filesystem::path& shared, Keep keep) {
  std::vector<workload::MeasuredRow> rows;
  for (const char* model : {"Llama-2-7b-hf", "Meta-Llama-3-8B", "phi-2"}) {
    const auto s = workload::read_measured(shared / "data" / "vidur" / "a100" / model / "mlp.csv");
    for (const auto& r : s.rows)
      if (keep(r)) rows.push_back(r);
  }
  return rows;
}

// The rows of one kind (memory or gemm) of the Vidur-style profile measured on the lent H200
// (validation/measured/H200/vidur_layer, in the repository).
std::vector<workload::MeasuredRow> h200_vidur_rows(Kernel::Kind kind) {
  std::vector<workload::MeasuredRow> rows;
  for (const char* model : {"Llama-2-7b-hf", "Meta-Llama-3-8B", "phi-2"}) {
    const auto s = workload::read_measured(tcsim::test::source_dir() / "validation" / "measured" / "H200" /
                                           "vidur_layer" / model / "mlp.csv");
    for (const auto& r : s.rows)
      if (r.kernel.kind == kind) rows.push_back(r);
  }
  return rows;
}

// Vidur's rows validated on the board they were measured on, the 300 W A100 80GB PCIe
// (configs/gpu/README.md, "Which board a measured set ran on").
engine::ValidationReport vidur_report(const std::vector<workload::MeasuredRow>& rows) {
  const gpu::GpuModel model(gpu::test::shipped("a100_80gb_pcie"));
  auto rep = engine::validate(model, rows, 2);
  CHECK(rep.skipped == 0);
  return rep;
}

// "label: a 1.23%, b 4.56%": the MAPE of each (short name, group) for a test's message.
std::string group_mapes(const engine::ValidationReport& rep, const std::string& label,
                        std::initializer_list<std::pair<const char*, const char*>> groups) {
  std::string out = label + ":";
  char buf[64];
  for (const auto& [name, group] : groups) {
    std::snprintf(buf, sizeof buf, " %s %.2f%%,", name, group_mape(rep, group));
    out += buf;
  }
  out.pop_back();
  return out;
}

}  // namespace

TEST_CASE("NeuSight vector ops: MAPE per family on V100 PCIe and A100 PCIe" * doctest::test_suite("accuracy")) {
  const auto shared = tcsim::test::shared_dir();
  if (shared.empty()) {
    MESSAGE("shared/ not found: NeuSight MAPE test skipped");
    return;
  }
  const auto dir = shared / "data" / "neusight" / "kernels";
  const auto v100 = neusight(dir, "V100-PCIE-32GB", "v100_pcie");
  const auto a100 = neusight(dir, "A100-PCIE-40GB", "a100_pcie_40gb");
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "NeuSight MAPE V100: elementwise %.2f%%, softmax %.2f%%, layer norm %.2f%%; A100: %.2f%%, %.2f%%, %.2f%%",
                group_mape(v100, "elementwise fp32"), group_mape(v100, "softmax fp32"),
                group_mape(v100, "layer_norm fp32"), group_mape(a100, "elementwise fp32"),
                group_mape(a100, "softmax fp32"), group_mape(a100, "layer_norm fp32"));
  MESSAGE(buf);
  CHECK(v100.skipped == 0);
  // Before the lockstep phases of barrier kernels and the A100 host's own overhead: 1.34, 7.97,
  // 5.59; 16.36, 21.52, 20.07.
  CHECK(group_mape(v100, "elementwise fp32") <= 2.0);  // 1.34
  CHECK(group_mape(v100, "softmax fp32") <= 3.5);      // 2.60
  // Layer norm since its per-row Welford reductions are counted (Nsight Compute on the H200), at
  // the issue rate: V100 3.69 -> 5.10 (short rows now slow), A100 10.00 -> 5.70.
  CHECK(group_mape(v100, "layer_norm fp32") <= 6.0);   // 5.10
  CHECK(group_mape(a100, "elementwise fp32") <= 4.5);  // 3.59
  CHECK(group_mape(a100, "softmax fp32") <= 8.0);      // 6.85
  CHECK(group_mape(a100, "layer_norm fp32") <= 7.0);   // 5.70
}

TEST_CASE("Vidur memory operators (Sarathi/vLLM and PyTorch kernels, fp16) on A100 80GB PCIe") {
  const auto shared = tcsim::test::shared_dir();
  if (shared.empty()) {
    MESSAGE("shared/ not found: Vidur MAPE test skipped");
    return;
  }
  const auto rows = vidur_rows(shared, [](const workload::MeasuredRow& r) {
    return r.kernel.kind == Kernel::Kind::memory && r.group != "vidur add";
  });
  const auto rep = vidur_report(rows);
  MESSAGE(group_mapes(rep, "Vidur MAPE", {{"emb", "vidur emb"}, {"input norm", "vidur input_layernorm"},
                                          {"post norm", "vidur post_attention_layernorm"},
                                          {"rope", "vidur attn_rope"}, {"mlp_act", "vidur mlp_act"}}));
  // Today's figures (sim/gpu/README.md, "Memory-bound kernels"), short of the 10% target.
  // Norms before the lockstep phases of barrier kernels: 24.91, 24.83.
  // Since the A100's instruction energy is calibrated (672 pJ: configs/gpu/a100.yaml) the 400 W
  // board no longer slows the larger of these kernels, and the under-prediction shows: emb 29.64 ->
  // 30.44, input norm 18.22 -> 18.53, mlp_act 16.25 -> 17.63.
  // Since a lone warp waits sm.ffma_latency between dependent instructions (Nsight Compute, one
  // row of layer norm on the H200): emb 30.44 -> 14.99 (index_select's 128-thread CTAs), input
  // norm 18.53 -> 17.45 (phi-2's fp16 layer norm count: 19.3 -> 15.2 on its rows), post norm
  // 20.56 -> 20.11, rope 24.47 -> 25.09 (already over-predicted: +20%), mlp_act 17.63 -> 17.44.
  // On the A100 80GB PCIe, the board Vidur profiled on (configs/gpu/README.md, "Which board"; the
  // figures above are the SXM config's): emb 14.99, norms 16.85 / 19.74, rope 24.97, mlp_act 15.71.
  // Since the rotary kernel's CTA is sized by the query heads and its cos/sin loads share a trip
  // with each (x, y) pair (Sarathi's pos_encoding_kernels.cu): rope 24.97 -> 23.97.
  // Since the loop kernels' instructions are counted in their SASS (scripts/sass_loops.py: the
  // compiler hoists a runtime divisor's reciprocal out of the loop), index_select 82 -> 100 per
  // element, rope 84 -> 64 per pair, rms_norm 30 -> 27, silu_and_mul 49 -> 47: emb 14.99 -> 8.46
  // (its large rows were issue-bound and fast), rope 23.97 -> 20.56, and what the higher PTX counts
  // hid: norms 16.85 / 19.74 -> 18.85 / 21.87 (their large rows, -21..-27%), mlp_act 15.71 -> 16.70.
  // Since a scalar loop's trip waits for the SM's burst of reads (MemoryLaunch::scalar_loop,
  // measured on the H200: validation/measured/H200/row_probe): emb 8.46 -> 6.15, norms 18.85 /
  // 21.87 -> 11.77 / 13.35, rope 20.56 -> 19.90, mlp_act 16.70 -> 14.03.
  // Since the rows are compared as Vidur's profiler reports them, each kernel's duration cut to
  // whole microseconds (MeasuredRow::truncated_to_s): emb 6.15 -> 5.37, norms 11.77 / 13.35 -> 11.47 /
  // 12.91, rope 19.90 -> 17.04, mlp_act 14.03 -> 12.35. Since Sarathi's RMS norm counts its
  // reduction and set-up (169.7 instructions per thread, Nsight Compute on the H200): norms 10.47 / 11.92.
  // Since the rotary kernel counts its set-up (63 instructions per thread per row beyond its loops,
  // Nsight Compute on the H200): rope 17.04 -> 15.83. Since a CTA with barriers issues its warps'
  // work after each trip (Nsight Compute, a lone rms_norm_kernel CTA): norms 9.46 / 9.76, the 10% target.
  // Since PyTorch's erf GELU counts its SASS by pipe (Nsight Compute on the H200: 14 FP32, 11.5
  // integer/logic, 4.1 issue-only instructions per element, where the PTX count had 32 FP32 lane
  // instructions): mlp_act 12.35 -> 10.78 (phi-2's rows from 512 tokens: +22..+29% -> +3..+11%).
  // Since a profiled kernel after a different one costs the empty kernel's duration and a DRAM trip
  // instead of the launch (Kernel::profiled; 1.82 + 0.40 us here against 3.55): emb 5.37 -> 5.98,
  // norms 9.46 / 9.76 -> 8.81 / 8.80, rope 15.83 -> 11.30, mlp_act 10.78 -> 7.74 (add 16.01 -> 8.36).
  // Since a barrier-free loop's warps queue for their sub-core's issue slots (exact MVA,
  // gpu/memory/warp_queue.h; the trip was max(round's issue, latency + own share)): rope 11.30 ->
  // 9.48 (Llama-3 from 8192 tokens -18.9 -> -13.7%), mlp_act 7.74 -> 7.39, emb 5.98 -> 8.08
  // (index_select's 1024-8192-token rows -0.5 -> +10%); the norms (barrier kernels) unchanged.
  CHECK(group_mape(rep, "vidur emb") <= 8.75);                       // 8.08
  CHECK(group_mape(rep, "vidur input_layernorm") <= 9.5);            // 8.81
  CHECK(group_mape(rep, "vidur post_attention_layernorm") <= 9.5);   // 8.80
  CHECK(group_mape(rep, "vidur attn_rope") <= 10.0);                 // 9.48, the 10% target
  CHECK(group_mape(rep, "vidur mlp_act") <= 8.0);                    // 7.39
}

TEST_CASE("Vidur's operator profile measured on the H200 (in the repository, held out)") {
  // validation/measured/H200/vidur_layer: the same ten ops of the same three models, timed as Vidur
  // times them, through PyTorch 2.11 and Sarathi's three kernels restated (validation/gpu).
  const auto rows = h200_vidur_rows(Kernel::Kind::memory);
  REQUIRE(rows.size() == 117 * 5 + 104);
  const gpu::GpuModel model(gpu::test::shipped("h200"));
  const auto rep = engine::validate(model, rows, 2);
  CHECK(rep.skipped == 0);
  MESSAGE(group_mapes(rep, "H200 Vidur-style MAPE",
                      {{"emb", "vidur emb"}, {"input norm", "vidur input_layernorm"},
                       {"post norm", "vidur post_attention_layernorm"}, {"rope", "vidur attn_rope"},
                       {"mlp_act", "vidur mlp_act"}, {"add", "vidur add"}}));
  // Before the scalar loops' bursts: norms 23.63 / 20.31, rope 20.67, mlp_act 25.50. Before Sarathi's
  // RMS norm counted its reduction and set-up (Nsight Compute, this set's ncu_llm_layer): 19.70 / 15.87.
  // Nanosecond durations here: not truncated, the comparison is the model's time.
  // Since a profiled kernel after a different one costs the empty kernel's duration (0.90 us) and a
  // DRAM trip instead of the 1.64 us launch: emb 8.89 -> 11.18 and input norm 10.43 -> 15.68 (their
  // one-CTA kernels are short in the model: Nsight Compute's lone Sarathi CTAs run 4700-7360
  // cycles where the model has 3278-5489, sim/gpu/README.md), post norm 11.49 -> 11.30, rope
  // 18.29 -> 16.29, mlp_act 22.74 -> 16.12, add 29.94 -> 16.45; all ten ops 13.72 -> 12.23%.
  // Since a barrier-free loop's warps queue for the issue slots (warp_queue.h): rope 16.29 -> 15.21,
  // mlp_act 16.12 -> 14.65; all ten ops 12.23 -> 11.97%. Since the files' rotary_dim column has
  // phi-2 rotate the 32 of 80 dimensions that run rotated (its rows were +17..+61%): rope 15.21 -> 11.76.
  CHECK(group_mape(rep, "vidur emb") <= 12.0);                        // 11.18 (8.89 with the launch, 14.74 with the rows and writes from L2)
  // Since a norm's second pass waits for its weight from L2 in the SM's first round of CTAs
  // (MemoryLaunch::reread_loads_parameters): input norm 15.68 -> 9.04, post norm 11.30 -> 12.80. The
  // same kernel at the same shape measures 2.8-3.0 us in some of these runs and 3.6-3.8 us in others
  // (Llama-2 post norm, 1 token: 3.78 at TP 1, 2.91 at TP 8); the model went from 3.1 to 3.6 us.
  CHECK(group_mape(rep, "vidur input_layernorm") <= 10.0);            // 9.04 (15.68, 10.43 with the launch)
  CHECK(group_mape(rep, "vidur post_attention_layernorm") <= 13.5);   // 12.80 (11.30, 11.49)
  CHECK(group_mape(rep, "vidur attn_rope") <= 12.5);                  // 11.76 (15.21, 16.29, 18.29)
  CHECK(group_mape(rep, "vidur mlp_act") <= 15.5);                    // 14.65 (16.12, 22.74)
  CHECK(group_mape(rep, "vidur add") <= 17.5);                        // 16.45 (29.94)
}

TEST_CASE("H200 Vidur-style projections: decode GEMMs of 2-7 tokens run cuBLAS's TMA kernels (held out)") {
  // validation/measured/H200/vidur_layer: PyTorch 2.11's cuBLAS runs nvjet_sm90_hsh_*x8 kernels (wgmma,
  // TMA) for 1-8 tokens, whose strides (K, N) are 16-byte aligned although M is not; the model ran
  // them as sm_80 mma.sync kernels until the alignment rule looked at strides, not extents.
  const auto rows = h200_vidur_rows(Kernel::Kind::gemm);
  REQUIRE(rows.size() == 117 * 4);
  const gpu::GpuModel model(gpu::test::shipped("h200"));
  const auto rep = engine::validate(model, rows, 2);
  CHECK(rep.skipped == 0);
  MESSAGE(group_mapes(rep, "H200 Vidur-style projections MAPE",
                      {{"pre", "vidur attn_pre_proj"}, {"post", "vidur attn_post_proj"},
                       {"up", "vidur mlp_up_proj"}, {"down", "vidur mlp_down_proj"}}));
  // With the extents rule: 18.73 / 16.87 / 18.47 / 16.05, the 2- and 4-token rows +40..+97%.
  CHECK(group_mape(rep, "vidur attn_pre_proj") <= 11.5);   // 11.01
  CHECK(group_mape(rep, "vidur attn_post_proj") <= 9.0);   // 8.41
  CHECK(group_mape(rep, "vidur mlp_up_proj") <= 8.0);      // 7.65
  CHECK(group_mape(rep, "vidur mlp_down_proj") <= 8.5);    // 8.10
  double sum = 0;
  int n = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::int64_t tokens = rows[i].kernel.m;
    if (tokens < 2 || tokens > 7) continue;
    const double predicted = rep.rows[i].predicted_s(), measured = rows[i].time_s;
    sum += std::abs(predicted / measured - 1);
    ++n;
  }
  REQUIRE(n == 72);
  CHECK(100 * sum / n <= 8.0);  // 6.34 (63.1 with the extents rule)
}

TEST_CASE("NeuSight FP32 convolutions (cuDNN 8.9 benchmark mode) on V100 PCIe and A100 80GB PCIe" * doctest::test_suite("accuracy")) {
  const auto shared = tcsim::test::shared_dir();
  if (shared.empty()) {
    MESSAGE("shared/ not found: NeuSight conv MAPE test skipped");
    return;
  }
  const auto dir = shared / "data" / "neusight" / "kernels";
#ifdef TCSIM_SANITIZED
  const std::size_t stride = 16;  // a sample: the sanitizer build only checks that the path runs cleanly
#else
  const std::size_t stride = 1;
#endif
  auto conv = [&](const std::string& gpu_dir, const std::string& config) {
    const auto s = workload::read_measured(dir / gpu_dir / "conv.csv");
    std::vector<workload::MeasuredRow> rows;
    for (std::size_t i = 0; i < s.rows.size(); i += stride) rows.push_back(s.rows[i]);
    const gpu::GpuModel model(gpu::test::shipped(config));
    return engine::validate(model, rows, 2);
  };
  const auto v100 = conv("V100-PCIE-32GB", "v100_pcie");
  const auto a100 = conv("A100-80GB-PCIe", "a100_80gb_pcie");
  char buf[200];
  std::snprintf(buf, sizeof buf, "NeuSight conv MAPE / bias: V100 PCIe %.2f%% / %+.2f%%, A100 80GB PCIe %.2f%% / %+.2f%%",
                v100.overall().errors.mape_pct, v100.overall().errors.bias_pct, a100.overall().errors.mape_pct, a100.overall().errors.bias_pct);
  MESSAGE(buf);
  // Today's figures (sim/gpu/README.md, "Convolutions": 9.66% and 14.97%, the A100 with cuDNN's SIMT
  // kernels staged through registers and the calibrated A100 instruction energy); target 15%. Before the
  // cuDNN 8 lowerings, benchmark mode and the conv host calibration: 32.87%, 48.23%; before PyTorch
  // 2.1's plan-cache walk (workload/measured/neusight.cpp; one constant host cost per row): 15.14%, 20.27%.
  // The host calibration was fitted on the V100 rows; A100 is out of sample.
#ifndef TCSIM_SANITIZED
  CHECK(v100.overall().errors.mape_pct <= 10.0);
  CHECK(a100.overall().errors.mape_pct <= 15.25);
#endif
}

TEST_CASE("Vidur residual add (PyTorch's elementwise kernel, fp16) on A100 80GB PCIe") {
  const auto shared = tcsim::test::shared_dir();
  if (shared.empty()) {
    MESSAGE("shared/ not found: Vidur MAPE test skipped");
    return;
  }
  const auto rows = vidur_rows(shared, [](const workload::MeasuredRow& r) { return r.group == "vidur add"; });
  REQUIRE(rows.size() == 3129);
  const auto rep = vidur_report(rows);
  const double mape = rep.overall().errors.mape_pct;  // one group: only "all"
  MESSAGE("Vidur add MAPE " << mape << "%");
  // 18.44 compared untruncated (SXM config 17.74): tiny kernels measure 2 us (2-3 us before the
  // profiler's truncation), the model says launch + one trip. 18.22 compared truncated. Since the
  // residual comes from DRAM and the writes go there (Vidur times the layer as a whole: the MLP's
  // weights evicted the residual; MemoryShape::cold_read_bytes), and phi-2's add is two kernels:
  // 16.01 (512-1023 tokens -30 -> +17%, 1024-2047 +4 -> -10%; the 1-127-token rows stay +55..+100%,
  // the 3.55 us launch against ~2 us measured).
  CHECK(mape <= 16.5);  // 16.01
}

TEST_CASE("Vidur projections (cuBLAS fp16 GEMMs, 1-4096 tokens, TP 1-8) on A100 80GB PCIe: the 10% target per operator" * doctest::test_suite("accuracy")) {
  const auto shared = tcsim::test::shared_dir();
  if (shared.empty()) {
    MESSAGE("shared/ not found: Vidur projection MAPE test skipped");
    return;
  }
#ifdef TCSIM_SANITIZED
  // A sample: the sanitizer build only checks that the path runs cleanly. Each profile row gives the
  // four projections in turn, so the stride is prime to 4 and the sample holds all four groups.
  const std::size_t stride = 61;
#else
  const std::size_t stride = 1;
#endif
  const auto all = vidur_rows(shared, [](const workload::MeasuredRow& r) { return r.kernel.kind == Kernel::Kind::gemm; });
  REQUIRE(all.size() == 4 * 3129);
  std::vector<workload::MeasuredRow> rows;
  for (std::size_t i = 0; i < all.size(); i += stride) rows.push_back(all[i]);
  const auto rep = vidur_report(rows);
  MESSAGE(group_mapes(rep, "Vidur projections MAPE", {{"pre", "vidur attn_pre_proj"}, {"post", "vidur attn_post_proj"},
                                                      {"up", "vidur mlp_up_proj"}, {"down", "vidur mlp_down_proj"}}));
  // Vidur's A100 profiles come from a 300 W A100 80GB PCIe (configs/gpu/README.md, "Which board"):
  // on the 400 W SXM config the same rows give 13.40 / 13.10 / 14.91 / 10.98 (bias -10..-15%: the
  // compute-bound rows run at 217-236 TFLOP/s measured, the SXM4 board's LLMCompass GEMMs at 287-293).
  // Compared as the profiler truncated them (half a microsecond less per kernel: the model's -8..-9%
  // bias grows), 9.50 / 8.71 / 9.95 / 7.21 became 9.73 / 9.34 / 10.09 / 7.35: mlp_up_proj misses the
  // 10% target by 0.09 point (its compute-bound rows: -10% at 2048-16384 tokens). Since the A100's
  // tensor-core energy is calibrated to SC'25's 1350 MHz at TDP (configs/gpu/a100.yaml; Vidur held
  // out) the compute-bound rows are -4.9% and the four 7.64 / 6.32 / 7.19 / 6.42. Since the GEMMs
  // store fp16 outputs (2 bytes, not fp32's 4: sim/workload/README.md, "What a GEMM stores"; the
  // output-bound torch.mm calls of the H100 went 17.0 -> 6.5%) the model is faster on the
  // memory-bound rows: 7.86 / 7.64 / 7.48 / 6.45.
#ifndef TCSIM_SANITIZED
  CHECK(group_mape(rep, "vidur attn_pre_proj") <= 8.25);   // 7.86 (9.73)
  CHECK(group_mape(rep, "vidur attn_post_proj") <= 8.0);   // 7.64 (9.34)
  CHECK(group_mape(rep, "vidur mlp_up_proj") <= 7.75);     // 7.48 (10.09)
  CHECK(group_mape(rep, "vidur mlp_down_proj") <= 7.0);    // 6.45 (7.35)
#endif
}
