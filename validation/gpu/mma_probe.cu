// mma_probe: runs the real tensor-core MMA instructions (mma.sync for every variant the GPU has,
// wgmma on sm_90) on generated or given inputs and writes tc-golden-layout result directories
// with a meta.yaml each. See validation/README.md for the sets, the layout and the options.
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "device_info.h"
#include "frag_layout.h"
#include "mma_ops.h"
#include "mma_runner.h"
#include "probe_cases.h"

using namespace tcv;

namespace {

const char* kUsage =
    "usage: mma_probe --out DIR [options]\n"
    "       mma_probe --out DIR --input CASE_DIR --ops KEY [--chains N]\n"
    "       mma_probe --list | --check-layouts\n"
    "Runs tensor-core MMA instructions on probe inputs and writes DIR/<GPU>/<case>/ in the\n"
    "tc-golden layout (a_, b_, c_, d_ files, labels.txt, meta.yaml).\n"
    "options:\n"
    "  --ops LIST        comma-separated variant keys or key prefixes (default: all; see --list)\n"
    "  --sets LIST       random_bits,random_normal,adversarial,specials,discriminating (default: all)\n"
    "  --chains LIST     chain lengths along K (default 1,2; chains > 1 run random_normal,\n"
    "                    discriminating and random_bits for integer variants)\n"
    "  --samples N       samples per random set and in the specials mix (default 1000)\n"
    "  --seed N          base seed (default 20261122)\n"
    "  --gpu-name NAME   name used in paths and file names (default: from the device name)\n"
    "  --device N        CUDA device (default 0)\n"
    "  --timeout S       watchdog in seconds (default 900; 0 = none)\n"
    "  --input DIR       run one tc-golden-layout case directory through the single variant --ops\n"
    "  --list            list the variants (and whether this GPU runs them, when there is one)\n"
    "  --inputs-only     no GPU: write only the a_, b_, c_ files and labels of every set (for any\n"
    "                    emulator; no d_ file, since results come only from the hardware)\n"
    "  --check-layouts   host-only check that every fragment map is a bijection (no GPU needed)\n"
    "exit codes: 0 ok, 1 CUDA failure or a self-test mismatch, 2 bad options, 3 no CUDA device\n";

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep))
    if (!cur.empty()) out.push_back(cur);
  return out;
}

long parse_long(const std::string& opt, const std::string& v, long lo, long hi) {
  char* end = nullptr;
  errno = 0;
  long x = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno != 0 || x < lo || x > hi)
    fail(kExitInput, opt + ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                         "], got '" + v + "'");
  return x;
}

// ---- fragment-map self check (host only) ----------------------------------------------------
template <class T>
bool check_layout_of(const char* name) {
  bool ok = true;
  auto check = [&](Lay l, int ne, int rows, int cols, const char* what) {
    if (ne == 0) return;
    const int tiles = T::TPU;
    std::vector<int> hit(static_cast<size_t>(tiles) * rows * cols, 0);
    const int lanes = T::kWgmma ? 128 : 32;
    for (int lane = 0; lane < lanes; ++lane)
      for (int i = 0; i < ne; ++i) {
        const RC rc = frag_rc(l, lane, i);
        const int tile = T::TPU == 4 ? quad_pair(lane) : 0;
        if (rc.r < 0 || rc.r >= rows || rc.c < 0 || rc.c >= cols) {
          std::printf("  %s %s: lane %d element %d -> (%d,%d) out of range\n", name, what, lane, i, rc.r, rc.c);
          ok = false;
          continue;
        }
        ++hit[(static_cast<size_t>(tile) * rows + rc.r) * cols + rc.c];
      }
    for (size_t q = 0; q < hit.size(); ++q)
      if (hit[q] != 1) {
        std::printf("  %s %s: element %zu covered %d times\n", name, what, q, hit[q]);
        ok = false;
        break;
      }
  };
  check(T::LA, T::NA, T::M, T::K, "A");
  check(T::LB, T::NB, T::K, T::N, "B");
  check(T::LC, T::NC, T::M, T::N, "C/D");
  std::printf("%-34s %s\n", name, ok ? "bijection ok" : "FAILED");
  return ok;
}

