#include "numerics/arch.h"

#include <sstream>
#include <stdexcept>

#include "common/error.h"
#include "common/strings.h"

namespace tcsim::num {
namespace {
using Fmt = FormatId;

// Section 1 parameters per architecture.
struct ArchParams {
  int F;           // fraction bits kept (fp16/bf16/tf32)
  int L_f16;       // block length, fp16/bf16
  int L_tf32;      // block length, tf32
};
ArchParams arch_params(Arch a) {
  switch (a) {
    case Arch::sm70: return {23, 4, 0};
    case Arch::sm75: return {24, 8, 0};
    case Arch::sm80: return {24, 8, 4};
    case Arch::sm90: return {25, 16, 8};
  }
  return {24, 8, 4};
}

int e_zero_for(int F, FormatId acc, bool wgmma) {
  // -108-F for FP32 accumulation, 3-F for FP16 accumulation in mma.sync, -133 for wgmma fp16
  // accumulate (spec section 1 notes).
  if (acc == Fmt::fp32) return -108 - F;
  return wgmma ? -133 : 3 - F;
}

struct Builder {
  Arch arch;
  std::vector<Instruction> out;

  Instruction base(InstrFamily fam, std::string name, int m, int n, int k) const {
    Instruction i;
    i.arch = arch;
    i.family = fam;
    i.name = std::move(name);
    i.m = m;
    i.n = n;
    i.k = k;
    return i;
  }
  // A float T-FDPA instruction.
  void fdpa(InstrFamily fam, const std::string& name, int m, int n, int k, FormatId a, FormatId b,
            FormatId acc, int F, int L, std::string note = "") {
    Instruction i = base(fam, name, m, n, k);
    i.a_fmt = a;
    i.b_fmt = b;
    i.acc_fmt = acc;
    i.F = F;
    i.L = L > k ? k : L;
    if (a == Fmt::e4m3 || a == Fmt::e5m2) {
      i.e_zero = -133;
      i.out_mode = OutMode::rz_e8m13;
    } else {
      i.e_zero = e_zero_for(F, acc, fam == InstrFamily::wgmma);
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
  void integer(InstrFamily fam, const std::string& name, int m, int n, int k, bool four_bit) {
    const FormatId s = four_bit ? Fmt::int4 : Fmt::int8, u = four_bit ? Fmt::uint4 : Fmt::uint8;
    for (FormatId a : {s, u})
      for (FormatId b : {s, u}) {
        Instruction i = base(fam, name, m, n, k);
        i.a_fmt = a;
        i.b_fmt = b;
        i.acc_fmt = Fmt::int32;
        i.L = k;
        i.out_mode = OutMode::int32_exact;
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

std::vector<Instruction> build(Arch a) {
  Builder b{a, {}};
  const ArchParams p = arch_params(a);
  const auto mma = InstrFamily::mma, wmma = InstrFamily::wmma, wgmma = InstrFamily::wgmma;
  switch (a) {
    case Arch::sm70:
      b.f16_both(mma, "mma.m8n8k4", 8, 8, 4, p.F, 4);
      b.f16_both(wmma, "wmma.m16n16k16", 16, 16, 16, p.F, 4, "chain of 4 m8n8k4 blocks (HMMA.884)");
      break;
    case Arch::sm75:
      b.f16_both(mma, "mma.m16n8k8", 16, 8, 8, p.F, 8);
      b.f16_both(wmma, "wmma.m16n16k16", 16, 16, 16, p.F, 8, "2 chained m16n8k8 (HMMA.1688)");
      b.integer(mma, "mma.m8n8k16", 8, 8, 16, false);
      b.integer(mma, "mma.m8n8k32", 8, 8, 32, true);
      break;
    case Arch::sm80:
    case Arch::sm90: {
      const bool h = a == Arch::sm90;
      const std::string note16 = h ? "one block of 16" : "2 blocks of 8 (HMMA.16816)";
      b.f16_both(mma, "mma.m16n8k16", 16, 8, 16, p.F, p.L_f16, note16);
      b.fdpa(mma, "mma.m16n8k16", 16, 8, 16, Fmt::bf16, Fmt::bf16, Fmt::fp32, p.F, p.L_f16, note16);
      b.f16_both(mma, "mma.m16n8k8", 16, 8, 8, p.F, p.L_f16);
      b.fdpa(mma, "mma.m16n8k8", 16, 8, 8, Fmt::bf16, Fmt::bf16, Fmt::fp32, p.F, p.L_f16);
      b.fdpa(mma, "mma.m16n8k8", 16, 8, 8, Fmt::tf32, Fmt::tf32, Fmt::fp32, p.F, p.L_tf32,
             h ? "one block of 8" : "2 blocks of 4");
      b.fdpa(mma, "mma.m16n8k4", 16, 8, 4, Fmt::tf32, Fmt::tf32, Fmt::fp32, p.F, p.L_tf32);
      b.f16_both(wmma, "wmma.m16n16k16", 16, 16, 16, p.F, p.L_f16, note16);
      b.fdpa(wmma, "wmma.m16n16k16", 16, 16, 16, Fmt::bf16, Fmt::bf16, Fmt::fp32, p.F, p.L_f16, note16);
      b.fdpa(wmma, "wmma.m16n16k8", 16, 16, 8, Fmt::tf32, Fmt::tf32, Fmt::fp32, p.F, p.L_tf32);
      b.integer(mma, "mma.m16n8k32", 16, 8, 32, false);
      b.integer(mma, "mma.m16n8k16", 16, 8, 16, false);
      b.integer(mma, "mma.m8n8k16", 8, 8, 16, false);
      b.integer(mma, "mma.m8n8k32", 8, 8, 32, true);
      b.dmma();
      if (h) {
        b.fdpa(wgmma, "wgmma.m64nNk16", 64, 0, 16, Fmt::fp16, Fmt::fp16, Fmt::fp32, p.F, 16);
        b.fdpa(wgmma, "wgmma.m64nNk16", 64, 0, 16, Fmt::fp16, Fmt::fp16, Fmt::fp16, p.F, 16);
        b.fdpa(wgmma, "wgmma.m64nNk16", 64, 0, 16, Fmt::bf16, Fmt::bf16, Fmt::fp32, p.F, 16);
        b.fdpa(wgmma, "wgmma.m64nNk8", 64, 0, 8, Fmt::tf32, Fmt::tf32, Fmt::fp32, p.F, 8);
        for (FormatId x : {Fmt::e4m3, Fmt::e5m2})
          for (FormatId y : {Fmt::e4m3, Fmt::e5m2})
            b.fdpa(wgmma, "wgmma.m64nNk32", 64, 0, 32, x, y, Fmt::fp32, 13, 32,
                   "F = 13, result cut to 13 fraction bits (RZ)");
        b.integer(wgmma, "wgmma.m64nNk32", 64, 0, 32, false);
      }
      break;
    }
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

std::string_view arch_name(Arch a) {
  switch (a) {
    case Arch::sm70: return "sm_70";
    case Arch::sm75: return "sm_75";
    case Arch::sm80: return "sm_80";
    case Arch::sm90: return "sm_90";
  }
  return "?";
}

std::string_view arch_gpu_name(Arch a) {
  switch (a) {
    case Arch::sm70: return "V100";
    case Arch::sm75: return "T4";
    case Arch::sm80: return "A100";
    case Arch::sm90: return "H100";
  }
  return "?";
}

std::optional<Arch> parse_arch(std::string_view text) {
  const std::string t = to_lower(trim(text));
  if (t == "sm_70" || t == "sm70" || t == "70" || t == "v100" || t == "volta") return Arch::sm70;
  if (t == "sm_75" || t == "sm75" || t == "75" || t == "t4" || t == "turing") return Arch::sm75;
  if (t == "sm_80" || t == "sm80" || t == "80" || t == "a100" || t == "ampere") return Arch::sm80;
  if (t == "sm_90" || t == "sm90" || t == "90" || t == "sm_90a" || t == "sm90a" || t == "h100" ||
      t == "hopper")
    return Arch::sm90;
  return std::nullopt;
}

Arch parse_arch_or_throw(std::string_view text, const std::string& where) {
  if (auto a = parse_arch(text)) return *a;
  throw InputError(where, "unknown architecture '" + std::string(text) +
                              "': expected one of sm_70 (v100), sm_75 (t4), sm_80 (a100), "
                              "sm_90 (h100)");
}

std::vector<Arch> all_archs() { return {Arch::sm70, Arch::sm75, Arch::sm80, Arch::sm90}; }

std::string_view out_mode_name(OutMode m) {
  switch (m) {
    case OutMode::rz_fp32: return "rz_fp32";
    case OutMode::rz_e8m13: return "rz_e8m13";
    case OutMode::rne_fp16: return "rne_fp16";
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
  static const std::vector<Instruction> tables[4] = {build(Arch::sm70), build(Arch::sm75),
                                                     build(Arch::sm80), build(Arch::sm90)};
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
  switch (in_fmt) {
    case Fmt::fp16:
    case Fmt::bf16:
      name = a == Arch::sm70 ? "wmma.m16n16k16" : a == Arch::sm75 ? "mma.m16n8k8" : "mma.m16n8k16";
      break;
    case Fmt::tf32: name = a == Arch::sm90 ? "wgmma.m64nNk8" : "mma.m16n8k8"; break;
    case Fmt::e4m3:
    case Fmt::e5m2: name = "wgmma.m64nNk32"; break;
    case Fmt::int8:
    case Fmt::uint8: name = a == Arch::sm75 ? "mma.m8n8k16" : "mma.m16n8k32"; break;
    case Fmt::int4:
    case Fmt::uint4: name = "mma.m8n8k32"; break;
    case Fmt::fp64: name = "mma.m8n8k4"; break;
    default: break;
  }
  if (!name)
    throw InputError(where, "no tensor-core instruction takes " + std::string(format_name(in_fmt)) +
                                " inputs; expected fp16, bf16, tf32, e4m3, e5m2, s8, u8, s4, u4 or fp64");
  return find_instruction(a, name, in_fmt, in_fmt, acc_fmt, where);
}

}  // namespace tcsim::num
