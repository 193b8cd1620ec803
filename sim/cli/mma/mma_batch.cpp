// tcsim mma batch: emulate every row of a tc-golden directory (or of every case below a folder),
// write the d files in the same layout, and with --check compare them with measured d files.
#include <optional>
#include <filesystem>
#include <iostream>
#include <map>

#include "common/files/atomic_dir.h"
#include "cli/mma/mma_common.h"
#include "cli/verbs.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "numerics/golden_io.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace tcsim::cli::mma {
namespace {

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// The file holding the expected d for one case and accumulator, given --check's argument.
fs::path expected_file(const num::GoldenCase& gc, const std::string& acc_name, const fs::path& root,
                       const std::string& check, bool single_case) {
  const std::string name = num::golden_file_name('d', gc.gpu, acc_name);
  std::error_code ec;
  if (check.empty()) {  // --check alone: the d files beside the inputs
    fs::path f = gc.dir / name;
    if (!fs::is_regular_file(f, ec))
      throw InputError(f.string(), "missing: --check without a path compares with the d files in the input directory");
    return f;
  }
  fs::path p = check;
  if (fs::is_regular_file(p, ec)) {
    if (!single_case)
      throw InputError("--check", "'" + check + "' is a file but the input has several cases; give a directory");
    return p;
  }
  if (!fs::is_directory(p, ec)) throw InputError("--check", "'" + check + "' is neither a d file nor a directory");
  fs::path rel = fs::relative(gc.dir, root, ec);
  for (const fs::path& f : {p / rel / name, p / name})
    if (fs::is_regular_file(f, ec)) return f;
  throw InputError((p / rel / name).string(), "missing: no expected results for this case in the --check directory");
}

}  // namespace

