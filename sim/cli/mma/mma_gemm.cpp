// tcsim mma gemm: a random (seeded) or file-given GEMM emulated bit-exactly with one tensor-core
// instruction, and its error against fp64; --compare puts several input formats side by side.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/mma/mma_common.h"
#include "cli/verbs.h"
#include "common/files/atomic_file.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "numerics/gemm/gemm.h"
#include "numerics/sparse/structured.h"

namespace po = boost::program_options;

namespace tcsim::cli::mma {
namespace {

// A text matrix: one row per line, values separated by spaces or commas; '#' starts a comment.
// Values are parsed in f (exactly, or rounded when allow_inexact).
num::BitMatrix read_matrix(const std::string& file, FormatId f, bool allow_inexact) {
  const std::string text = read_file(file);
  std::vector<std::vector<num::Bits>> rows;
  std::size_t line_no = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    ++line_no;
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    for (auto& ch : line)
      if (ch == ',' || ch == '\t' || ch == '\r') ch = ' ';
    std::vector<num::Bits> row;
    std::istringstream ls(line);
    std::string tok;
    const std::string where = location(file, static_cast<long>(line_no));
    while (ls >> tok) row.push_back(parse_value(tok, f, where, row.size() + 1, allow_inexact));
    if (row.empty()) continue;
    if (!rows.empty() && row.size() != rows[0].size())
      throw InputError(where, "ragged row: " + std::to_string(row.size()) + " values, but the first row has " +
                                  std::to_string(rows[0].size()));
    rows.push_back(std::move(row));
  }
  if (rows.empty()) throw InputError(file, "no data: expected a matrix, one row per line");
  num::BitMatrix m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows[0].size()));
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows[i].size(); ++j)
      m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
  return m;
}

num::BitMatrix convert_matrix(const num::BitMatrix& m, FormatId from, FormatId to) {
  num::ConvertOptions o;
  o.rounding = num::Rounding::rne;
  o.satfinite = to == FormatId::e4m3 || to == FormatId::e5m2;
  num::BitMatrix out(m.rows(), m.cols());
  for (Eigen::Index j = 0; j < m.cols(); ++j)
    for (Eigen::Index i = 0; i < m.rows(); ++i) out(i, j) = num::convert(m(i, j), from, to, o);
  return out;
}

std::string fmt_g(double v, const char* f = "%.3g") {
  char buf[32];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

struct FormatResult {
  FormatId fmt = FormatId::fp16;
  const num::Instruction* ins = nullptr;
  std::string unavailable;
  num::ErrorStats own;    // against fp64 of the inputs in this format (the MMA's own error)
  num::ErrorStats total;  // against fp64 of the unrounded inputs (input rounding included)
  double own_norm = 0, total_norm = 0;  // max |d - ref| / max |ref|: not inflated by cancellation
};

double norm_rel(const num::ErrorStats& s, const Eigen::MatrixXd& ref) {
  double m = 0;
  for (Eigen::Index j = 0; j < ref.cols(); ++j)
    for (Eigen::Index i = 0; i < ref.rows(); ++i)
      if (std::isfinite(ref(i, j))) m = std::max(m, std::abs(ref(i, j)));
  return m > 0 ? s.max_abs / m : 0.0;
}

// The mma.sp instruction a 2:4 sparse GEMM uses for a format (PTX mma.sp shapes, sm_80+).
const num::Instruction& sparse_instruction(num::Arch arch, const std::string& name, FormatId f, FormatId acc) {
  if (!name.empty()) {
    const num::Instruction& ins = num::find_instruction(arch, name, f, f, acc, "--instr");
    if (!ins.sparse) throw InputError("--instr", ins.describe() + " is dense; --sparse 2:4 needs an mma.sp instruction");
    return ins;
  }
  const char* n = nullptr;
  switch (f) {
    case FormatId::fp16:
    case FormatId::bf16: n = "mma.sp.m16n8k32"; break;
    case FormatId::e4m3:
    case FormatId::e5m2:
    case FormatId::int8:
    case FormatId::uint8: n = "mma.sp.m16n8k64"; break;
    case FormatId::int4:
    case FormatId::uint4: n = "mma.sp.m16n8k128"; break;
    default:
      throw InputError("--format", "no 2:4 sparse instruction takes " + std::string(format_name(f)) +
                                       " (tf32 mma.sp is 1:2 sparsity, not modelled); expected fp16, bf16, e4m3, e5m2, s8, u8, s4 or u4");
  }
  return num::find_instruction(arch, n, f, f, acc, "--arch/--format");
}

// ||X - Y||_F / ||Y||_F over finite entries.
double frobenius_rel(const Eigen::MatrixXd& x, const Eigen::MatrixXd& y) {
  double num = 0, den = 0;
  for (Eigen::Index j = 0; j < y.cols(); ++j)
    for (Eigen::Index i = 0; i < y.rows(); ++i)
      if (std::isfinite(x(i, j)) && std::isfinite(y(i, j))) {
        num += (x(i, j) - y(i, j)) * (x(i, j) - y(i, j));
        den += y(i, j) * y(i, j);
      }
  return den > 0 ? std::sqrt(num / den) : 0.0;
}

}  // namespace