int check_layouts() {
  bool ok = true;
  ok &= check_layout_of<Op884F16F16>("m8n8k4 f16 (f16 acc)");
  ok &= check_layout_of<Op884F16F32>("m8n8k4 f16 (f32 acc)");
  ok &= check_layout_of<Op1688F16F32>("m16n8k8 f16/bf16");
  ok &= check_layout_of<Op1688TF32F32>("m16n8k8 tf32");
  ok &= check_layout_of<Op16816F16F32>("m16n8k16 f16/bf16");
  ok &= check_layout_of<Op16832S8>("m16n8k32 s8/e4m3/e5m2");
  ok &= check_layout_of<Op8816S8>("m8n8k16 s8/u8");
  ok &= check_layout_of<Op8832S4>("m8n8k32 s4/u4");
  ok &= check_layout_of<Op884F64>("m8n8k4 f64");
  ok &= check_layout_of<WgF16F32>("wgmma m64n8 accumulator");
  return ok ? 0 : 1;
}

// ---- packing samples into tiles -----------------------------------------------------------------
// Sample j of a tile (j < min(m, n) = 8) is row j of A, column j of B and element (j, j) of C/D.
// Everything else is +0; the off-diagonal results are computed and discarded.
constexpr int kPerTile = 8;

TileBatch pack(const OpInfo& op, int chain, const std::vector<Sample>& s) {
  const int kt = op.k * chain;
  TileBatch tb;
  tb.chain = chain;
  int tiles = static_cast<int>((s.size() + kPerTile - 1) / kPerTile);
  tiles = std::max(tiles, 1);
  tiles = (tiles + op.tiles_per_warp - 1) / op.tiles_per_warp * op.tiles_per_warp;
  tb.tiles = tiles;
  const std::uint64_t zin = *encode(operand_encoding(op), 0.0), zacc = *encode(op.acc, 0.0);
  tb.a.assign(static_cast<size_t>(tiles) * op.m * kt, zin);
  tb.b.assign(static_cast<size_t>(tiles) * kt * op.n, zin);
  tb.c.assign(static_cast<size_t>(tiles) * op.m * op.n, zacc);
  for (size_t i = 0; i < s.size(); ++i) {
    const size_t t = i / kPerTile, j = i % kPerTile;
    for (int k = 0; k < kt; ++k) {
      tb.a[(t * op.m + j) * kt + k] = s[i].a[k];
      tb.b[(t * kt + k) * op.n + j] = s[i].b[k];
    }
    tb.c[(t * op.m + j) * op.n + j] = s[i].c;
  }
  return tb;
}

std::vector<std::uint64_t> unpack_d(const OpInfo& op, const TileBatch& tb, size_t count) {
  std::vector<std::uint64_t> d(count);
  for (size_t i = 0; i < count; ++i) {
    const size_t t = i / kPerTile, j = i % kPerTile;
    d[i] = tb.d[(t * op.m + j) * op.n + j];
  }
  return d;
}

// ---- self-test: small integers, exact in every format, checked on the whole tile --------------
enum class SelfTest { passed, failed, not_compiled };

