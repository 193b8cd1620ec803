// tcsim trace dump: the per-warp instruction program the GPU model replays for one GEMM (the
// mapping it picked, then prologue / k-loop / epilogue), optionally with a simulated issue timeline.
#include <iostream>

#include "cli/verbs.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "config/config.h"
#include "gpu/gpu_config.h"
#include "gpu/kernel_program.h"
#include "workload/csv/csv_text.h"

namespace po = boost::program_options;

namespace tcsim::cli {
namespace {

std::int64_t parse_dim(const std::string& text, const std::string& whole) {
  try {
    std::size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used == text.size() && v > 0 && v <= (1LL << 31)) return v;
  } catch (const std::exception&) {
  }
  throw InputError("--gemm", "expected MxNxK[xBATCH] with positive integers up to 2^31, got '" + whole + "'");
}

Kernel parse_gemm(const std::string& text, const std::string& formats) {
  const auto parts = split(to_lower(text), 'x');
  if (parts.size() < 3 || parts.size() > 4)
    throw InputError("--gemm", "expected MxNxK[xBATCH], e.g. 4096x4096x4096, got '" + text + "'");
  Kernel k = make_gemm("gemm " + text, parse_dim(parts[0], text), parse_dim(parts[1], text), parse_dim(parts[2], text));
  if (parts.size() == 4) k.batch = parse_dim(parts[3], text);
  if (!formats.empty()) {
    const auto f = split(formats, '.');
    if (f.size() != 3 && f.size() != 4)
      throw InputError("--formats", "expected A.B.ACC or A.B.C.D (e.g. f16.f16.f32), got '" + formats + "'");
    FormatId ids[4];
    for (std::size_t i = 0; i < f.size(); ++i) {
      const auto id = parse_format(trim(f[i]));
      if (!id) throw InputError("--formats", "unknown format '" + f[i] + "' (fp16, bf16, tf32, fp32, e4m3, s8, ...)");
      ids[i] = *id;
    }
    if (f.size() == 3) ids[3] = ids[2];
    k.a_format = ids[0], k.b_format = ids[1], k.c_format = ids[2], k.d_format = ids[3];
  }
  return k;
}

int dump_verb(const std::vector<std::string>& args) {
  std::string config_path, gemm, formats, layout;
  std::vector<std::string> sets;
  int warp = 0, timeline = 0;
  po::options_description opts("Options");
  opts.add_options()
      ("config,c", po::value(&config_path)->required(), "GPU config (YAML, kind: gpu)")
      ("gemm", po::value(&gemm)->required(), "the GEMM MxNxK[xBATCH]")
      ("formats", po::value(&formats), "operand formats A.B.ACC, e.g. f16.f16.f32 (default)")
      ("layout", po::value(&layout), "op(A), op(B) of row-major operands: NN (default), NT, TN or TT (T: transposed)")
      ("warp", po::value(&warp), "which warp of the CTA (default 0, which also issues TMA)")
      ("timeline", po::value(&timeline), "also print the first N simulated issue events of that warp")
      ("set", po::value(&sets)->composing(), "override a config value (repeatable)");
  po::variables_map vm;
  if (!parse_options(args, "tcsim trace dump -c CONFIG --gemm MxNxK [options]",
                     "  tcsim trace dump -c configs/gpu/v100.yaml --gemm 4096x4096x4096 --formats f16.f16.f32\n"
                     "  tcsim trace dump -c configs/gpu/h100.yaml --gemm 8192x8192x8192 --warp 1 --timeline 40\n"
                     "  tcsim trace dump -c configs/gpu/h100.yaml --gemm 4096x4096x4096 --formats tf32.tf32.f32 --layout TT",
                     opts, nullptr, vm))
    return 0;
  if (timeline < 0) throw InputError("--timeline", "expected a number of events >= 0");
  Kernel kernel = parse_gemm(gemm, formats);
  if (!layout.empty()) {
    const auto l = workload::parse_layout(layout);
    if (!l) throw InputError("--layout", "expected NN, NT, TN or TT, got '" + layout + "'");
    kernel.layout = *l;
  }
  const gpu::GpuConfig g = gpu::GpuConfig::from(config::Config::load(config_path, gpu::config_schema(), sets));
  const gpu::KernelProgram kp = gpu::kernel_program(g, kernel);
  std::cout << gpu::dump_program(g, kp, warp);
  if (timeline > 0) std::cout << gpu::dump_timeline(g, kp, warp, timeline);
  return 0;
}

int trace_verb(const std::vector<std::string>& args) {
  const int rc = check_sub_verb("trace", args, {{"dump", "print the per-warp instruction program of one GEMM"}});
  if (rc >= 0) return rc;
  return dump_verb(std::vector<std::string>(args.begin() + 1, args.end()));
}

}  // namespace
}  // namespace tcsim::cli

TCSIM_REGISTER_VERB(trace, "trace", "show the per-warp instruction program the GPU model runs for a GEMM",
                    tcsim::cli::trace_verb)