int run_gemm(const std::vector<std::string>& args) {
  long m = 128, n = 128, k = 512;
  std::string fmt_text = "fp16", acc_text = "fp32", arch_text = "sm_80", instr, a_file, b_file, compare, order_text = "increasing",
              sparse_text, sparse_blocks_text = "kept", fp8_f16_text = "model";
  std::uint64_t seed = 1;
  int jobs = 0;
  double lo = -1.0, hi = 1.0;
  po::options_description opts("Options");
  opts.add_options()
      ("m", po::value(&m), "rows of A and D (default 128)")
      ("n", po::value(&n), "columns of B and D (default 128)")
      ("k", po::value(&k), "the reduction dimension (default 512)")
      ("format", po::value(&fmt_text), "input format of A and B: fp16 (default), bf16, tf32, e4m3, e5m2, s8, u8, s4, u4, b1, fp64")
      ("acc", po::value(&acc_text), "accumulator (C and D) format: fp32 (default), fp16, s32, fp64")
      ("arch", po::value(&arch_text), "architecture: sm_70|sm_75|sm_80 (default)|sm_86|sm_89|sm_90|sm_100|sm_120 or a GPU name (V100, T4, A100, A10, A2, L4, L40S, RTX4090, H100, B200, RTXPRO6000)")
      ("sparse", po::value(&sparse_text), "2:4: prune A by magnitude to 2:4 (cuSPARSELt strip rule), run the mma.sp instruction and report the pruned GEMM's accuracy against the dense one")
      ("sparse-blocks", po::value(&sparse_blocks_text), "2:4 numerics: kept (default: blocks of L kept products) or dense (the dense instruction on the zero-filled pruned A)")
      ("fp8-f16", po::value(&fp8_f16_text), "Blackwell fp8 with an fp16 accumulator: model (B200TC.m, default) or ptx")
      ("instr", po::value(&instr), "instruction (default: the wmma instruction for the formats, else the GEMM default)")
      ("seed", po::value(&seed), "random seed (default 1); same seed, same matrices and results")
      ("lo", po::value(&lo), "random values are uniform in [lo, hi) (default -1)")
      ("hi", po::value(&hi), "(default 1)")
      ("a", po::value(&a_file), "A from a text file (M lines of K values: decimal, 2^E, hex float or hex bits); needs --b")
      ("b", po::value(&b_file), "B from a text file (K lines of N values)")
      ("compare", po::value(&compare), "comma list of input formats to put side by side, e.g. fp16,bf16,tf32,e4m3")
      ("k-order", po::value(&order_text), "order of the K loop: increasing (default) or decreasing")
      ("jobs,j", po::value(&jobs), "threads (default: all cores); results do not depend on it");
  po::variables_map vm;
  const std::string example =
      "  tcsim mma gemm --m 256 --n 256 --k 4096 --format fp16 --acc fp32 --arch sm_80\n"
      "  tcsim mma gemm --k 4096 --arch sm_90 --compare fp16,bf16,tf32,e4m3\n"
      "  tcsim mma gemm --a A.txt --b B.txt --format bf16 --arch h100\n"
      "  tcsim mma gemm --m 256 --n 256 --k 1024 --arch A100 --sparse 2:4";
  if (!parse_options(args, "tcsim mma gemm [--m M --n N --k K | --a FILE --b FILE] [options]", example, opts, nullptr, vm))
    return 0;

  const FormatId acc = parse_acc_format(acc_text, "--acc");
  const num::Arch arch = num::parse_arch_or_throw(arch_text, "--arch");
  num::GemmOptions gopt;
  if (order_text == "increasing") gopt.k_order = num::KOrder::increasing;
  else if (order_text == "decreasing") gopt.k_order = num::KOrder::decreasing;
  else throw InputError("--k-order", "expected increasing or decreasing, got '" + order_text + "'");
  if (jobs < 0) throw InputError("--jobs", "expected a thread count >= 0 (0 = all cores)");
  gopt.threads = jobs;
  if (!std::isfinite(lo) || !std::isfinite(hi)) throw InputError(std::isfinite(lo) ? "--hi" : "--lo", "expected a finite number");
  gopt.mma.fp8_f16_rule = parse_fp8_f16_option(fp8_f16_text, "--fp8-f16");
  const bool sparse = !sparse_text.empty();
  if (sparse && sparse_text != "2:4") throw InputError("--sparse", "expected 2:4 (the only structured sparsity of mma.sp for these formats), got '" + sparse_text + "'");
  if (sparse && !compare.empty()) throw InputError("--sparse", "works with one --format, not with --compare");
  num::SparseBlocks& sparse_blocks = gopt.mma.sparse_blocks;
  if (sparse_blocks_text == "dense") sparse_blocks = num::SparseBlocks::dense;
  else if (sparse_blocks_text != "kept") throw InputError("--sparse-blocks", "expected kept or dense, got '" + sparse_blocks_text + "'");
  if (!(lo < hi)) throw InputError("--lo", "expected lo < hi");
  std::vector<FormatId> formats;
  const bool comparing = !compare.empty();
  if (comparing) {
    for (const auto& part : split(compare, ',')) formats.push_back(parse_input_format(std::string(trim(part)), "--compare"));
  } else {
    formats.push_back(parse_input_format(fmt_text, "--format"));
  }
  if (a_file.empty() != b_file.empty()) throw InputError(a_file.empty() ? "--b" : "--a", "--a and --b go together");
  const bool from_files = !a_file.empty();

  // The base matrices: fp64 values, rounded into each format below (or, from files in single
  // mode, parsed exactly in the format).
  num::BitMatrix A64, B64;
  FormatId base_fmt = FormatId::fp64;
  if (from_files) {
    base_fmt = comparing ? FormatId::fp64 : formats[0];
    A64 = read_matrix(a_file, base_fmt, comparing);
    B64 = read_matrix(b_file, base_fmt, comparing);
    if (A64.cols() != B64.rows())
      throw InputError(b_file, std::to_string(B64.rows()) + " rows, but A (" + a_file + ") has " +
                                   std::to_string(A64.cols()) + " columns (expected K x N)");
    const std::pair<const char*, long> given[] = {{"m", m}, {"n", n}, {"k", k}};
    const long from_file[] = {static_cast<long>(A64.rows()), static_cast<long>(B64.cols()), static_cast<long>(A64.cols())};
    for (int i = 0; i < 3; ++i)
      if (vm.count(given[i].first) && given[i].second != from_file[i])
        throw InputError(std::string("--") + given[i].first,
                         std::to_string(given[i].second) + " does not match the matrix files (" + std::to_string(from_file[i]) + ")");
    m = A64.rows();
    n = B64.cols();
    k = A64.cols();
  } else {
    for (auto [name, v] : {std::pair{"--m", m}, std::pair{"--n", n}, std::pair{"--k", k}})
      if (v < 1 || v > (1 << 20)) throw InputError(name, "expected 1 .. 1048576");
    if (static_cast<double>(m) * static_cast<double>(n) > (1 << 26) || static_cast<double>(m) * static_cast<double>(k) > (1 << 26) ||
        static_cast<double>(k) * static_cast<double>(n) > (1 << 26))
      throw InputError("--m", "matrices larger than 2^26 elements are not supported");
    A64 = num::random_matrix(FormatId::fp64, static_cast<int>(m), static_cast<int>(k), seed * 2 + 1, lo, hi);
    B64 = num::random_matrix(FormatId::fp64, static_cast<int>(k), static_cast<int>(n), seed * 2 + 2, lo, hi);
  }
  num::BitMatrix C = num::BitMatrix::Zero(m, n);  // +0 in every format

  std::vector<FormatResult> results;
  Eigen::MatrixXd ref_total;
  if (base_fmt == FormatId::fp64) ref_total = num::reference_gemm(A64, FormatId::fp64, B64, FormatId::fp64, C, acc, gopt.threads);
  for (FormatId f : formats) {
    FormatResult r;
    r.fmt = f;
    try {
      r.ins = sparse ? &sparse_instruction(arch, instr, f, acc)
                     : &choose_instruction(arch, instr, f, f, acc, instr.empty() ? "--format/--acc" : "--instr");
    } catch (const InputError&) {
      if (!comparing) throw;
      r.unavailable = "no " + std::string(format_name(f)) + " -> " + std::string(format_name(acc)) + " instruction on " +
                      std::string(num::arch_name(arch));
      results.push_back(r);
      continue;
    }
    num::BitMatrix A, B;
    if (format_is_integer(f) && base_fmt == FormatId::fp64 && !from_files) {
      // integers: uniform over the whole range of the format
      A = num::random_matrix(f, static_cast<int>(m), static_cast<int>(k), seed * 2 + 1, -1e9, 1e9);
      B = num::random_matrix(f, static_cast<int>(k), static_cast<int>(n), seed * 2 + 2, -1e9, 1e9);
    } else if (base_fmt == FormatId::fp64 && f != FormatId::fp64) {
      A = convert_matrix(A64, FormatId::fp64, f);
      B = convert_matrix(B64, FormatId::fp64, f);
    } else {
      A = A64;
      B = B64;
    }
    if (sparse) {
      // The pruned GEMM against the dense one (both from the same rounded inputs).
      const num::Sparse24 S = num::prune_2_4(A, f);
      const num::BitMatrix Ap = num::densify(S).leftCols(A.cols());
      const num::BitMatrix Dsp = num::sparse_gemm(*r.ins, S, B, C, gopt);
      const Eigen::MatrixXd ref_dense = num::reference_gemm(A, f, B, f, C, acc, gopt.threads);
      const Eigen::MatrixXd ref_pruned = num::reference_gemm(Ap, f, B, f, C, acc, gopt.threads);
      const num::ErrorStats vs_dense = num::error_stats(Dsp, acc, ref_dense);
      const num::ErrorStats own = num::error_stats(Dsp, acc, ref_pruned);
      std::size_t nonzero = 0, kept_nonzero = 0;
      for (Eigen::Index j = 0; j < A.cols(); ++j)
        for (Eigen::Index i = 0; i < A.rows(); ++i) {
          nonzero += num::to_double(A(i, j), f) != 0.0;
          kept_nonzero += num::to_double(Ap(i, j), f) != 0.0;
        }
      std::cout << "GEMM D = A*B (C = 0), M = " << m << ", N = " << n << ", K = " << k << ", accumulator " << format_name(acc)
                << ", " << num::arch_name(arch) << " (" << num::arch_gpu_name(arch) << ")\n";
      std::cout << "2:4 sparse: A pruned by magnitude (2 largest |a| of every 4 along K), " << kept_nonzero << " of " << nonzero
                << " nonzeros of A kept; instruction " << r.ins->describe() << ", " << r.ins->kept() << " products per instruction, blocks of "
                << r.ins->L << (sparse_blocks == num::SparseBlocks::kept ? " kept products" : " consecutive k (dense reading)") << "\n";
      std::cout << "pruned GEMM vs the dense GEMM (fp64 of the unpruned inputs): frobenius rel " << fmt_g(frobenius_rel(num::to_double(Dsp, acc), ref_dense))
                << ", norm rel " << fmt_g(norm_rel(vs_dense, ref_dense)) << ", mean rel " << fmt_g(vs_dense.mean_rel) << "\n";
      std::cout << "pruned GEMM vs fp64 of the pruned inputs (the MMA's own): norm rel " << fmt_g(norm_rel(own, ref_pruned))
                << ", max ulps " << fmt_g(own.max_ulps, "%.4g") << ", mean rel " << fmt_g(own.mean_rel) << "\n";
      return 0;
    }
    num::BitMatrix D = num::gemm(*r.ins, A, B, C, gopt);
    Eigen::MatrixXd ref_own = num::reference_gemm(A, f, B, f, C, acc, gopt.threads);
    r.own = num::error_stats(D, acc, ref_own);
    r.own_norm = norm_rel(r.own, ref_own);
    const bool has_total = base_fmt == FormatId::fp64 && !format_is_integer(f);
    r.total = has_total ? num::error_stats(D, acc, ref_total) : r.own;
    r.total_norm = has_total ? norm_rel(r.total, ref_total) : r.own_norm;
    results.push_back(r);
  }

  std::cout << "GEMM D = A*B (C = 0), M = " << m << ", N = " << n << ", K = " << k << ", accumulator "
            << format_name(acc) << ", " << num::arch_name(arch) << " (" << num::arch_gpu_name(arch) << "), k order "
            << num::k_order_name(gopt.k_order) << "\n";
  if (from_files) std::cout << "A from " << a_file << ", B from " << b_file << "\n";
  else std::cout << "A, B: uniform in [" << lo << ", " << hi << "), seed " << seed << ", rounded to the input format (RNE)\n";
  if (!comparing) {
    const FormatResult& r = results[0];
    std::cout << "instruction: " << r.ins->describe() << (r.ins->note.empty() ? "" : " (" + r.ins->note + ")") << "\n";
    auto line = [](const char* what, const num::ErrorStats& s, double norm) {
      std::cout << what << "norm rel " << fmt_g(norm) << ", max rel " << fmt_g(s.max_rel) << ", mean rel " << fmt_g(s.mean_rel) << ", max ulps "
                << fmt_g(s.max_ulps, "%.4g") << ", max abs " << fmt_g(s.max_abs) << "  (" << s.count << " elements";
      if (s.nonfinite) std::cout << ", " << s.nonfinite << " not finite";
      if (s.zero_reference) std::cout << ", " << s.zero_reference << " with reference 0";
      std::cout << ")\n";
    };
    line("error vs fp64 of the same inputs (the MMA's own):   ", r.own, r.own_norm);
    if (base_fmt == FormatId::fp64 && !format_is_integer(r.fmt))
      line("error vs fp64 of the unrounded inputs (total):      ", r.total, r.total_norm);
    std::cout << "norm rel = max |d - ref| / max |ref| (not inflated by cancellation); rel and ulps are per element\n";
    return 0;
  }
  std::cout << "norm rel = max |d - ref| / max |ref|.  own: vs fp64 of the rounded inputs (the accumulation alone);\n"
               "total: vs fp64 of the unrounded inputs (input rounding included).  ulps: of the "
            << format_name(acc) << " accumulator.\n\n";
  std::cout << pad("format", 7) << " " << pad("instruction", 28) << " " << rpad("own norm rel", 12) << " "
            << rpad("own mean rel", 12) << " " << rpad("own max ulps", 12) << " " << rpad("total norm rel", 14) << " "
            << rpad("total mean rel", 14) << "\n";
  for (const auto& r : results) {
    std::cout << pad(std::string(format_name(r.fmt)), 7) << " ";
    if (!r.ins) {
      std::cout << "n/a: " << r.unavailable << "\n";
      continue;
    }
    std::cout << pad(r.ins->name + " " + std::string(format_name(r.ins->a_fmt)), 28) << " " << rpad(fmt_g(r.own_norm), 12)
              << " " << rpad(fmt_g(r.own.mean_rel), 12) << " " << rpad(fmt_g(r.own.max_ulps, "%.4g"), 12) << " "
              << rpad(fmt_g(r.total_norm), 14) << " " << rpad(fmt_g(r.total.mean_rel), 14) << "\n";
  }
  return 0;
}

}  // namespace tcsim::cli::mma