SelfTest self_test(const OpInfo& op, bool swap, std::string& detail) {
  const int chain = 2, kt = op.k * chain;
  TileBatch tb;
  tb.chain = chain;
  tb.tiles = 8 * op.tiles_per_warp;
  std::mt19937_64 rng(7);
  const Fmt in = operand_encoding(op);
  const bool unsig = op.in == Fmt::u8 || op.in == Fmt::u4;
  auto small = [&](int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo + 1)); };
  std::vector<double> av, bv, cv;
  for (size_t i = 0; i < static_cast<size_t>(tb.tiles) * op.m * kt; ++i) {
    av.push_back(unsig ? small(0, 3) : small(-3, 3));
    if (sparse_dropped(op, static_cast<int>(i % static_cast<size_t>(kt)))) av.back() = 0;
    tb.a.push_back(*encode(in, av.back()));
  }
  for (size_t i = 0; i < static_cast<size_t>(tb.tiles) * kt * op.n; ++i) {
    bv.push_back(unsig ? small(0, 3) : small(-3, 3));
    tb.b.push_back(*encode(in, bv.back()));
  }
  for (size_t i = 0; i < static_cast<size_t>(tb.tiles) * op.m * op.n; ++i) {
    cv.push_back(small(-8, 8));
    tb.c.push_back(*encode(op.acc, cv.back()));
  }
  if (run_tiles(op, tb, swap) == RunStatus::not_compiled) return SelfTest::not_compiled;
  int bad = 0;
  for (int t = 0; t < tb.tiles; ++t)
    for (int i = 0; i < op.m; ++i)
      for (int j = 0; j < op.n; ++j) {
        double ref = cv[(static_cast<size_t>(t) * op.m + i) * op.n + j];
        for (int k = 0; k < kt; ++k)
          ref += av[(static_cast<size_t>(t) * op.m + i) * kt + k] * bv[(static_cast<size_t>(t) * kt + k) * op.n + j];
        const double got = decode(op.acc, tb.d[(static_cast<size_t>(t) * op.m + i) * op.n + j]);
        if (got != ref && bad++ < 3) {
          char buf[160];
          std::snprintf(buf, sizeof buf, " tile %d (%d,%d): expected %g got %g;", t, i, j, ref, got);
          detail += buf;
        }
      }
  if (bad) detail = std::to_string(bad) + " wrong elements:" + detail;
  return bad ? SelfTest::failed : SelfTest::passed;
}

// ---- writing a case directory -----------------------------------------------------------------
std::string hex_entry(Fmt f, std::uint64_t bits) {
  char buf[24];
  if (f == Fmt::f64) std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(bits));
  else std::snprintf(buf, sizeof buf, "%08x", widen_to_f32_bits(f, bits));
  return buf;
}

std::string bin_line(std::uint64_t bits, int n) {
  std::string s(n, '0');
  for (int i = 0; i < n; ++i)
    if ((bits >> (n - 1 - i)) & 1) s[i] = '1';
  return s + "\n";
}

// c and d as written: FP32 patterns (an FP16 value widened exactly), s32 two's complement, or
// (extension) 64-bit fp64 patterns.
std::uint64_t acc_file_bits(Fmt acc, std::uint64_t bits) {
  if (acc == Fmt::f16) return widen_to_f32_bits(Fmt::f16, bits);
  return bits;
}
int acc_file_width(Fmt acc) { return acc == Fmt::f64 ? 64 : 32; }
const char* c_file_fmt(Fmt acc) { return acc == Fmt::f16 ? "fp32" : fmt_name(acc); }

// meta.yaml `sparse_meta`: the 2:4 metadata nibble (tcsim mma batch reads it), "none" when dense.
std::string sparse_meta_text(const OpInfo& op) {
  if (op.sparse_meta == 0) return "none";
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%X", op.sparse_meta);
  return buf;
}

// 2:4 sparse variants: the A entries the metadata drops are +0 (the sets are generated dense).
void apply_sparsity(const OpInfo& op, std::vector<Sample>& s) {
  if (op.sparse_meta == 0) return;
  const std::uint64_t z = *encode(operand_encoding(op), 0.0);
  for (auto& x : s)
    for (size_t k = 0; k < x.a.size(); ++k)
      if (sparse_dropped(op, static_cast<int>(k))) x.a[k] = z;
}

struct RunContext {
  DeviceInfo dev;
  std::string gpu, out, command;
  std::uint64_t seed = 0;
};

