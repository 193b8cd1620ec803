#include "numerics/mma/arch.h"

#include <cctype>
#include <sstream>
#include <utility>
#include <stdexcept>

#include "common/error.h"
#include "common/text/strings.h"

namespace tcsim::num {
namespace {
using Fmt = FormatId;

// Section 1 parameters per architecture (fp16/bf16/tf32). Sources: spec numerics.md section 1 for
// sm_70..sm_90; for the newer ones the Khattak-Mikaitis models (north-numerical-computing/
// MATLAB-tensor-core, F = 23 + neab, L = fma): sm_86 A2TC.m calls A100TC.m (neab = 1, fma = 8,
// tf32 fma = 4); sm_89 AdaTC.m and L40STC.m (neab = 1, fma = 8, tf32 fma = 4); sm_100 B200TC.m
// (neab = 2, fma = 16, tf32 fma = 8); sm_120 RTXPRO6000TC.m calls B200TC.m.
struct ArchParams {
  int F;           // fraction bits kept (fp16/bf16/tf32)
  int L_f16;       // block length, fp16/bf16
  int L_tf32;      // block length, tf32
};
ArchParams arch_params(Arch a) {
  switch (a) {
    case Arch::sm70: return {23, 4, 0};
    case Arch::sm75: return {24, 8, 0};
    case Arch::sm80:
    case Arch::sm86:
    case Arch::sm89: return {24, 8, 4};
    case Arch::sm90:
    case Arch::sm100:
    case Arch::sm120: return {25, 16, 8};
  }
  return {24, 8, 4};
}

// FP8 (e4m3/e5m2) block parameters and result modes.
//   sm_89: AdaTC.m / L40STC.m fp8: fma = 16, neab = -10 -> L = 16, F = 13; GEMM.m lowers the FP32
//          output to 23 + neab = 13 fraction bits (e8m13, RZ); frmode 'rne' for an fp16 output.
//   sm_90: H100TC.m fp8: fma = 32, neab = -10 -> L = 32, F = 13, e8m13 (spec section 1, the
//          MMA-Sim wgmma model, DeepSeek-V3's "about 14 bits").
//   sm_100/sm_120: B200TC.m fp8 keeps neab = 2 and fma = 32 -> L = 32, F = 25, plain RZ FP32 (MMA-Sim
//          Table 8 has -0.75 for Blackwell fp8 in the Eq. 10 probe, i.e. F = 25, spec 4.2); an
//          .f16 accumulator is computed as FP32 (B200TC.m sets outformat = 'fp32') then rounded
//          to FP16: OutMode::rz_fp32_rne_fp16 (MmaOptions::fp8_f16_rule selects the PTX reading).
// e_zero = -133 for every FP8 variant (MMA-Sim, spec section 1 notes).
struct Fp8Params {
  int F = 0, L = 0;
  OutMode out_f32 = OutMode::rz_e8m13, out_f16 = OutMode::rne_fp16;
};
Fp8Params fp8_params(Arch a) {
  switch (a) {
    case Arch::sm89: return {13, 16, OutMode::rz_e8m13, OutMode::rne_fp16};
    case Arch::sm90: return {13, 32, OutMode::rz_e8m13, OutMode::rne_fp16};
    case Arch::sm100:
    case Arch::sm120: return {25, 32, OutMode::rz_fp32, OutMode::rz_fp32_rne_fp16};
    default: return {};
  }
}

bool async_family(InstrFamily f) { return f == InstrFamily::wgmma || f == InstrFamily::tcgen05; }

int e_zero_for(Arch a, int F, FormatId acc, bool async) {
  // -108-F for FP32 accumulation, 3-F for FP16 accumulation in mma.sync, -133 for wgmma fp16
  // accumulate (spec section 1 notes); tcgen05 is taken to behave as wgmma (no source measured it).
  if (acc == Fmt::fp32) return -108 - F;
  // sm_90, FP16 accumulation, mma.sync and wgmma alike: -21 = 4-F, measured on an H100
  // (validation/measured/H100/mma, the spec's section 8 item 1 probe a = (2^-11, 2^x),
  // b = (2^-14, 2^-24), c = 0: 2^-24 down to x = -22, +0 from x = -23). That is the
  // Khattak-Mikaitis clamp (H100TC.m); MMA-Sim's -22 (mma.sync) and -133 (wgmma) would keep the
  // 2^x product down to x = -23 and below. The other architectures keep the spec's values
  // (unmeasured here; H100 disagreeing with MMA-Sim by one makes them doubtful by one too).
  if (a == Arch::sm90) return 4 - F;
  return async ? -133 : 3 - F;
}

bool is_fp8(FormatId f) { return f == Fmt::e4m3 || f == Fmt::e5m2; }

struct Builder {
  Arch arch;
  std::vector<Instruction> out;
  bool sparse = false;  // set while adding mma.sp variants