int run_batch(const std::vector<std::string>& args) {
  std::string dir, arch_text, instr, out_dir, check, feed_text = "truncate", sparse_blocks_text = "kept", fp8_f16_text = "model";
  std::vector<std::string> acc_texts;
  bool saturate = false, check_given = false;
  int show = 5;
  po::options_description opts("Options");
  opts.add_options()
      ("dir", po::value(&dir)->required(), "a tc-golden case directory (a_<GPU>_<fmt>.txt, b_..., c_<GPU>_fp32.txt), or a folder with such directories below it")
      ("arch", po::value(&arch_text), "architecture (sm_70 ... sm_120 or a GPU name); default: meta.yaml `arch:`, else the GPU name in the file names")
      ("instr", po::value(&instr), "instruction (e.g. mma.m16n8k16); default: meta.yaml `instruction:`, else the wmma instruction the tc-golden data used, else the GEMM default")
      ("acc", po::value(&acc_texts)->composing(), "accumulator format(s) to compute: fp32, fp16, s32 (default: those of the d files present, else fp32 / s32)")
      ("output,o", po::value(&out_dir), "write d_<GPU>_<acc>.txt here (same layout; sub-directories mirror the input's)")
      ("check", po::value(&check)->implicit_value(""), "compare with expected d: a d_<GPU>_<acc>.txt file, a directory in the same layout, or nothing (the d files in DIR)")
      ("show", po::value(&show), "mismatches to print per case (default 5)")
      ("tf32-feed", po::value(&feed_text), "tf32 operands: truncate (hardware raw feed, default), rna, rne")
      ("satfinite", po::bool_switch(&saturate), "integer MMA: clamp to s32 instead of wrapping")
      ("sparse-blocks", po::value(&sparse_blocks_text), "2:4 sparse (mma.sp) cases: kept (default: blocks of L kept products) or dense (blocks of L consecutive k)")
      ("fp8-f16", po::value(&fp8_f16_text), "Blackwell fp8 with an fp16 accumulator: model (B200TC.m, default) or ptx");
  po::positional_options_description pos;
  pos.add("dir", 1);
  po::variables_map vm;
  const std::string example =
      "  tcsim mma batch ../shared/tc-golden/V100/fp16 --check            # 0 mismatches\n"
      "  tcsim mma batch ../shared/tc-golden -o out/golden --check          # every case below\n"
      "  tcsim mma batch measured/H100/fp8 --arch sm_90 --instr wgmma.m64nNk32 -o out/h100 --check\n"
      "Exit codes: 0 all rows match (or no --check), 3 some rows differ, 2 bad input.\n"
      "Put DIR before a bare --check (otherwise --check takes DIR as its argument).";
  if (!parse_options(args, "tcsim mma batch DIR [-o OUTDIR] [--check [DFILE|DIR]] [options]", example, opts, &pos, vm))
    return 0;
  check_given = vm.count("check") > 0;
  if (show < 0) throw InputError("--show", "expected a count >= 0");

  num::GoldenOptions gopt;
  if (!arch_text.empty()) gopt.arch = num::parse_arch_or_throw(arch_text, "--arch");
  gopt.instruction = instr;
  num::MmaOptions mopt;
  if (feed_text == "truncate" || feed_text == "rz") mopt.tf32_feed = num::Tf32Feed::truncate;
  else if (feed_text == "rna") mopt.tf32_feed = num::Tf32Feed::rna;
  else if (feed_text == "rne") mopt.tf32_feed = num::Tf32Feed::rne;
  else throw InputError("--tf32-feed", "expected truncate, rna or rne, got '" + feed_text + "'");
  mopt.int_saturate = saturate;
  mopt.fp8_f16_rule = parse_fp8_f16_option(fp8_f16_text, "--fp8-f16");
  if (sparse_blocks_text == "dense") mopt.sparse_blocks = num::SparseBlocks::dense;
  else if (sparse_blocks_text != "kept") throw InputError("--sparse-blocks", "expected kept or dense, got '" + sparse_blocks_text + "'");
  std::vector<std::string> acc_names;
  for (const auto& t : acc_texts)
    for (const auto& part : split(t, ',')) {
      auto f = num::parse_acc_name(std::string(trim(part)));
      if (!f) throw InputError("--acc", "unknown accumulator format '" + part + "'; expected fp32, fp16 or s32");
      acc_names.push_back(std::string(format_name(*f)));
    }

  const fs::path root = dir;
  const std::vector<fs::path> cases = num::find_golden_cases(root);
  // The d files appear in -o's folder only when every case was emulated (a bad case leaves nothing;
  // mismatches do not stop the commit: the files are the emulator's results either way).
  std::optional<AtomicDir> out;
  if (!out_dir.empty()) out.emplace(out_dir);
  std::size_t total_rows = 0, total_mismatches = 0, compared = 0;
  for (const fs::path& case_dir : cases) {
    num::GoldenCase gc = num::read_golden_case(case_dir);
    std::error_code ec;
    fs::path rel = fs::relative(case_dir, root, ec);
    if (ec || rel == ".") rel.clear();
    std::vector<std::string> accs = acc_names;
    const bool check_file = check_given && !check.empty() && fs::is_regular_file(check, ec);
    if (accs.empty() && check_file) {
      // one expected file: the accumulator its name says (d_<GPU>_<acc>.txt)
      std::string n = fs::path(check).filename().string();
      std::size_t us = n.rfind('_');
      if (us != std::string::npos && n.ends_with(".txt"))
        if (auto f = num::parse_acc_name(n.substr(us + 1, n.size() - us - 5))) accs.push_back(std::string(format_name(*f)));
      if (accs.empty() && gc.outputs.size() > 1)
        throw InputError("--check", "cannot tell the accumulator from the file name '" + n + "'; give --acc fp32|fp16|s32");
    }
    if (check_file && accs.size() > 1)
      throw InputError("--check", "one expected file but " + std::to_string(accs.size()) + " accumulators; give one --acc");
    if (accs.empty())
      for (const auto& o : gc.outputs) accs.push_back(o.acc_name);
    if (accs.empty()) accs.push_back(format_is_integer(gc.input) ? "s32" : "fp32");

    for (const std::string& acc_name : accs) {
      const FormatId acc = *num::parse_acc_name(acc_name);
      num::GoldenPlan plan = num::plan_golden(gc, acc, gopt);
      std::vector<std::uint32_t> d = num::emulate_golden(gc, plan, mopt);
      total_rows += d.size();
      std::string label = rel.empty() ? case_dir.filename().string() : rel.string();
      std::cout << label << ": " << gc.rows << " rows, K = " << gc.k << ", " << plan.instruction->describe() << " (arch from "
                << plan.arch_from << ", instruction: " << plan.instr_from << ")\n";
      if (!out_dir.empty()) {
        num::write_binary_file(out->work() / rel / num::golden_file_name('d', gc.gpu, acc_name), d);
        std::cout << "  wrote " << (fs::path(out_dir) / rel / num::golden_file_name('d', gc.gpu, acc_name)).string() << "\n";
      }
      if (out_dir.empty() && !check_given) std::cout << "  (no -o: d not written; no --check: nothing compared)\n";
      if (!check_given) continue;
      fs::path ef = expected_file(gc, acc_name, root, check, cases.size() == 1);
      std::vector<std::uint32_t> expected = num::read_binary_file(ef, gc.rows);
      std::size_t mismatches = 0;
      for (std::size_t r = 0; r < gc.rows; ++r) {
        if (expected[r] == d[r]) continue;
        if (static_cast<int>(mismatches) < show) {
          std::cout << "  mismatch at " << ef.filename().string() << ":" << r + 1 << "\n";
          std::string as, bs;
          for (int j = 0; j < gc.k; ++j) {
            as += (j ? ", " : "") + hex32(gc.a_row(r)[j]) + "=" + value_text(gc.a_row(r)[j], FormatId::fp32);
            bs += (j ? ", " : "") + hex32(gc.b_row(r)[j]) + "=" + value_text(gc.b_row(r)[j], FormatId::fp32);
          }
          std::cout << "    a = " << as << "\n    b = " << bs << "\n    c = "
                    << bits_and_value(num::golden_c(gc, r, acc), acc) << "\n    expected " << hex32(expected[r]) << " = "
                    << bits_and_value(num::d_file_to_acc(expected[r], acc), acc) << "\n    got      " << hex32(d[r])
                    << " = " << bits_and_value(num::d_file_to_acc(d[r], acc), acc) << "\n";
        }
        ++mismatches;
      }
      ++compared;
      total_mismatches += mismatches;
      std::cout << "  check against " << ef.string() << ": " << mismatches << " mismatches out of " << gc.rows << " rows"
                << (mismatches ? "" : " (bit-exact)") << "\n";
    }
  }
  if (out) out->commit();
  if (check_given)
    std::cout << "total: " << total_mismatches << " mismatches out of " << total_rows << " rows in " << compared
              << " comparison" << (compared == 1 ? "" : "s") << "\n";
  return total_mismatches ? kExitMismatch : 0;
}

}  // namespace tcsim::cli::mma