// a_, b_, c_ files and labels.txt of one case; d adds the d_ file when given.
void write_inputs(const std::string& dir, const std::string& g, const OpInfo& op, int chain,
                  const std::vector<Sample>& s, const std::vector<std::uint64_t>* d = nullptr) {
  make_dirs(dir);
  const int kt = op.k * chain;
  std::string a, b, c, dd, labels;
  for (size_t i = 0; i < s.size(); ++i) {
    for (int k = 0; k < kt; ++k) {
      a += hex_entry(op.in, s[i].a[k]) + " ";
      b += hex_entry(op.in, s[i].b[k]) + " ";
    }
    a += "\n";
    b += "\n";
    c += bin_line(acc_file_bits(op.acc, s[i].c), acc_file_width(op.acc));
    if (d) dd += bin_line(acc_file_bits(op.acc, (*d)[i]), acc_file_width(op.acc));
    labels += s[i].label + "\n";
  }
  const std::string f = fmt_name(op.in);
  write_file_atomic(dir + "/a_" + g + "_" + f + ".txt", a);
  write_file_atomic(dir + "/b_" + g + "_" + f + ".txt", b);
  write_file_atomic(dir + "/c_" + g + "_" + c_file_fmt(op.acc) + ".txt", c);
  if (d) write_file_atomic(dir + "/d_" + g + "_" + fmt_name(op.acc) + ".txt", dd);
  write_file_atomic(dir + "/labels.txt", labels);
}

void write_case(const RunContext& ctx, const OpInfo& op, int chain, const std::string& case_name,
                const std::string& set, const std::vector<Sample>& s, const std::vector<std::uint64_t>& d,
                bool swapped, const std::vector<std::pair<std::string, std::string>>& more) {
  const std::string dir = ctx.out + "/" + ctx.gpu + "/" + case_name;
  write_inputs(dir, ctx.gpu, op, chain, s, &d);
  const int kt = op.k * chain;
  std::vector<std::pair<std::string, std::string>> m = {
      {"instruction", op.instruction},
      {"ptx", yaml_quote(op.ptx)},
      {"input_format", fmt_name(op.in)},
      {"accumulator_format", fmt_name(op.acc)},
      {"satfinite", op.satfinite ? "true" : "false"},
      {"k", std::to_string(kt) + "   # products per sample line"},
      {"sparse_meta", sparse_meta_text(op)},
      {"instruction_k", std::to_string(op.k)},
      {"chain", std::to_string(chain) + "   # instructions chained through the accumulator, k ascending"},
      {"samples", std::to_string(s.size())},
      {"case_set", set},
      {"seed", std::to_string(ctx.seed)},
      {"mapping", yaml_quote("sample j of each group of 8 = row j of A, column j of B, element (j,j) of C/D; "
                             "line entry k = column k of A / row k of B; all other elements +0")},
  };
  if (op.wgmma) m.push_back({"wgmma_descriptor", swapped ? "\"no swizzle, K-major, LBO=256 SBO=128 (swapped)\""
                                                         : "\"no swizzle, K-major, LBO=128 SBO=256\""});
  if (op.in == Fmt::tf32) m.push_back({"operand_note", "\"a/b hold the raw FP32 patterns fed to the instruction\""});
  if (op.in == Fmt::f64) m.push_back({"file_extension", "\"fp64: a/b 16 hex digits, c/d 64-char binary\""});
  for (const auto& kv : more) m.push_back(kv);
  m.push_back({"self_test", "passed"});
  write_file_atomic(dir + "/meta.yaml", meta_yaml(ctx.dev, ctx.command, m));
}

std::vector<std::uint64_t> run_samples(const OpInfo& op, int chain, const std::vector<Sample>& s, bool swap) {
  TileBatch tb = pack(op, chain, s);
  if (run_tiles(op, tb, swap) != RunStatus::ok) fail(kExitCuda, std::string("internal: ") + op.key + " vanished");
  return unpack_d(op, tb, s.size());
}

