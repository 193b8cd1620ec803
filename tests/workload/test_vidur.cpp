// Vidur profile CSVs (workload/measured/vidur.h): every row and operator column to a kernel, the
// tensor-parallel split, norms per model family, errors.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.h"
#include "test_support.h"
#include "workload/measured/measured.h"
#include "workload/measured/vidur.h"

using namespace tcsim;
using namespace tcsim::workload;

namespace {
// Two operators only (the reader takes the ones a file has), then the configuration columns.
std::string csv(const std::string& ops_header, const std::string& rows) {
  return ops_header + ",n_head,n_kv_head,n_embd,n_expanded_embd,vocab_size,use_gated_mlp,num_tokens," +
         "num_tensor_parallel_workers\n" + rows;
}
const std::string kLlamaOps =
    "time_stats.attn_pre_proj.min,time_stats.attn_pre_proj.median,time_stats.mlp_up_proj.median,"
    "time_stats.input_layernorm.median,time_stats.post_attention_layernorm.median,time_stats.mlp_act.median,"
    "time_stats.attn_rope.median,time_stats.emb.median,time_stats.add.median";

std::string error_of(const std::string& text) {
  try {
    parse_vidur(text, "a100/model/mlp.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("vidur: GEMMs with the tensor-parallel split, memory ops per model family") {
  // Llama-3-8B-like: 32 heads, 8 kv heads, 4096, 14336, gated; 256 tokens on 2 GPUs.
  const auto s = parse_vidur(csv(kLlamaOps, "0.1,0.2,0.3,0.01,0.02,0.03,0.04,0.05,0.06,32,8,4096,14336,128256,True,256,2\n"),
                             "a100/Meta-Llama-3-8B/mlp.csv");
  CHECK(s.schema == "vidur-mlp");
  REQUIRE(s.rows.size() == 8);
  const auto& pre = s.rows[0];
  CHECK(pre.group == "vidur attn_pre_proj");
  CHECK(pre.time_s == doctest::Approx(0.2e-3));  // the median, not the min
  CHECK(pre.host_calls == 0);
  CHECK(pre.kernel.kind == Kernel::Kind::gemm);
  CHECK(pre.kernel.m == 256);
  CHECK(pre.kernel.n == (32 + 2 * 8) * 128 / 2);
  CHECK(pre.kernel.k == 4096);
  CHECK(pre.kernel.a_format == FormatId::fp16);
  CHECK(pre.kernel.layout == Layout::NT);
  CHECK(pre.kernel.name == "Meta-Llama-3-8B_attn_pre_proj_t256_tp2");
  const Kernel& up = s.rows[1].kernel;
  CHECK(up.n == 2 * 14336 / 2);  // gate and up fused
  const Kernel& norm = s.rows[2].kernel;
  CHECK(norm.kind == Kernel::Kind::memory);
  CHECK(norm.memory.op == "rms_norm");
  CHECK(norm.memory.elements == 256 * 4096);
  CHECK(norm.memory.row_length == 4096);
  CHECK(norm.a_format == FormatId::fp16);
  const Kernel& act = s.rows[4].kernel;
  CHECK(act.memory.op == "silu_and_mul");
  CHECK(act.memory.row_length == 14336 / 2);
  CHECK(act.bytes_read == 2u * 2u * 256u * 7168u);
  CHECK(act.bytes_written == 2u * 256u * 7168u);
  const Kernel& rope = s.rows[5].kernel;
  CHECK(rope.memory.op == "rope");
  CHECK(rope.memory.row_length == (32 + 8) / 2 * 128);
  CHECK(rope.memory.rope_query == 32 / 2 * 128);  // the query heads size the kernel's CTA
  CHECK(s.rows[6].kernel.memory.op == "embedding");
  const Kernel& add = s.rows[7].kernel;
  CHECK(add.memory.op == "add");
  CHECK(add.bytes_read == 2u * 2u * 256u * 4096u);
  CHECK(add.memory.cold_read_bytes == 2.0 * 256 * 4096);  // the residual: written before the MLP's weights streamed
  CHECK(add.count == 1);
}

TEST_CASE("vidur: without a post-attention norm (phi-2) norms are LayerNorm, the add is two adds") {
  const auto s = parse_vidur(csv("time_stats.input_layernorm.median,time_stats.add.median,time_stats.mlp_act.median",
                                 "0.01,0.02,0.03,32,32,2560,10240,51200,False,8,1\n"),
                             "phi-2/mlp.csv");
  REQUIRE(s.rows.size() == 3);
  CHECK(s.rows[0].kernel.memory.op == "layer_norm");
  // Two elementwise kernels (attn + mlp, then + residual), each with one input from before the MLP.
  CHECK(s.rows[1].kernel.count == 2);
  CHECK(s.rows[1].kernel.bytes_read == 2u * 2u * 8u * 2560u);
  CHECK(s.rows[1].kernel.memory.cold_read_bytes == 2.0 * 8 * 2560);
  CHECK(s.rows[2].kernel.memory.op == "gelu");
}

TEST_CASE("vidur: bad rows name file, line and column") {
  const std::string ops = "time_stats.add.median";
  CHECK(error_of(csv(ops, "0.01,32,8,4096,14336,1,True,8,3\n")).find("mlp.csv:2: num_tensor_parallel_workers") !=
        std::string::npos);
  CHECK(error_of(csv(ops, "0.01,32,8,4096,14336,1,maybe,8,1\n")).find("mlp.csv:2: use_gated_mlp") != std::string::npos);
  CHECK(error_of(csv(ops, "-1,32,8,4096,14336,1,True,8,1\n")).find("mlp.csv:2: time_stats.add.median") !=
        std::string::npos);
  CHECK(error_of(csv(ops, "0.01,30,8,4096,14336,1,True,8,1\n")).find("mlp.csv:2: n_embd") != std::string::npos);
  CHECK(error_of(csv("time_stats.attention.median", "0.01,32,8,4096,14336,1,True,8,1\n"))
            .find("mlp.csv:1: time_stats.attention.median") != std::string::npos);
  CHECK(error_of("time_stats.add.median,num_tokens\n0.1,8\n").find("mlp.csv:1: n_head") != std::string::npos);
}

TEST_CASE("vidur: read_measured detects the format by header") {
  const auto dir = tcsim::test::temp_dir("vidur") / "phi-2";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "mlp.csv") << csv("time_stats.add.median", "0.01,32,32,2560,10240,51200,False,8,1\n");
  const MeasuredSet s = read_measured(dir / "mlp.csv");
  CHECK(s.schema == "vidur-mlp");
  REQUIRE(s.rows.size() == 1);
  CHECK(s.rows[0].kernel.name == "phi-2_add_t8_tp1");
}

TEST_CASE("vidur: whole-microsecond samples mark durations the profiler truncated") {
  // Each op's min is one sample: all whole microseconds (Vidur's A100 files, PyTorch's profiler
  // before nanosecond traces) mark every row; one fraction anywhere, or no min column, none.
  const std::string whole = "0.012,0.0125,0.3,0.01,0.02,0.03,0.04,0.05,0.06,32,8,4096,14336,128256,True,256,2\n"
                            "0.004,0.0045,0.3,0.01,0.02,0.03,0.04,0.05,0.06,32,8,4096,14336,128256,True,8,2\n";
  const auto s = parse_vidur(csv(kLlamaOps, whole), "a100/model/mlp.csv");
  REQUIRE(s.rows.size() == 16);  // eight operators, two rows
  for (const auto& r : s.rows) CHECK(r.truncated_to_s == 1e-6);
  bool noted = false;
  for (const auto& [key, value] : s.meta) noted = noted || key == "kernel_times";
  CHECK(noted);
  const std::string fraction = "0.0123,0.0125,0.3,0.01,0.02,0.03,0.04,0.05,0.06,32,8,4096,14336,128256,True,256,2\n"
                               "0.004,0.0045,0.3,0.01,0.02,0.03,0.04,0.05,0.06,32,8,4096,14336,128256,True,8,2\n";
  for (const auto& r : parse_vidur(csv(kLlamaOps, fraction), "h200/model/mlp.csv").rows) CHECK(r.truncated_to_s == 0);
  const std::string medians_only =
      "time_stats.attn_pre_proj.median,time_stats.add.median";
  for (const auto& r : parse_vidur(csv(medians_only, "0.012,0.002,32,8,4096,14336,128256,True,256,2\n"), "m/mlp.csv").rows)
    CHECK(r.truncated_to_s == 0);
}

TEST_CASE("vidur: an optional rotary_dim column rotates part of each head (partial rotary embeddings)") {
  // phi-2: heads of 80, 32 of them rotated (validation/gpu/vidur_layer.py writes the column; Vidur's
  // own files have none and rotate whole heads).
  const std::string header = "time_stats.attn_rope.median,n_head,n_kv_head,n_embd,n_expanded_embd,vocab_size,"
                             "use_gated_mlp,num_tokens,num_tensor_parallel_workers,rotary_dim\n";
  const auto partial = parse_vidur(header + "0.01,32,32,2560,10240,51200,False,64,1,32\n", "h200/phi-2/mlp.csv");
  REQUIRE(partial.rows.size() == 1);
  const Kernel& rope = partial.rows[0].kernel;
  CHECK(rope.memory.row_length == (32 + 32) * 32);
  CHECK(rope.memory.rope_query == 32 * 32);
  CHECK(rope.bytes_read == 2u * 64u * 64u * 32u + 2u * 64u * 32u + 8u * 64u);  // q and k parts, cos/sin, positions
  CHECK(rope.bytes_written == 2u * 64u * 64u * 32u);
  // An empty cell, or no column, rotates the whole head.
  const auto whole = parse_vidur(header + "0.01,32,32,2560,10240,51200,False,64,1,\n", "h200/phi-2/mlp.csv");
  CHECK(whole.rows[0].kernel.memory.row_length == (32 + 32) * 80);
  CHECK(parse_vidur(csv("time_stats.attn_rope.median", "0.01,32,32,2560,10240,51200,False,64,1\n"), "phi-2/mlp.csv")
            .rows[0]
            .kernel.memory.rope_query == 32 * 80);
  // More than the head, or odd: an error naming the column.
  CHECK(error_of(header + "0.01,32,32,2560,10240,51200,False,64,1,96\n").find("mlp.csv:2: rotary_dim") !=
        std::string::npos);
  CHECK(error_of(header + "0.01,32,32,2560,10240,51200,False,64,1,31\n").find("even number") != std::string::npos);
  CHECK(error_of(header + "0.01,32,32,2560,10240,51200,False,64,1,x\n").find("mlp.csv:2: rotary_dim") !=
        std::string::npos);
}
