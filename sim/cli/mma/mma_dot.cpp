// tcsim mma dot: one dot product d = c + sum_k a_k*b_k with the bit-exact rules of each
// architecture, side by side, so the reason two GPUs disagree (F, L, rounding) is in view.
#include <Eigen/Core>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli/mma/mma_common.h"
#include "cli/verbs.h"
#include "common/error.h"
#include "numerics/gemm/gemm.h"
#include "numerics/mma/mma.h"

namespace po = boost::program_options;

namespace tcsim::cli::mma {
namespace {

struct DotRow {
  num::Arch arch = num::Arch::sm80;
  const num::Instruction* ins = nullptr;
  std::string unavailable;  // why there is no instruction (only with several architectures)
  num::Bits d = 0;
  std::vector<num::Bits> block_results;  // --blocks: the accumulator after every block
};

num::Tf32Feed parse_tf32_feed(const std::string& s) {
  if (s == "truncate" || s == "rz") return num::Tf32Feed::truncate;
  if (s == "rna") return num::Tf32Feed::rna;
  if (s == "rne") return num::Tf32Feed::rne;
  throw InputError("--tf32-feed", "expected truncate (the hardware's raw feed), rna or rne, got '" + s + "'");
}

// The operand as it reaches the tensor core (tf32: fed from fp32 bits with the chosen rule).
num::Bits feed(num::Bits x, FormatId f, num::Tf32Feed how) {
  if (f != FormatId::tf32) return x;
  if (how == num::Tf32Feed::truncate) return num::tf32_truncate(static_cast<std::uint32_t>(x));
  num::ConvertOptions o;
  o.rounding = how == num::Tf32Feed::rna ? num::Rounding::rna : num::Rounding::rne;
  return num::convert(x, FormatId::fp32, FormatId::tf32, o);
}

// The block-by-block accumulator, for floating-point T-FDPA instructions (--blocks).
std::vector<num::Bits> trace_blocks(const num::Instruction& ins, std::vector<num::Bits> a, std::vector<num::Bits> b,
                                    num::Bits c, const num::MmaOptions& opt) {
  std::vector<num::Bits> out;
  if (ins.out_mode == num::OutMode::int32_exact || ins.out_mode == num::OutMode::fp64_fma || ins.L <= 0 ||
      ins.lowering != num::Lowering::none)
    return out;
  std::size_t padded = (a.size() + static_cast<std::size_t>(ins.k) - 1) / static_cast<std::size_t>(ins.k) *
                       static_cast<std::size_t>(ins.k);
  a.resize(padded, 0);
  b.resize(padded, 0);
  for (auto& x : a) x = feed(x, ins.a_fmt, opt.tf32_feed);
  for (auto& x : b) x = feed(x, ins.b_fmt, opt.tf32_feed);
  num::FdpaParams p = num::fdpa_params(ins, opt);
  for (std::size_t off = 0; off < padded; off += static_cast<std::size_t>(ins.L)) {
    c = num::tfdpa_block(p, a.data() + off, b.data() + off, ins.L, c);
    out.push_back(c);
  }
  return out;
}

std::string rounding_text(const num::Instruction& ins) {
  switch (ins.out_mode) {
    case num::OutMode::rz_fp32: return "RZ fp32";
    case num::OutMode::rz_e8m13: return "RZ e8m13";
    case num::OutMode::rne_fp16: return "RNE fp16";
    case num::OutMode::rz_fp32_rne_fp16: return "RZ fp32, RNE fp16";
    case num::OutMode::int32_exact: return "exact s32";
    case num::OutMode::fp64_fma: return "fp64 FMA";
  }
  return "?";
}

}  // namespace

int run_dot(const std::vector<std::string>& args) {
  std::string a_text, b_text, c_text = "0", arch_text = "all", instr, in_text = "fp16", in_b_text, acc_text = "fp32",
                      feed_text = "truncate", fp8_f16_text = "model";
  bool saturate = false, blocks = false;
  po::options_description opts("Options");
  opts.add_options()
      ("a", po::value(&a_text)->required(), "A row: comma-separated values (1.5, 2^-9, 3*2^-16, 0x1p-9, inf, nan) or hex bit patterns of the input format (0x3c00); VALUExN repeats a value N times")
      ("b", po::value(&b_text)->required(), "B column, same syntax and length as --a")
      ("c", po::value(&c_text), "accumulator input in the --acc format (default 0)")
      ("arch", po::value(&arch_text), "all (default: every architecture side by side) or a comma list of sm names or GPU names: sm_70 (V100), sm_75 (T4), sm_80 (A100), sm_86 (A10, A2), sm_89 (L4, L40S, RTX4090), sm_90 (H100), sm_100 (B200), sm_120 (RTXPRO6000)")
      ("instr", po::value(&instr), "instruction, e.g. mma.m16n8k16, wmma.m16n16k16, wgmma.m64nNk32, mma.m16n8k32 (fp8, sm_89+), tcgen05.mma.kind::f8f6f4 (sm_100), mma.m8n8k128.xor.popc (b1) (default: the wmma instruction, else the architecture's GEMM default)")
      ("in", po::value(&in_text), "input format of a and b: fp16 (default), bf16, tf32, e4m3, e5m2, s8, u8, s4, u4, b1 (bits), fp64")
      ("in-b", po::value(&in_b_text), "input format of b when it differs (fp8 mixes e4m3 x e5m2)")
      ("acc", po::value(&acc_text), "accumulator (c and d) format: fp32 (default), fp16, s32, fp64")
      ("tf32-feed", po::value(&feed_text), "how fp32 operands become tf32: truncate (hardware raw feed, default), rna, rne")
      ("satfinite", po::bool_switch(&saturate), "integer MMA: clamp to s32 instead of wrapping")
      ("fp8-f16", po::value(&fp8_f16_text), "Blackwell fp8 with an fp16 accumulator: model (B200TC.m: FP32 RZ block result, then RNE to fp16; default) or ptx (RNE to fp16 from the exact block sum)")
      ("blocks", po::bool_switch(&blocks), "also print the accumulator after every block of L products");
  po::variables_map vm;
  const std::string example =
      "  # block-length probe (spec numerics.md 4.3): V100 3*2^-16, T4/A100 2^-15, H100 +0\n"
      "  tcsim mma dot --a 2^7,2^-9x15 --b 2^7,2^-9x15 --c=-2^14\n"
      "  # MMA-Sim Eq. 10: V100 +0, T4/A100 -0.5, H100 -0.75\n"
      "  tcsim mma dot --a=-2^13,-0.5,-0.25,-0.125 --b 2^10,1,1,1 --c 2^23 --blocks\n"
      "  # FP16 output, one architecture, hex bit patterns\n"
      "  tcsim mma dot --arch sm_80 --acc fp16 --a 0x3e00 --b 0x3c00 --c 1024\n"
      "  (write --a=-1,... with '=' when the first value is negative)";
  if (!parse_options(args, "tcsim mma dot --a LIST --b LIST [--c VALUE] [options]", example, opts, nullptr, vm)) return 0;

  const FormatId in_a = parse_input_format(in_text, "--in");
  const FormatId in_b = in_b_text.empty() ? in_a : parse_input_format(in_b_text, "--in-b");
  const FormatId acc = parse_acc_format(acc_text, "--acc");
  num::MmaOptions mopt;
  mopt.tf32_feed = parse_tf32_feed(feed_text);
  if (saturate && !format_is_integer(in_a))
    throw InputError("--satfinite", "applies to integer MMA (s8, u8, s4, u4 inputs); " + std::string(format_name(in_a)) +
                                        " accumulates in floating point");
  mopt.int_saturate = saturate;
  mopt.fp8_f16_rule = parse_fp8_f16_option(fp8_f16_text, "--fp8-f16");
  // tf32 operands are fp32 registers: any fp32 value is accepted and fed as the hardware does.
  auto operand_fmt = [](FormatId f) { return f == FormatId::tf32 ? FormatId::fp32 : f; };
  std::vector<num::Bits> a = parse_value_list(a_text, operand_fmt(in_a), "--a");
  std::vector<num::Bits> b = parse_value_list(b_text, operand_fmt(in_b), "--b");
  if (a.size() != b.size())
    throw InputError("--b", "has " + std::to_string(b.size()) + " values but --a has " + std::to_string(a.size()) +
                                " (a row of A and a column of B have the same K)");
  const num::Bits c = parse_value(c_text, acc, "--c");
  const std::vector<num::Arch> archs = parse_arch_list(arch_text, "--arch");
  const std::size_t K = a.size();
  const std::string instr_where = instr.empty() ? "--in/--acc" : "--instr";

  std::vector<DotRow> rows;
  for (num::Arch arch : archs) {
    DotRow row;
    row.arch = arch;
    try {
      row.ins = &choose_instruction(arch, instr, in_a, in_b, acc, instr_where);
    } catch (const InputError& e) {
      if (archs.size() == 1) throw;
      row.unavailable = instr.empty() ? "no " + std::string(format_name(in_a)) + " -> " + std::string(format_name(acc)) + " instruction"
                                      : "no " + instr + " for " + std::string(format_name(in_a)) + " -> " + std::string(format_name(acc));
      rows.push_back(row);
      continue;
    }
    const std::size_t k = static_cast<std::size_t>(row.ins->k);
    if (K > k && K % k != 0)
      throw InputError("--a", std::to_string(K) + " values do not fit " + row.ins->describe() + " (k = " + std::to_string(k) +
                                  "): give at most " + std::to_string(k) + " values (the rest are zero) or a multiple of " +
                                  std::to_string(k));
    row.d = num::dot(*row.ins, a, b, c, mopt);
    if (blocks) {
      row.block_results = trace_blocks(*row.ins, a, b, c, mopt);
      if (!row.block_results.empty() && row.block_results.back() != row.d)
        throw std::logic_error("block trace disagrees with num::dot");
    }
    rows.push_back(row);
  }

  bool any = false;
  for (const auto& r : rows) any = any || r.ins;
  if (!any)  // no architecture has it: that is an error, with the first one's message
    (void)choose_instruction(archs[0], instr, in_a, in_b, acc, instr_where);

  // The exact value of the operands as given (for reference; the tensor cores truncate).
  num::BitMatrix A(1, static_cast<Eigen::Index>(K)), B(static_cast<Eigen::Index>(K), 1), C(1, 1);
  for (std::size_t j = 0; j < K; ++j) {
    A(0, static_cast<Eigen::Index>(j)) = a[j];
    B(static_cast<Eigen::Index>(j), 0) = b[j];
  }
  C(0, 0) = c;
  double exact = num::reference_gemm(A, operand_fmt(in_a), B, operand_fmt(in_b), C, acc)(0, 0);

  std::cout << "d = c + sum_k a_k*b_k   K = " << K << "   a: " << format_name(in_a) << "  b: " << format_name(in_b)
            << "  c, d: " << format_name(acc) << "\n";
  char exact_text[40];
  std::snprintf(exact_text, sizeof exact_text, "%.17g", exact);
  std::cout << "c = " << bits_and_value(c, acc) << "   fp64 value of c + sum a*b: "
            << (std::isnan(exact) ? "nan" : exact_text) << "\n\n";
  const std::vector<std::size_t> w = {6, 12, 26, 3, 3, 7, 7, 10, 12, 0};
  std::cout << pad("arch", w[0]) << " " << pad("GPU", w[1]) << " " << pad("instruction", w[2]) << " " << rpad("F", w[3])
            << " " << rpad("L", w[3]) << " " << rpad("blocks", w[5]) << " " << rpad("e_zero", w[6]) << " "
            << pad("rounding", w[7]) << " " << pad("d bits", w[8]) << " d value\n";
  for (const auto& r : rows) {
    std::cout << pad(std::string(num::arch_name(r.arch)), w[0]) << " " << pad(std::string(num::arch_gpu_name(r.arch)), w[1])
              << " ";
    if (!r.ins) {
      std::cout << "n/a: " << r.unavailable << "\n";
      continue;
    }
    const num::Instruction& ins = *r.ins;
    const bool fdpa = ins.out_mode != num::OutMode::int32_exact && ins.out_mode != num::OutMode::fp64_fma;
    const std::size_t chain = (K + static_cast<std::size_t>(ins.k) - 1) / static_cast<std::size_t>(ins.k);
    std::string blocks_col = fdpa ? std::to_string(chain * static_cast<std::size_t>(ins.blocks())) : "-";
    std::string v = value_text(r.d, acc), p = pow2_text(r.d, acc);
    std::cout << pad(ins.name + (chain > 1 ? " x" + std::to_string(chain) : ""), w[2]) << " "
              << rpad(fdpa ? std::to_string(ins.F) : "-", w[3]) << " " << rpad(fdpa ? std::to_string(ins.L) : "-", w[3])
              << " " << rpad(blocks_col, w[5]) << " " << rpad(fdpa ? std::to_string(ins.e_zero) : "-", w[6]) << " "
              << pad(rounding_text(ins), w[7]) << " " << pad(bits_text(r.d, acc), w[8]) << " " << v
              << (p.empty() || p == v ? "" : " = " + p) << "\n";
    if (blocks)
      for (std::size_t i = 0; i < r.block_results.size(); ++i)
        std::cout << "       after block " << i << " (k " << i * static_cast<std::size_t>(ins.L) << ".."
                  << (i + 1) * static_cast<std::size_t>(ins.L) - 1 << "): " << bits_and_value(r.block_results[i], acc)
                  << "\n";
  }
  bool padded = false, any_fdpa = false;
  for (const auto& r : rows) {
    if (r.ins && K < static_cast<std::size_t>(r.ins->k)) padded = true;
    if (r.ins && r.ins->out_mode != num::OutMode::int32_exact && r.ins->out_mode != num::OutMode::fp64_fma) any_fdpa = true;
  }
  std::cout << "\n";
  if (any_fdpa)
    std::cout << "F: fraction bits kept below the largest exponent sum; L: products per block (each block's sum is\n"
               "rounded into the accumulator before the next); products of zero get exponent e_zero (spec numerics.md 1-2).\n";
  if (padded) std::cout << "K is shorter than some instructions' k: the rest of k is zero, as in the tc-golden data.\n";
  if (in_a == FormatId::tf32 || in_b == FormatId::tf32)
    std::cout << "tf32 operands are read as fp32 and fed with --tf32-feed " << num::tf32_feed_name(mopt.tf32_feed) << ".\n";
  return 0;
}

}  // namespace tcsim::cli::mma