// ---- --input: a tc-golden-layout directory through one variant -------------------------------
std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (!d) fail(kExitInput, "--input " + dir + ": cannot open the directory");
  while (dirent* e = readdir(d)) names.push_back(e->d_name);
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream f(path);
  if (!f) fail(kExitInput, path + ": cannot read");
  std::vector<std::string> lines;
  std::string l;
  while (std::getline(f, l)) {
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.pop_back();
    if (!l.empty()) lines.push_back(l);
  }
  return lines;
}

std::vector<Sample> read_input_dir(const OpInfo& op, int chain, const std::string& dir, std::string& note) {
  std::string a_name, c_name;
  for (const auto& n : list_dir(dir)) {
    if (n.rfind("a_", 0) == 0 && n.size() > 6 && n.substr(n.size() - 4) == ".txt") {
      if (!a_name.empty()) fail(kExitInput, dir + ": more than one a_*.txt file");
      a_name = n;
    }
    if (n.rfind("c_", 0) == 0 && n.size() > 6 && n.substr(n.size() - 4) == ".txt") c_name = n;
  }
  if (a_name.empty() || c_name.empty()) fail(kExitInput, dir + ": expected a_<GPU>_<fmt>.txt, b_... and c_... files");
  const std::string fmt = a_name.substr(a_name.rfind('_') + 1, a_name.size() - a_name.rfind('_') - 5);
  if (fmt != fmt_name(op.in))
    fail(kExitInput, dir + "/" + a_name + ": input format " + fmt + " does not match variant " + op.key);
  const std::string b_name = "b_" + a_name.substr(2);
  const auto al = read_lines(dir + "/" + a_name), bl = read_lines(dir + "/" + b_name), cl = read_lines(dir + "/" + c_name);
  if (al.size() != bl.size() || al.size() != cl.size())
    fail(kExitInput, dir + ": a, b and c files have different line counts");
  const int kt = op.k * chain;
  const Fmt in = operand_encoding(op);
  const bool c_is_s32 = c_name.find("_s32.") != std::string::npos;
  std::vector<Sample> out;
  for (size_t i = 0; i < al.size(); ++i) {
    Sample s;
    s.a.assign(kt, *encode(in, 0.0));
    s.b.assign(kt, *encode(in, 0.0));
    for (int which = 0; which < 2; ++which) {
      std::istringstream ls(which ? bl[i] : al[i]);
      std::string tok;
      int k = 0;
      while (ls >> tok) {
        const std::string where = dir + "/" + (which ? b_name : a_name) + ":" + std::to_string(i + 1);
        if (k >= kt) fail(kExitInput, where + ": more than K = " + std::to_string(kt) + " entries (use --chains)");
        char* end = nullptr;
        const unsigned long v = std::strtoul(tok.c_str(), &end, 16);
        if (tok.size() != 8 || *end != '\0') fail(kExitInput, where + ": expected 8 hex digits, got '" + tok + "'");
        auto e = narrow_from_f32_bits(op.in == Fmt::tf32 ? Fmt::f32 : op.in, static_cast<std::uint32_t>(v));
        if (!e) fail(kExitInput, where + ": " + tok + " is not a " + fmt_name(op.in) + " value");
        (which ? s.b : s.a)[k++] = *e;
      }
    }
    const std::string& cb = cl[i];
    const std::string where = dir + "/" + c_name + ":" + std::to_string(i + 1);
    if (cb.size() != 32 || cb.find_first_not_of("01") != std::string::npos)
      fail(kExitInput, where + ": expected a 32-character binary string");
    const std::uint32_t bits = static_cast<std::uint32_t>(std::stoul(cb, nullptr, 2));
    if (op.acc == Fmt::s32) {
      if (!c_is_s32) fail(kExitInput, where + ": an integer variant needs a c_<GPU>_s32.txt file");
      s.c = bits;
    } else if (op.acc == Fmt::f32) {
      s.c = bits;
    } else if (op.acc == Fmt::f16) {
      // as the tc-golden harness did: FP32 c rounded to FP16 (RNE) before the MMA
      const __half h = __float2half_rn(f32_from_bits(bits));
      std::uint16_t hb;
      std::memcpy(&hb, &h, 2);
      s.c = hb;
      note = "c rounded from FP32 to FP16 (RNE) before the MMA; c file holds the FP16 value used";
    } else {
      fail(kExitInput, std::string(op.key) + ": --input is not supported for this variant");
    }
    s.label = "input line " + std::to_string(i + 1);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  set_tool_name("mma_probe");
  std::string out, ops_arg = "all", sets_arg, chains_arg = "1,2", gpu_name, input;
  int samples = 1000, device = 0;
  long timeout = 900;
  std::uint64_t seed = 20261122;
  bool list = false, inputs_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) fail(kExitInput, a + ": expected a value");
      return argv[++i];
    };
    if (a == "--out") out = val();
    else if (a == "--ops") ops_arg = val();
    else if (a == "--sets") sets_arg = val();
    else if (a == "--chains") chains_arg = val();
    else if (a == "--samples") samples = static_cast<int>(parse_long(a, val(), 1, 10000000));
    else if (a == "--seed") seed = static_cast<std::uint64_t>(parse_long(a, val(), 0, 1L << 62));
    else if (a == "--gpu-name") gpu_name = val();
    else if (a == "--device") device = static_cast<int>(parse_long(a, val(), 0, 64));
    else if (a == "--timeout") timeout = parse_long(a, val(), 0, 86400);
    else if (a == "--input") input = val();
    else if (a == "--list") list = true;
    else if (a == "--inputs-only") inputs_only = true;
    else if (a == "--check-layouts") return check_layouts();
    else if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else {
      std::fputs(kUsage, stderr);
      fail(kExitInput, "unknown option '" + a + "'");
    }
  }
  if (!list && out.empty()) {
    std::fputs(kUsage, stderr);
    fail(kExitInput, "--out: required");
  }
  std::vector<int> chains;
  for (const auto& c : split(chains_arg, ',')) {
    const int ch = static_cast<int>(parse_long("--chains", c, 1, 8));
    if (ch != 1 && ch != 2 && ch != 4 && ch != 8) fail(kExitInput, "--chains: each entry must be 1, 2, 4 or 8");
    chains.push_back(ch);
  }
  if (chains.empty()) fail(kExitInput, "--chains: expected at least one chain length");
  const std::vector<std::string> all_sets = {"random_bits", "random_normal", "adversarial", "specials", "discriminating"};
  std::vector<std::string> sets = sets_arg.empty() ? all_sets : split(sets_arg, ',');
  for (const auto& s : sets)
    if (std::find(all_sets.begin(), all_sets.end(), s) == all_sets.end())
      fail(kExitInput, "--sets: unknown set '" + s + "' (expected one of random_bits, random_normal, adversarial, "
                       "specials, discriminating)");
  std::vector<const OpInfo*> ops;
  const auto wanted = split(ops_arg, ',');
  for (const auto& w : wanted) {
    bool any = false;
    for (const auto& op : all_ops())
      if (w == "all" || std::string(op.key).rfind(w, 0) == 0) {
        if (std::find(ops.begin(), ops.end(), &op) == ops.end()) ops.push_back(&op);
        any = true;
      }
    if (!any) fail(kExitInput, "--ops: no variant matches '" + w + "' (see mma_probe --list)");
  }

  if (list) {
    int count = 0;
    const bool have = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
    int cc = 0;
    if (have) {
      const DeviceInfo dev = open_device(device);
      cc = dev.cc();
      std::printf("mma_probe: %s (%s)\n", dev.name.c_str(), dev.arch().c_str());
    } else {
      std::printf("mma_probe: no CUDA device here; listing every variant\n");
    }
    for (const auto& op : all_ops()) {
      const std::string need = op.wgmma ? "needs sm_90" : "needs sm_" + std::to_string(op.min_cc);
      std::printf("%-34s %-16s %-62s %s\n", op.key, op.instruction, op.ptx,
                  !have ? need.c_str() : op_runs_on(op, cc) ? "runs here" : need.c_str());
    }
    return 0;
  }
  if (inputs_only) {
    if (!input.empty()) fail(kExitInput, "--inputs-only and --input exclude each other");
    const std::string gpu = gpu_name.empty() ? "GPU" : gpu_name;
    int written = 0;
    for (const OpInfo* op : ops)
      for (int chain : chains) {
        if (op->wgmma && chain * (2048 + 256) > 48 * 1024) continue;
        const auto applicable = set_names_for(*op);
        for (size_t si = 0; si < sets.size(); ++si) {
          const std::string& set = sets[si];
          if (std::find(applicable.begin(), applicable.end(), set) == applicable.end()) continue;
          if (chain > 1 && set != "random_normal" && set != "discriminating" && !(fmt_is_int(op->in) && set == "random_bits"))
            continue;
          SetSpec spec{set, samples, seed + 1000003ULL * (si + 1) + 7919ULL * static_cast<unsigned>(chain)};
          for (const char* p = op->key; *p; ++p) spec.seed = spec.seed * 131 + static_cast<unsigned char>(*p);
          auto smp = make_set(*op, chain, spec);
          apply_sparsity(*op, smp);
          if (smp.empty()) continue;
          const std::string dir = out + "/" + gpu + "/" + op->key + (chain > 1 ? "__chain" + std::to_string(chain) : "") +
                                  "__" + set;
          write_inputs(dir, gpu, *op, chain, smp);
          std::string meta = "# probe inputs written by mma_probe --inputs-only (no GPU; no results)\n";
          meta += std::string("instruction: ") + op->instruction + "\nptx: " + yaml_quote(op->ptx) +
                  "\ninput_format: " + fmt_name(op->in) + "\naccumulator_format: " + fmt_name(op->acc) +
                  "\nsatfinite: " + (op->satfinite ? "true" : "false") + "\nsparse_meta: " + sparse_meta_text(*op) + "\nk: " + std::to_string(op->k * chain) +
                  "\ninstruction_k: " + std::to_string(op->k) + "\nchain: " + std::to_string(chain) +
                  "\nsamples: " + std::to_string(smp.size()) + "\ncase_set: " + set + "\nseed: " +
                  std::to_string(seed) + "\ncommand_line: " + yaml_quote(command_line(argc, argv)) + "\n";
          write_file_atomic(dir + "/meta.yaml", meta);
          ++written;
        }
      }
    std::printf("mma_probe: %d input directories written under %s/%s\n", written, out.c_str(), gpu.c_str());
    return 0;
  }
  if (!input.empty()) {  // bad input is reported before the device is touched
    if (ops.size() != 1) fail(kExitInput, "--input needs exactly one variant in --ops");
    list_dir(input);
  }
  start_watchdog(static_cast<unsigned>(timeout));
  RunContext ctx;
  ctx.dev = open_device(device);
  ctx.gpu = gpu_name.empty() ? ctx.dev.short_name : gpu_name;
  ctx.out = out;
  ctx.command = command_line(argc, argv);
  ctx.seed = seed;
  const int cc = ctx.dev.cc();
  std::printf("mma_probe: %s (%s, %d SMs), CUDA runtime %s, driver %s\n", ctx.dev.name.c_str(),
              ctx.dev.arch().c_str(), ctx.dev.sm_count, version_text(ctx.dev.runtime_version).c_str(),
              ctx.dev.nvidia_driver.c_str());

  std::string status_yaml = "# mma_probe status per variant (written by mma_probe)\nvariants:\n";
  int failures = 0, cases = 0;
  for (const OpInfo* op : ops) {
    status_yaml += std::string("  ") + op->key + ": ";
    if (!op_runs_on(*op, cc)) {
      const std::string why = op->wgmma ? "needs sm_90 (wgmma)" : "needs sm_" + std::to_string(op->min_cc);
      std::printf("%-34s skipped: %s\n", op->key, why.c_str());
      status_yaml += yaml_quote("skipped: " + why) + "\n";
      continue;
    }
    std::string detail;
    bool swap = false;
    SelfTest st = self_test(*op, false, detail);
    if (st == SelfTest::failed && op->wgmma) {
      std::string d2;
      if (self_test(*op, true, d2) == SelfTest::passed) {
        swap = true;
        st = SelfTest::passed;
        std::printf("%-34s note: the documented descriptor failed the self-test, swapped LBO/SBO passed\n", op->key);
      }
    }
    if (st == SelfTest::not_compiled) {
      std::printf("%-34s skipped: not compiled for %s in this binary\n", op->key, ctx.dev.arch().c_str());
      status_yaml += yaml_quote("skipped: not compiled for " + ctx.dev.arch()) + "\n";
      continue;
    }
    if (st == SelfTest::failed) {
      std::printf("%-34s SELF-TEST FAILED: %s\n", op->key, detail.c_str());
      status_yaml += yaml_quote("self-test failed: " + detail) + "\n";
      ++failures;
      continue;
    }
    int op_cases = 0;
    if (!input.empty()) {
      std::string note;
      const int chain = chains.front();
      auto s = read_input_dir(*op, chain, input, note);
      auto d = run_samples(*op, chain, s, swap);
      std::string base = input;
      while (!base.empty() && base.back() == '/') base.pop_back();
      base = base.substr(base.rfind('/') + 1);
      std::vector<std::pair<std::string, std::string>> more = {{"input_dir", yaml_quote(input)}};
      if (!note.empty()) more.push_back({"c_note", yaml_quote(note)});
      write_case(ctx, *op, chain, std::string(op->key) + "__input_" + base, "input", s, d, swap, more);
      ++op_cases;
    } else {
      for (int chain : chains) {
        if (op->wgmma && chain * (2048 + 256) > 48 * 1024) continue;
        const auto applicable = set_names_for(*op);
        for (size_t si = 0; si < sets.size(); ++si) {
          const std::string& set = sets[si];
          if (std::find(applicable.begin(), applicable.end(), set) == applicable.end()) continue;
          if (chain > 1 && set != "random_normal" && set != "discriminating" &&
              !(fmt_is_int(op->in) && set == "random_bits"))
            continue;
          SetSpec spec{set, samples, seed + 1000003ULL * (si + 1) + 7919ULL * static_cast<unsigned>(chain)};
          for (const char* p = op->key; *p; ++p) spec.seed = spec.seed * 131 + static_cast<unsigned char>(*p);
          auto s = make_set(*op, chain, spec);
          apply_sparsity(*op, s);
          if (s.empty()) continue;
          auto d = run_samples(*op, chain, s, swap);
          const std::string name =
              std::string(op->key) + (chain > 1 ? "__chain" + std::to_string(chain) : "") + "__" + set;
          write_case(ctx, *op, chain, name, set, s, d, swap, {});
          ++op_cases;
        }
      }
    }
    cases += op_cases;
    std::printf("%-34s self-test passed, %d case directories written\n", op->key, op_cases);
    status_yaml += std::string("\"ok: ") + std::to_string(op_cases) + " cases\"\n";
  }
  make_dirs(ctx.out + "/" + ctx.gpu);
  write_file_atomic(ctx.out + "/" + ctx.gpu + "/probe_status.yaml", status_yaml);
  std::printf("mma_probe: %d case directories under %s/%s, %d variant(s) failed the self-test\n", cases,
              ctx.out.c_str(), ctx.gpu.c_str(), failures);
  return failures ? kExitCuda : 0;
}