  Instruction base(InstrFamily fam, std::string name, int m, int n, int k) const {
    Instruction i;
    i.arch = arch;
    i.family = fam;
    i.name = std::move(name);
    i.m = m;
    i.n = n;
    i.k = k;
    i.sparse = sparse;
    return i;
  }
  // A float T-FDPA instruction (fp16/bf16/tf32 with the architecture's rules).
  void fdpa(InstrFamily fam, const std::string& name, int m, int n, int k, FormatId a, FormatId b,
            FormatId acc, int F, int L, std::string note = "") {
    Instruction i = base(fam, name, m, n, k);
    i.a_fmt = a;
    i.b_fmt = b;
    i.acc_fmt = acc;
    i.F = F;
    i.L = L > i.kept() ? i.kept() : L;
    i.dense_L = sparse ? (L > k ? k : L) : 0;
    if (is_fp8(a) && arch == Arch::sm90 && fam == InstrFamily::mma) {
      // sm_90 has no FP8 mma.sync datapath (only wgmma's): ptxas lowers mma.m16n8k32 (and the sparse
      // mma.sp.m16n8k64) to two f16 HMMA.16816 (HMMA.SP.16832) and an FADD/HADD2
      // (Lowering::fp8_via_hmma_f16): the f16 instruction's F, L and e_zero.
      const ArchParams h = arch_params(arch);
      i.lowering = Lowering::fp8_via_hmma_f16;
      i.F = h.F;
      i.L = h.L_f16;
      i.dense_L = sparse ? 2 * h.L_f16 : 0;
      i.e_zero = e_zero_for(arch, h.F, acc, false);
      i.out_mode = acc == Fmt::fp16 ? OutMode::rne_fp16 : OutMode::rz_fp32;
      note = "ptxas: fp8 -> f16, HMMA.16816 (k mod 4 in 0,1; zero acc) + HMMA.16816 (k mod 4 in 2,3), "
             "then FADD/HADD2 with c (RNE); measured on H100";
    } else if (is_fp8(a)) {
      const Fp8Params p = fp8_params(arch);
      i.F = p.F;
      i.L = p.L > i.kept() ? i.kept() : p.L;
      i.dense_L = sparse ? (p.L > k ? k : p.L) : 0;
      i.e_zero = -133;
      i.out_mode = acc == Fmt::fp16 ? p.out_f16 : p.out_f32;
    } else {
      i.e_zero = e_zero_for(arch, F, acc, async_family(fam));
      i.out_mode = acc == Fmt::fp16 ? OutMode::rne_fp16 : OutMode::rz_fp32;
    }
    i.tf32_truncate = a == Fmt::tf32;
    i.note = std::move(note);
    out.push_back(std::move(i));
  }
  void f16_both(InstrFamily fam, const std::string& name, int m, int n, int k, int F, int L,
                const std::string& note = "") {
    fdpa(fam, name, m, n, k, Fmt::fp16, Fmt::fp16, Fmt::fp32, F, L, note);
    fdpa(fam, name, m, n, k, Fmt::fp16, Fmt::fp16, Fmt::fp16, F, L, note);
  }
  // fp16 (both accumulators) and bf16 (fp32 accumulator).
  void half_types(InstrFamily fam, const std::string& name, int m, int n, int k, int F, int L,
                  const std::string& note = "") {
    f16_both(fam, name, m, n, k, F, L, note);
    fdpa(fam, name, m, n, k, Fmt::bf16, Fmt::bf16, Fmt::fp32, F, L, note);
  }
  // Every e4m3/e5m2 mix with an fp32 and an fp16 accumulator.
  void fp8(InstrFamily fam, const std::string& name, int m, int n, int k, const std::string& note = "") {
    for (FormatId acc : {Fmt::fp32, Fmt::fp16})
      for (FormatId x : {Fmt::e4m3, Fmt::e5m2})
        for (FormatId y : {Fmt::e4m3, Fmt::e5m2}) fdpa(fam, name, m, n, k, x, y, acc, 0, 0, note);
  }
  void integer(InstrFamily fam, const std::string& name, int m, int n, int k, bool four_bit) {
    const FormatId s = four_bit ? Fmt::int4 : Fmt::int8, u = four_bit ? Fmt::uint4 : Fmt::uint8;
    for (FormatId a : {s, u})
      for (FormatId b : {s, u}) {
        Instruction i = base(fam, name, m, n, k);
        i.a_fmt = a;
        i.b_fmt = b;
        i.acc_fmt = Fmt::int32;
        i.L = i.kept();
        i.out_mode = OutMode::int32_exact;
        out.push_back(std::move(i));
      }
  }
  // 1-bit MMA: "mma.m8n8k128.xor.popc" etc. (PTX: .xor.popc from sm_75, .and.popc from sm_80).
  void binary(const std::string& shape, int m, int n, int k, BitOp op) {
    Instruction i = base(InstrFamily::mma, "mma." + shape + (op == BitOp::xor_popc ? ".xor.popc" : ".and.popc"), m, n, k);
    i.a_fmt = i.b_fmt = Fmt::b1;
    i.acc_fmt = Fmt::int32;
    i.L = k;
    i.out_mode = OutMode::int32_exact;
    i.bit_op = op;
    i.note = op == BitOp::xor_popc ? "d = c + popc(a XOR b), exact" : "d = c + popc(a AND b), exact";
    out.push_back(std::move(i));
  }
  // mma.m8n8k4 f16 on sm_90: run on the CUDA cores (Lowering::ffma_chain).
  void sm90_m8n8k4_f16() {
    for (FormatId acc : {Fmt::fp32, Fmt::fp16}) {
      Instruction i = base(InstrFamily::mma, "mma.m8n8k4", 8, 8, 4);
      i.a_fmt = i.b_fmt = Fmt::fp16;
      i.acc_fmt = acc;
      i.L = 4;
      i.out_mode = acc == Fmt::fp16 ? OutMode::rne_fp16 : OutMode::rz_fp32;
      i.lowering = Lowering::ffma_chain;
      i.note = "ptxas: FP32 FFMA/FADD on the CUDA cores (RNE), no tensor core; measured on H100";
      out.push_back(std::move(i));
    }
  }
  void dmma() {
    Instruction i = base(InstrFamily::mma, "mma.m8n8k4", 8, 8, 4);
    i.a_fmt = i.b_fmt = i.acc_fmt = Fmt::fp64;
    i.L = 1;
    i.out_mode = OutMode::fp64_fma;
    i.note = "chain of 4 IEEE fp64 FMAs (RNE) in increasing k";
    out.push_back(std::move(i));
  }
};

bool at_least(Arch a, Arch b) { return static_cast<int>(a) >= static_cast<int>(b); }

std::vector<Instruction> build(Arch a) {
  Builder b{a, {}};
  const ArchParams p = arch_params(a);
  const auto mma = InstrFamily::mma, wmma = InstrFamily::wmma, wgmma = InstrFamily::wgmma,
             tc5 = InstrFamily::tcgen05;
  switch (a) {
    case Arch::sm70:
      b.f16_both(mma, "mma.m8n8k4", 8, 8, 4, p.F, 4);
      b.f16_both(wmma, "wmma.m16n16k16", 16, 16, 16, p.F, 4, "chain of 4 m8n8k4 blocks (HMMA.884)");
      return b.out;
    case Arch::sm75:
      b.f16_both(mma, "mma.m16n8k8", 16, 8, 8, p.F, 8);
      b.f16_both(wmma, "wmma.m16n16k16", 16, 16, 16, p.F, 8, "2 chained m16n8k8 (HMMA.1688)");
      b.integer(mma, "mma.m8n8k16", 8, 8, 16, false);
      b.integer(mma, "mma.m8n8k32", 8, 8, 32, true);
      b.binary("m8n8k128", 8, 8, 128, BitOp::xor_popc);
      return b.out;
    default: break;
  }
  // sm_80 and later: the mma.sync / wmma set of Ampere (PTX ISA: every shape below exists from
  // sm_80 on), with the architecture's F and L.
  const bool L16 = p.L_f16 == 16;
  const std::string note16 = L16 ? "one block of 16" : "2 blocks of 8 (HMMA.16816)";
  b.half_types(mma, "mma.m16n8k16", 16, 8, 16, p.F, p.L_f16, note16);
  b.half_types(mma, "mma.m16n8k8", 16, 8, 8, p.F, p.L_f16);
  b.fdpa(mma, "mma.m16n8k8", 16, 8, 8, Fmt::tf32, Fmt::tf32, Fmt::fp32, p.F, p.L_tf32,
         p.L_tf32 == 8 ? "one block of 8" : "2 blocks of 4");
  b.fdpa(mma, "mma.m16n8k4", 16, 8, 4, Fmt::tf32, Fmt::tf32, Fmt::fp32, p.F, p.L_tf32);
  b.half_types(wmma, "wmma.m16n16k16", 16, 16, 16, p.F, p.L_f16, note16);
  b.fdpa(wmma, "wmma.m16n16k8", 16, 16, 8, Fmt::tf32, Fmt::tf32, Fmt::fp32, p.F, p.L_tf32);
  b.integer(mma, "mma.m16n8k32", 16, 8, 32, false);
  b.integer(mma, "mma.m16n8k16", 16, 8, 16, false);
  b.integer(mma, "mma.m8n8k16", 8, 8, 16, false);
  b.integer(mma, "mma.m8n8k32", 8, 8, 32, true);
  b.integer(mma, "mma.m16n8k32", 16, 8, 32, true);
  b.integer(mma, "mma.m16n8k64", 16, 8, 64, true);
  for (BitOp op : {BitOp::and_popc, BitOp::xor_popc}) {
    b.binary("m8n8k128", 8, 8, 128, op);
    b.binary("m16n8k128", 16, 8, 128, op);
    b.binary("m16n8k256", 16, 8, 256, op);
  }
  b.dmma();
  // FP8 mma.sync m16n8k32 (PTX ISA: sm_89 and later; kind::f8f6f4 on sm_120).
  if (at_least(a, Arch::sm89)) b.fp8(mma, "mma.m16n8k32", 16, 8, 32);
  // 2:4 sparse mma.sp (sm_80 and later): L counts kept products (sparse.h states the rule).
  b.sparse = true;
  b.half_types(mma, "mma.sp.m16n8k16", 16, 8, 16, p.F, p.L_f16);
  b.half_types(mma, "mma.sp.m16n8k32", 16, 8, 32, p.F, p.L_f16);
  b.integer(mma, "mma.sp.m16n8k32", 16, 8, 32, false);
  b.integer(mma, "mma.sp.m16n8k64", 16, 8, 64, false);
  b.integer(mma, "mma.sp.m16n8k64", 16, 8, 64, true);
  b.integer(mma, "mma.sp.m16n8k128", 16, 8, 128, true);
  if (at_least(a, Arch::sm89)) b.fp8(mma, "mma.sp.m16n8k64", 16, 8, 64);
  b.sparse = false;
  if (a == Arch::sm90) {
    b.sm90_m8n8k4_f16();
    b.half_types(wgmma, "wgmma.m64nNk16", 64, 0, 16, p.F, 16);
    b.fdpa(wgmma, "wgmma.m64nNk8", 64, 0, 8, Fmt::tf32, Fmt::tf32, Fmt::fp32, p.F, 8);
    b.fp8(wgmma, "wgmma.m64nNk32", 64, 0, 32, "F = 13, FP32 result cut to 13 fraction bits (RZ)");
    b.integer(wgmma, "wgmma.m64nNk32", 64, 0, 32, false);
  }
  if (a == Arch::sm100) {
    // tcgen05.mma (PTX ISA 8.6, sm_100a): K per instruction 16 (kind::f16), 8 (kind::tf32),
    // 32 (kind::f8f6f4, kind::i8); M 64/128, any N. Numerics: B200TC.m as for mma.sync.
    b.half_types(tc5, "tcgen05.mma.kind::f16", 128, 0, 16, p.F, 16);
    b.fdpa(tc5, "tcgen05.mma.kind::tf32", 128, 0, 8, Fmt::tf32, Fmt::tf32, Fmt::fp32, p.F, 8);
    b.fp8(tc5, "tcgen05.mma.kind::f8f6f4", 128, 0, 32);
    b.integer(tc5, "tcgen05.mma.kind::i8", 128, 0, 32, false);
  }
  return b.out;
}

const char* ptx_type(FormatId f) {
  switch (f) {
    case Fmt::fp64: return "f64";
    case Fmt::fp32: return "f32";
    case Fmt::tf32: return "tf32";
    case Fmt::bf16: return "bf16";
    case Fmt::fp16: return "f16";
    case Fmt::e4m3: return "e4m3";
    case Fmt::e5m2: return "e5m2";
    case Fmt::int32: return "s32";
    case Fmt::int8: return "s8";
    case Fmt::uint8: return "u8";
    case Fmt::int4: return "s4";
    case Fmt::uint4: return "u4";
    case Fmt::b1: return "b1";
  }
  return "?";
}

// "mma.m16n8k16" from "m16n8k16"; "wgmma.m64nNk16" from "wgmma.m64n128k16" (sets n_out).
std::string canonical_name(std::string_view name_in, int& n_out) {
  std::string name = to_lower(trim(name_in));
  n_out = 0;
  if (name.size() > 1 && name[0] == 'm' && name[1] >= '0' && name[1] <= '9') name = "mma." + name;
  const std::string wg = "wgmma.m64n";
  if (name.rfind(wg, 0) == 0) {
    const std::size_t kpos = name.find('k', wg.size());
    if (kpos != std::string::npos) {
      const std::string nstr = name.substr(wg.size(), kpos - wg.size());
      if (nstr != "n" && !nstr.empty() && nstr.find_first_not_of("0123456789") == std::string::npos &&
          nstr.size() < 5) {
        n_out = std::stoi(nstr);
        name = wg + "N" + name.substr(kpos);
      } else if (nstr == "n") {
        name = wg + "N" + name.substr(kpos);
      }
    }
  }
  return name;
}
}  // namespace

std::string_view lowering_name(Lowering l) {
  switch (l) {
    case Lowering::none: return "none";
    case Lowering::fp8_via_hmma_f16: return "fp8 via f16 HMMA.16816 x2 + FADD/HADD2";
    case Lowering::ffma_chain: return "FP32 FFMA chain on the CUDA cores";
  }
  return "?";
}

std::string_view arch_name(Arch a) {
  switch (a) {
    case Arch::sm70: return "sm_70";
    case Arch::sm75: return "sm_75";
    case Arch::sm80: return "sm_80";
    case Arch::sm86: return "sm_86";
    case Arch::sm89: return "sm_89";
    case Arch::sm90: return "sm_90";
    case Arch::sm100: return "sm_100";
    case Arch::sm120: return "sm_120";
  }
  return "?";
}

std::string_view arch_gpu_name(Arch a) {
  switch (a) {
    case Arch::sm70: return "V100";
    case Arch::sm75: return "T4";
    case Arch::sm80: return "A100";
    case Arch::sm86: return "A10";
    case Arch::sm89: return "L40S";
    case Arch::sm90: return "H100";
    case Arch::sm100: return "B200";
    case Arch::sm120: return "RTX PRO 6000";
  }
  return "?";
}

namespace {
// Lower case, letters and digits only, vendor words dropped: "NVIDIA GeForce RTX 4090" -> "rtx4090".
std::string squeeze_gpu_name(std::string_view text) {
  std::string s;
  for (char ch : to_lower(trim(text)))
    if (std::isalnum(static_cast<unsigned char>(ch))) s.push_back(ch);
  for (bool again = true; again;) {
    again = false;
    for (const char* vendor : {"nvidia", "tesla", "geforce", "quadro"})
      if (s.starts_with(vendor)) {
        s = s.substr(std::string_view(vendor).size());
        again = true;
      }
  }
  return s;
}
}  // namespace

std::optional<Arch> parse_arch(std::string_view text) {
  const std::string s = squeeze_gpu_name(text);
  if (s.empty()) return std::nullopt;
  // sm names: "sm86", "86", "sm90a", "sm100a", "sm120f".
  std::string num = s.starts_with("sm") ? s.substr(2) : s;
  if (!num.empty() && (num.back() == 'a' || num.back() == 'f')) num.pop_back();
  static constexpr std::pair<const char*, Arch> sm[] = {
      {"70", Arch::sm70}, {"75", Arch::sm75}, {"80", Arch::sm80},   {"86", Arch::sm86},
      {"89", Arch::sm89}, {"90", Arch::sm90}, {"100", Arch::sm100}, {"120", Arch::sm120}};
  for (const auto& [n, a] : sm)
    if (num == n) return a;
  static constexpr std::pair<const char*, Arch> generations[] = {
      {"volta", Arch::sm70}, {"turing", Arch::sm75}, {"ampere", Arch::sm80}, {"ada", Arch::sm89},
      {"adalovelace", Arch::sm89}, {"lovelace", Arch::sm89}, {"hopper", Arch::sm90},
      {"blackwell", Arch::sm100}};
  for (const auto& [g, a] : generations)
    if (s == g) return a;
  // GPU models, longest prefix first where one name starts another (a100 before a10, l40 before l4,
  // rtxpro6000 and rtx6000ada before the Turing Quadro RTX 6000). The rest of the name may be a
  // memory or board suffix ("a100sxm440gb", "l40s48gb", "h100pcie").
  static constexpr std::pair<const char*, Arch> models[] = {
      {"v100", Arch::sm70},       {"t4", Arch::sm75},         {"rtx20", Arch::sm75},
      {"titanrtx", Arch::sm75},   {"a100", Arch::sm80},       {"a30", Arch::sm80},
      {"a10", Arch::sm86},        {"a16", Arch::sm86},        {"a40", Arch::sm86},
      {"a2", Arch::sm86},         {"rtxa", Arch::sm86},       {"rtx30", Arch::sm86},
      {"l40", Arch::sm89},        {"l4", Arch::sm89},         {"l20", Arch::sm89},
      {"rtx40", Arch::sm89},      {"rtx6000ada", Arch::sm89}, {"rtx5000ada", Arch::sm89},
      {"rtx4000ada", Arch::sm89}, {"h100", Arch::sm90},       {"h200", Arch::sm90},
      {"h800", Arch::sm90},       {"h20", Arch::sm90},        {"gh200", Arch::sm90},
      {"b200", Arch::sm100},      {"b100", Arch::sm100},      {"gb200", Arch::sm100},
      {"rtxpro", Arch::sm120},    {"rtx50", Arch::sm120},     {"rtx6000", Arch::sm75},
  };
  for (const auto& [m, a] : models)
    if (s.starts_with(m)) return a;
  return std::nullopt;
}

Arch parse_arch_or_throw(std::string_view text, const std::string& where) {
  if (auto a = parse_arch(text)) return *a;
  throw InputError(where, "unknown architecture or GPU '" + std::string(text) +
                              "': expected one of sm_70 (V100), sm_75 (T4), sm_80 (A100, A30), sm_86 "
                              "(A10, A2, A40, RTX 30xx), sm_89 (L4, L40S, RTX 4090, Ada), sm_90 (H100, "
                              "H200), sm_100 (B200), sm_120 (RTX PRO 6000, RTX 50xx)");
}

std::vector<Arch> all_archs() {
  return {Arch::sm70, Arch::sm75, Arch::sm80, Arch::sm86, Arch::sm89, Arch::sm90, Arch::sm100, Arch::sm120};
}

std::string_view out_mode_name(OutMode m) {
  switch (m) {
    case OutMode::rz_fp32: return "rz_fp32";
    case OutMode::rz_e8m13: return "rz_e8m13";
    case OutMode::rne_fp16: return "rne_fp16";
    case OutMode::rz_fp32_rne_fp16: return "rz_fp32_rne_fp16";
    case OutMode::int32_exact: return "int32_exact";
    case OutMode::fp64_fma: return "fp64_fma";
  }
  return "?";
}

std::string Instruction::describe() const {
  return std::string(arch_name(arch)) + " " + name + " " + ptx_type(a_fmt) + "." +
         ptx_type(b_fmt) + "." + ptx_type(acc_fmt);
}

const std::vector<Instruction>& instructions(Arch a) {
  static const std::vector<Instruction> tables[8] = {
      build(Arch::sm70), build(Arch::sm75), build(Arch::sm80),  build(Arch::sm86),
      build(Arch::sm89), build(Arch::sm90), build(Arch::sm100), build(Arch::sm120)};
  return tables[static_cast<int>(a)];
}

std::vector<Instruction> all_instructions() {
  std::vector<Instruction> v;
  for (Arch a : all_archs())
    for (const auto& i : instructions(a)) v.push_back(i);
  return v;
}

std::string list_instructions(Arch a) {
  std::ostringstream os;
  std::string last;
  for (const auto& i : instructions(a)) {
    if (i.name != last) {
      if (!last.empty()) os << "; ";
      os << i.name << " ";
      last = i.name;
    } else {
      os << ",";
    }
    os << ptx_type(i.a_fmt);
    if (i.b_fmt != i.a_fmt) os << "x" << ptx_type(i.b_fmt);
    os << "->" << ptx_type(i.acc_fmt);
  }
  return os.str();
}

const Instruction& find_instruction(Arch a, std::string_view name, FormatId a_fmt, FormatId b_fmt,
                                    FormatId acc_fmt, const std::string& where) {
  int n = 0;
  const std::string canon = canonical_name(name, n);
  bool name_found = false;
  for (const auto& i : instructions(a)) {
    if (i.name != canon) continue;
    name_found = true;
    if (i.a_fmt == a_fmt && i.b_fmt == b_fmt && i.acc_fmt == acc_fmt) {
      if (i.family == InstrFamily::wgmma && n != 0 && (n % 8 != 0 || n > 256))
        throw InputError(where, "wgmma N must be a multiple of 8 from 8 to 256, got " +
                                    std::to_string(n));
      return i;
    }
  }
  std::string fmts = std::string(ptx_type(a_fmt)) + "." + ptx_type(b_fmt) + "." + ptx_type(acc_fmt);
  if (!name_found)
    throw InputError(where, "no instruction '" + std::string(name) + "' on " +
                                std::string(arch_name(a)) + "; it has: " + list_instructions(a));
  throw InputError(where, std::string(arch_name(a)) + " " + canon + " has no variant " + fmts +
                              " (a.b.accumulator); it has: " + list_instructions(a));
}

const Instruction& find_instruction(Arch a, std::string_view name, FormatId a_fmt,
                                    FormatId acc_fmt, const std::string& where) {
  return find_instruction(a, name, a_fmt, a_fmt, acc_fmt, where);
}

const Instruction& default_instruction(Arch a, FormatId in_fmt, FormatId acc_fmt,
                                       const std::string& where) {
  const char* name = nullptr;
  const bool b = a == Arch::sm100;
  switch (in_fmt) {
    case Fmt::fp16:
    case Fmt::bf16:
      name = a == Arch::sm70 ? "wmma.m16n16k16" : a == Arch::sm75 ? "mma.m16n8k8" : b ? "tcgen05.mma.kind::f16" : "mma.m16n8k16";
      break;
    case Fmt::tf32: name = a == Arch::sm90 ? "wgmma.m64nNk8" : b ? "tcgen05.mma.kind::tf32" : "mma.m16n8k8"; break;
    case Fmt::e4m3:
    case Fmt::e5m2: name = a == Arch::sm90 ? "wgmma.m64nNk32" : b ? "tcgen05.mma.kind::f8f6f4" : "mma.m16n8k32"; break;
    case Fmt::int8:
    case Fmt::uint8: name = a == Arch::sm75 ? "mma.m8n8k16" : b ? "tcgen05.mma.kind::i8" : "mma.m16n8k32"; break;
    case Fmt::int4:
    case Fmt::uint4: name = a == Arch::sm75 ? "mma.m8n8k32" : "mma.m16n8k64"; break;
    case Fmt::b1: name = a == Arch::sm75 ? "mma.m8n8k128.xor.popc" : "mma.m16n8k256.and.popc"; break;
    case Fmt::fp64: name = "mma.m8n8k4"; break;
    default: break;
  }
  if (!name)
    throw InputError(where, "no tensor-core instruction takes " + std::string(format_name(in_fmt)) +
                                " inputs; expected fp16, bf16, tf32, e4m3, e5m2, s8, u8, s4, u4, b1 or fp64");
  return find_instruction(a, name, in_fmt, in_fmt, acc_fmt, where);
}

}  // namespace tcsim::num
