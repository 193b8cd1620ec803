#include "workload/measured/vidur.h"

#include <cmath>
#include <filesystem>

#include "common/files/atomic_file.h"
#include "common/error.h"
#include "common/text/strings.h"

namespace tcsim::workload {
namespace {

const char* const kConfigCols[] = {"n_head",        "n_kv_head", "n_embd", "n_expanded_embd", "use_gated_mlp",
                                   "num_tokens", "num_tensor_parallel_workers"};
const char* const kOps[] = {"emb",         "input_layernorm",          "attn_pre_proj", "attn_rope",
                            "attn_post_proj", "post_attention_layernorm", "mlp_up_proj",   "mlp_act",
                            "mlp_down_proj", "add"};

int require(const CsvText& csv, const std::string& name) {
  const int c = csv.column(name);
  if (c < 0) throw InputError(location(csv.file, csv.header_line, name), "missing Vidur column");
  return c;
}

bool parse_bool(const std::string& text, const std::string& file, long line, const std::string& field) {
  const std::string t = to_lower(trim(text));
  if (t == "true" || t == "1") return true;
  if (t == "false" || t == "0") return false;
  throw InputError(location(file, line, field), "expected True or False, got '" + text + "'");
}

struct Layer {
  std::int64_t heads, kv_heads, embd, expanded, tokens, tp, head_dim;
  std::int64_t rotary_dim;  // dimensions of each head the rotary kernel rotates (Vidur: all of them)
  bool gated;
  bool post_attn_norm;  // the file times a post_attention_layernorm (Llama); phi-2's parallel block has none
};

Kernel gemm(const std::string& name, std::int64_t m, std::int64_t n, std::int64_t k) {
  Kernel g = make_gemm(name, m, n, k, FormatId::fp16, FormatId::fp32);
  g.d_format = framework_output_format(g.a_format, g.c_format);  // fp32 accumulation, fp16 output
  g.layout = Layout::NT;  // nn.Linear: y = x W^T
  return g;
}

// fp16 memory kernel: `elements` outputs in rows of `row`, `in`/`out` full-size fp16 tensors
// read/written, `extra_read` further bytes (weights, tables, indices).
Kernel memory(const std::string& name, const char* op, std::int64_t elements, std::int64_t row, int in, int out,
              std::uint64_t extra_read, double flops_per_element) {
  Kernel k;
  k.kind = Kernel::Kind::memory;
  k.name = name;
  k.a_format = k.b_format = k.c_format = k.d_format = FormatId::fp16;
  k.memory = {op, elements, row};
  k.bytes_read = 2 * std::uint64_t(elements) * std::uint64_t(in) + extra_read;
  k.bytes_written = 2 * std::uint64_t(elements) * std::uint64_t(out);
  k.flops_nontensor = flops_per_element * double(elements);
  return k;
}

Kernel op_kernel(const std::string& op, const Layer& l, const std::string& name) {
  const std::int64_t t = l.tokens, e = l.embd, d = l.head_dim;
  if (op == "attn_pre_proj") return gemm(name, t, (l.heads + 2 * l.kv_heads) * d / l.tp, e);
  if (op == "attn_post_proj") return gemm(name, t, e, l.heads * d / l.tp);
  if (op == "mlp_up_proj") return gemm(name, t, (l.gated ? 2 : 1) * l.expanded / l.tp, e);
  if (op == "mlp_down_proj") return gemm(name, t, e, l.expanded / l.tp);
  if (op == "emb") return memory(name, "embedding", t * e, e, 0, 1, 8 * std::uint64_t(t) + 2 * std::uint64_t(t * e), 0);
  if (op == "input_layernorm" || op == "post_attention_layernorm")
    return memory(name, l.gated ? "rms_norm" : "layer_norm", t * e, e, 1, 1, 2 * std::uint64_t(e) * (l.gated ? 1 : 2),
                  l.gated ? 5 : 8);
  if (op == "attn_rope") {
    // q and k heads of this GPU, their first rotary_dim dimensions rotated in place (the rest of
    // each head is not touched); cos/sin rows of rotary_dim per token.
    const std::int64_t rot = l.rotary_dim;
    const std::int64_t row = (l.heads + l.kv_heads) / l.tp * rot;
    Kernel k = memory(name, "rope", t * row, row, 1, 1, 2 * std::uint64_t(t * rot) + 8 * std::uint64_t(t), 3);
    k.memory.rope_query = l.heads / l.tp * rot;  // the kernel's CTA is sized by the query heads' pairs
    return k;
  }
  if (op == "mlp_act") {
    const std::int64_t row = l.expanded / l.tp;
    // Gated: Sarathi's SiluAndMul kernel (a CTA per token); else torch.nn.GELU (erf, PyTorch's
    // elementwise kernel).
    return l.gated ? memory(name, "silu_and_mul", t * row, row, 2, 1, 0, 5)
                   : memory(name, "gelu", t * row, 0, 1, 1, 0, 5);
  }
  // "add": residual + hidden (the down projection's output); without a post-attention norm
  // (phi-2's parallel block) attn + mlp + residual, two elementwise kernels (the H200's
  // kernels.csv names two per call), each adding the tensor the previous kernel wrote to one
  // written before the MLP. Vidur times the layer as a whole, so that older input (the residual;
  // phi-2's attention output) has been evicted from L2 by the layer's weights in between: cold.
  Kernel k = memory(name, "add", t * e, 0, 2, 1, 0, 1);
  k.memory.cold_read_bytes = 2.0 * double(t * e);
  k.count = l.post_attn_norm ? 1 : 2;
  return k;
}

}  // namespace

bool is_vidur_header(const std::vector<std::string>& header) {
  bool tokens = false, stats = false;
  for (const auto& h : header) {
    tokens = tokens || to_lower(h) == "num_tokens";
    stats = stats || (to_lower(h).starts_with("time_stats.") && to_lower(h).ends_with(".median"));
  }
  return tokens && stats;
}

MeasuredSet vidur_from_table(const CsvText& csv) {
  const std::string& f = csv.file;
  int cfg[std::size(kConfigCols)];
  for (std::size_t i = 0; i < std::size(kConfigCols); ++i) cfg[i] = require(csv, kConfigCols[i]);
  // The operators this file has, in column order (phi-2 has no post_attention_layernorm).
  std::vector<std::pair<std::string, int>> ops;
  for (std::size_t c = 0; c < csv.header.size(); ++c) {
    const std::string l = to_lower(csv.header[c]);
    if (!l.starts_with("time_stats.") || !l.ends_with(".median")) continue;
    const std::string op = l.substr(11, l.size() - 11 - 7);
    bool known = false;
    for (const char* k : kOps) known = known || op == k;
    if (!known)
      throw InputError(location(f, csv.header_line, csv.header[c]),
                       "unknown Vidur operator '" + op + "'; expected one of emb, input_layernorm, attn_pre_proj, "
                       "attn_rope, attn_post_proj, post_attention_layernorm, mlp_up_proj, mlp_act, mlp_down_proj, add");
    ops.emplace_back(op, int(c));
  }
  bool post_attn_norm = false;
  for (const auto& [op, col] : ops) post_attn_norm = post_attn_norm || op == "post_attention_layernorm";
  // Optional (not in Vidur's files, whose profiler rotates whole heads: rotary_dim = head_dim):
  // the dimensions per head the rotary kernel rotates, for models with partial rotary embeddings
  // (phi-2: 32 of 80) profiled that way (validation/gpu/vidur_layer.py).
  const int rotary_col = csv.column("rotary_dim");
  std::string model = std::filesystem::path(f).parent_path().filename().string();
  if (model.empty()) model = "vidur";

  MeasuredSet out;
  out.source = f;
  out.schema = "vidur-mlp";
  // Whole microseconds in every sample (each op's min) mean a profiler that truncated each kernel's
  // duration (MeasuredRow::truncated_to_s): Vidur's A100 files; a nanosecond trace has fractions.
  std::vector<int> min_cols;
  for (const auto& [op, col] : ops)
    if (const int c = csv.column("time_stats." + op + ".min"); c >= 0) min_cols.push_back(c);
  bool whole_us = !min_cols.empty() && !csv.rows.empty();
  for (const CsvRow& row : csv.rows)
    for (const int c : min_cols) {
      const std::string text(trim(csv.field(row, c)));
      if (text.empty()) continue;
      const double us = parse_time_seconds(text, 1e-3, "ms", f, row.line, csv.header[std::size_t(c)]) * 1e6;
      whole_us = whole_us && std::abs(us - std::round(us)) < 1e-6;
    }
  const double truncated_to_s = whole_us ? 1e-6 : 0.0;
  for (const CsvRow& row : csv.rows) {
    const long ln = row.line;
    auto dim = [&](int i) { return parse_dimension(csv.field(row, cfg[i]), f, ln, kConfigCols[i]); };
    Layer l{dim(0), dim(1), dim(2), dim(3), dim(5), dim(6), 0, 0, parse_bool(csv.field(row, cfg[4]), f, ln, kConfigCols[4]),
            post_attn_norm};
    if (l.embd % l.heads != 0)
      throw InputError(location(f, ln, "n_embd"), "expected a multiple of n_head (head_dim = n_embd / n_head)");
    l.head_dim = l.embd / l.heads;
    l.rotary_dim = l.head_dim;
    if (rotary_col >= 0 && !trim(csv.field(row, rotary_col)).empty()) {
      l.rotary_dim = parse_dimension(csv.field(row, rotary_col), f, ln, "rotary_dim");
      if (l.rotary_dim > l.head_dim || l.rotary_dim % 2 != 0)
        throw InputError(location(f, ln, "rotary_dim"), "expected an even number of dimensions of at most head_dim (" +
                                                           std::to_string(l.head_dim) + " = n_embd / n_head), got " +
                                                           std::to_string(l.rotary_dim));
    }
    if (l.heads % l.tp != 0 || l.kv_heads % l.tp != 0 || l.expanded % l.tp != 0)
      throw InputError(location(f, ln, "num_tensor_parallel_workers"),
                       "expected n_head, n_kv_head and n_expanded_embd to be divisible by it");
    if (l.heads % l.kv_heads != 0)
      throw InputError(location(f, ln, "n_kv_head"), "expected a divisor of n_head");
    for (const auto& [op, col] : ops) {
      const std::string field = "time_stats." + op + ".median";
      const double time_s = parse_time_seconds(csv.field(row, col), 1e-3, "ms", f, ln, field);
      const std::string name = model + "_" + op + "_t" + std::to_string(l.tokens) + "_tp" + std::to_string(l.tp);
      Kernel k = op_kernel(op, l, name);
      k.profiled = true;  // torch.profiler: CUPTI kernel durations
      out.rows.push_back({std::move(k), time_s, location(f, ln), "vidur " + op, 0, truncated_to_s});
    }
  }
  out.meta.emplace_back("source_format", "Vidur operator profile CSV (torch.profiler GPU time, median, fp16)");
  out.meta.emplace_back("model", model);
  if (whole_us) out.meta.emplace_back("kernel_times", "whole microseconds, truncated per kernel by the profiler");
  return out;
}

MeasuredSet parse_vidur(std::string_view text, const std::string& file_name) {
  const CsvText csv = parse_csv(text, file_name);
  if (!is_vidur_header(csv.header))
    throw InputError(location(file_name, csv.header_line),
                     "not a Vidur profile CSV (expected time_stats.<op>.median and num_tokens columns)");
  return vidur_from_table(csv);
}

MeasuredSet read_vidur(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) throw InputError(file.string(), "file not found");
  return parse_vidur(read_file(file), file.string());
}

}  // namespace tcsim::workload
