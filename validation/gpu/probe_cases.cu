#include "probe_cases.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

namespace tcv {
namespace {

double p2(int e) { return std::ldexp(1.0, e); }

struct Builder {
  const OpInfo& op;
  int kt;
  std::vector<Sample>& out;
  Fmt in() const { return operand_encoding(op); }

  // Adds a row: a, b values placed from position `off` (the rest is +0); c in the accumulator
  // format. Rows with an unrepresentable value or that do not fit are skipped.
  bool add(const std::string& label, const std::vector<double>& a, const std::vector<double>& b, double c,
           int off = 0) {
    const size_t len = std::max(a.size(), b.size());
    if (off < 0 || off + static_cast<int>(len) > kt) return false;
    Sample s;
    s.a.assign(kt, *encode(in(), 0.0));
    s.b.assign(kt, *encode(in(), 0.0));
    for (size_t i = 0; i < a.size(); ++i) {
      auto e = encode(in(), a[i]);
      if (!e) return false;
      s.a[off + i] = *e;
    }
    for (size_t i = 0; i < b.size(); ++i) {
      auto e = encode(in(), b[i]);
      if (!e) return false;
      s.b[off + i] = *e;
    }
    auto ce = encode(op.acc, c);
    if (!ce) return false;
    s.c = *ce;
    s.label = label + (off ? "@" + std::to_string(off) : "");
    out.push_back(std::move(s));
    return true;
  }
  // The row at offset 0, at the end, and in the middle (block boundaries matter).
  void add_placed(const std::string& label, const std::vector<double>& a, const std::vector<double>& b, double c) {
    const int len = static_cast<int>(std::max(a.size(), b.size()));
    if (!add(label, a, b, c, 0)) return;
    if (kt - len > 0) add(label, a, b, c, kt - len);
    if (kt / 2 + len <= kt && kt / 2 != kt - len && kt / 2 != 0) add(label, a, b, c, kt / 2);
  }
  void add_bits(const std::string& label, std::vector<std::uint64_t> a, std::vector<std::uint64_t> b,
                std::uint64_t c) {
    Sample s;
    s.a = std::move(a);
    s.b = std::move(b);
    s.c = c;
    s.label = label;
    out.push_back(std::move(s));
  }
};

std::vector<double> rep(double v, int n) { return std::vector<double>(n, v); }

// ---- random sets ----------------------------------------------------------------------------
std::uint64_t random_bits_of(Fmt f, std::mt19937_64& rng) {
  const int bits = f == Fmt::tf32 ? 32 : fmt_bits(f);
  const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  return rng() & mask;
}

// A "normal" value: random sign and fraction, exponent uniform in [lo, hi] (clamped to the
// format's normal range).
std::uint64_t random_normal_of(Fmt f, std::mt19937_64& rng, int lo, int hi) {
  if (fmt_is_int(f)) return random_bits_of(f, rng);
  const FloatSpec& s = float_spec(f == Fmt::tf32 ? Fmt::f32 : f);
  const int emin = 1 - s.bias, emax = (s.has_inf ? (1 << s.ebits) - 2 : (1 << s.ebits) - 1) - s.bias;
  lo = std::max(lo, emin);
  hi = std::min(hi, emax);
  for (;;) {
    const int e = lo + static_cast<int>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
    const int mb = f == Fmt::tf32 ? 23 : s.mbits;
    const std::uint64_t mant = rng() & ((std::uint64_t{1} << mb) - 1);
    const double v = std::ldexp(1.0 + std::ldexp(static_cast<double>(mant), -mb), e) * ((rng() & 1) ? -1 : 1);
    auto b = encode(f == Fmt::tf32 ? Fmt::f32 : f, v);
    if (b) return *b;
  }
}

void random_set(const OpInfo& op, int kt, const SetSpec& spec, bool normal, std::vector<Sample>& out) {
  std::mt19937_64 rng(spec.seed);
  const Fmt in = operand_encoding(op);
  for (int i = 0; i < spec.samples; ++i) {
    Sample s;
    for (int k = 0; k < kt; ++k) {
      s.a.push_back(normal ? random_normal_of(in, rng, -6, 6) : random_bits_of(in, rng));
      s.b.push_back(normal ? random_normal_of(in, rng, -6, 6) : random_bits_of(in, rng));
    }
    s.c = normal ? random_normal_of(op.acc, rng, -6, 6) : random_bits_of(op.acc, rng);
    s.label = normal ? "random_normal" : "random_bits";
    out.push_back(std::move(s));
  }
}

// ---- numerics spec section 4 -------------------------------------------------------------------
void adversarial_set(const OpInfo& op, int kt, std::vector<Sample>& out) {
  Builder B{op, kt, out};
  const double X = p2(-13) - p2(-24);
  const double u = p2(-24);
  // 4.1 Fasi et al.
  B.add_placed("A1", {u}, {4}, 0);
  B.add_placed("A3", {0}, {0}, p2(-149));
  B.add_placed("A4", {p2(-14)}, {1}, -p2(-15));
  B.add_placed("B1", {1 - p2(-11)}, {1 - p2(-11)}, 0);
  B.add_placed("B2", {1 - p2(-11), 1 - p2(-11)}, {1 - p2(-11), p2(-11)}, 0);
  B.add_placed("B3", rep(1, 4), rep(u, 4), 1);
  B.add_placed("B3'", rep(0.5, 4), rep(u, 4), 1);
  for (int j = 0; j < 4; ++j) {
    auto b = rep(u, 4);
    b[j] = 1;
    B.add_placed("B4 j=" + std::to_string(j), rep(1, 4), b, u);
    auto a = rep(0.5, 4);
    a[j] = 1;
    B.add_placed("B4' j=" + std::to_string(j), a, b, u);
  }
  B.add_placed("C1", rep(1, 2), {2, 3 * u}, 0);
  B.add_placed("C2", rep(1, 2), {-2, -3 * u}, 0);
  B.add_placed("C3", {u, u}, {0.5, 0.25}, 0);
  B.add_placed("D1", {1}, {1}, -(1 - u));
  B.add_placed("D2", rep(1, 4), rep(u, 4), 1 - u);
  B.add_placed("D3", {1, 1}, {1, -u}, -1 + u);
  B.add_placed("D4a", rep(1, 4), {1, 1, 1, p2(-23)}, 1 + p2(-22) + p2(-23));
  B.add_placed("D4b", rep(1, 4), {1, 1.5, 1.75, 1.875}, 1.875);
  B.add_placed("D4c", rep(1, 4), rep(1, 4), 1 + p2(-22) + p2(-23));
  B.add_placed("D4d", rep(1, 4), rep(-1, 4), -1 - p2(-22) - p2(-23));
  B.add_placed("D5 c=1-2^-24", rep(1, 4), rep(u, 4), 1 - u);
  B.add_placed("D5 c=1", rep(1, 4), rep(u, 4), 1);
  B.add_placed("D5' c=1-2^-24", rep(0.5, 4), {u, u, u, 3 * u}, 1 - u);
  B.add_placed("D5' c=1", rep(0.5, 4), {u, u, u, 3 * u}, 1);
  // 4.2 discriminating probes
  B.add_placed("precision", {2, -2}, {2, 2}, X);
  B.add_placed("precision2", {1, -1}, {1, 1}, X);
  B.add_placed("RZ symmetric", {2, -2}, {2, 2}, -X);
  B.add_placed("alignment e_a+e_b", {2.25, -2.25}, {1, 1}, X);
  B.add_placed("alignment smaller sum", {1.5, -1.5}, {1.5, 1.5}, X);
  B.add_placed("carry 5 terms", rep(2 - p2(-10), 4), rep(2 - p2(-10), 4), 2 - p2(-23));
  B.add("-0 handling", rep(-0.0, kt), rep(1, kt), -0.0);
  B.add_placed("fp16 out tie", {0.5}, {1}, 1024);
  B.add_placed("fp16 out", {1.5}, {1}, 1024);
  B.add_placed("fp16 no double rounding", rep(0.5, 4), {1, 1, p2(-10), p2(-23)}, 0);
  B.add_placed("fp16 overflow", {0.5}, {32}, 65504);
  B.add_placed("fp16 just below", {0.25}, {32}, 65504);
  B.add_placed("Eq10", {-p2(13), -0.5, -0.25, -0.125}, {p2(10), 1, 1, 1}, p2(23));
  // 4.3 block-length probe, generalised to every position of the instruction (chain)
  for (int j = 0; j < kt; ++j) {
    auto a = rep(p2(-9), kt);
    a[j] = p2(7);
    B.add("block probe j=" + std::to_string(j), a, a, -p2(14));
  }
  // 4.4 bf16 / tf32 / specials
  B.add_placed("bf16 subnormal in", {p2(-133)}, {p2(7)}, 0);
  B.add_placed("FP32 subnormal out", {p2(-126)}, {0.5}, 0);
  const double flt_max = std::numeric_limits<float>::max();
  B.add_placed("RZ below overflow", {0.75, 0.75}, {p2(127), p2(127)}, flt_max / 4);
  B.add_placed("overflow", {1, 1}, {p2(127), p2(127)}, 0);
  B.add_placed("tf32 truncation", {1 + 0.75 * p2(-10)}, {1}, 0);
  B.add_placed("tf32 truncation negative", {-(1 + 0.75 * p2(-10))}, {1}, 0);
  B.add_placed("tf32 (1-2^-24)^2", {1 - u}, {1 - u}, 0);
  B.add_placed("inf*0", {INFINITY}, {0}, 0);
  B.add_placed("inf-inf", {INFINITY, INFINITY}, {1, -1}, 0);
  // FP8 rows
  B.add_placed("fp8 13-bit window kept", {1, p2(-6)}, {1, p2(-7)}, 0);
  B.add_placed("fp8 13-bit window dropped", {1, p2(-7)}, {1, p2(-7)}, 0);
  B.add_placed("fp8 accumulator is cut", {0}, {0}, 1 + p2(-20));
  B.add_placed("fp8 accumulator", {0}, {0}, 1 + p2(-13));
  B.add_placed("Eq10 e4m3", {-256, -0.5, -0.25, -0.125}, {256, 1, 1, 1}, 65536);
  B.add_placed("MMA-Sim fp8 rounding", {0.25, 0.25, 0.25, 0.25, 0.75}, {1, 1, 1, 1, p2(-13)}, 0);
}

// ---- special values ---------------------------------------------------------------------------
std::vector<std::uint64_t> special_pool(Fmt f) {
  std::vector<std::uint64_t> p;
  const Fmt e = f == Fmt::tf32 ? Fmt::f32 : f;
  for (bool neg : {false, true}) {
    p.push_back(*encode(e, neg ? -0.0 : 0.0));
    p.push_back(min_subnormal_bits(e, neg));
    p.push_back(max_subnormal_bits(e, neg));
    p.push_back(min_normal_bits(e, neg));
    p.push_back(max_finite_bits(e, neg));
    p.push_back(*encode(e, neg ? -1.0 : 1.0));
    if (float_spec(e).has_inf) p.push_back(inf_bits(e, neg));
  }
  p.push_back(qnan_bits(e));
  p.push_back(snan_bits(e));
  p.push_back(qnan_bits(e) | (std::uint64_t{1} << (float_spec(e).ebits + float_spec(e).mbits)));  // -qNaN
  if (f == Fmt::tf32) {
    p.push_back(0x7F800001u);  // NaN whose payload sits only in the bits tf32 ignores
    p.push_back(0xFF800001u);
    p.push_back(0x7F7FFFFFu);  // FLT_MAX: above the largest tf32 value, truncated
    p.push_back(0x00000001u);  // FP32 subnormals that tf32 truncates to zero
    p.push_back(0x00001FFFu);
    p.push_back(0x3F801FFFu);  // 1 + bits below the tf32 fraction
  }
  return p;
}

void specials_set(const OpInfo& op, int kt, const SetSpec& spec, std::vector<Sample>& out) {
  const Fmt in = operand_encoding(op);
  const auto pool = special_pool(op.in);
  const auto cpool = special_pool(op.acc);
  const std::uint64_t one = *encode(in, 1.0), zero = *encode(in, 0.0);
  Builder B{op, kt, out};
  // one special operand among ordinary ones, at the first and last position, with c = 0 and 1
  for (std::uint64_t s : pool)
    for (int pos : {0, kt - 1})
      for (double c : {0.0, 1.0}) {
        std::vector<std::uint64_t> a(kt, one), b(kt, one);
        a[pos] = s;
        B.add_bits("special a[" + std::to_string(pos) + "]", a, b, *encode(op.acc, c));
        a.assign(kt, zero);
        a[pos] = one;
        b[pos] = s;
        B.add_bits("special b[" + std::to_string(pos) + "] alone", a, b, *encode(op.acc, c));
      }
  // a special accumulator with ordinary products
  for (std::uint64_t c : cpool) {
    B.add_bits("special c", std::vector<std::uint64_t>(kt, one), std::vector<std::uint64_t>(kt, one), c);
    B.add_bits("special c, zero products", std::vector<std::uint64_t>(kt, zero),
               std::vector<std::uint64_t>(kt, one), c);
  }
  // products near overflow of the accumulator
  const std::uint64_t mx = max_finite_bits(in == Fmt::f32 ? Fmt::f32 : in, false);
  for (int n : {1, 2, kt}) {
    std::vector<std::uint64_t> a(kt, zero), b(kt, zero);
    for (int i = 0; i < n; ++i) a[i] = b[i] = mx;
    for (std::uint64_t c : {*encode(op.acc, 0.0), max_finite_bits(op.acc, false), max_finite_bits(op.acc, true)})
      B.add_bits("max*max x" + std::to_string(n), a, b, c);
  }
  // random mixtures: each entry special with probability 1/4
  std::mt19937_64 rng(spec.seed);
  for (int i = 0; i < spec.samples; ++i) {
    Sample s;
    for (int k = 0; k < kt; ++k) {
      s.a.push_back((rng() & 3) == 0 ? pool[rng() % pool.size()] : random_normal_of(in, rng, -8, 8));
      s.b.push_back((rng() & 3) == 0 ? pool[rng() % pool.size()] : random_normal_of(in, rng, -8, 8));
    }
    s.c = (rng() & 3) == 0 ? cpool[rng() % cpool.size()] : random_normal_of(op.acc, rng, -8, 8);
    s.label = "special mix";
    out.push_back(std::move(s));
  }
}

// ---- numerics spec section 8: the open questions ----------------------------------------------
void discriminating_set(const OpInfo& op, int kt, std::vector<Sample>& out) {
  Builder B{op, kt, out};
  if (fmt_is_int(op.in)) {
    const Fmt in = op.in;
    const bool sgn = fmt_is_signed_int(in);
    const double hi = in == Fmt::s8 ? 127 : in == Fmt::u8 ? 255 : in == Fmt::s4 ? 7 : 15;
    const double lo = in == Fmt::s8 ? -128 : in == Fmt::s4 ? -8 : 0;
    const double imax = INT32_MAX, imin = INT32_MIN;
    B.add_placed("s32 max, +hi*1 -hi*1", sgn ? std::vector<double>{hi, -hi} : std::vector<double>{hi, 0}, {1, 1}, imax);
    B.add("s32 max-10, all hi*hi (overflow)", rep(hi, kt), rep(hi, kt), imax - 10);
    B.add("s32 max, all hi*hi (overflow)", rep(hi, kt), rep(hi, kt), imax);
    if (sgn) {
      B.add("s32 min+10, all lo*hi (underflow)", rep(lo, kt), rep(hi, kt), imin + 10);
      B.add_placed("s32 min, lo*1 then hi*1", {lo, hi}, {1, 1}, imin);
      B.add_placed("s32 min, hi*1 then lo*1", {hi, lo}, {1, 1}, imin);
      B.add_placed("s32 max, -1*1", {-1}, {1}, imax);
      B.add_placed("s32 max, hi*1 then -hi*1 then hi*1", {hi, -hi, hi}, {1, 1, 1}, imax);
      B.add_placed("s32 max-1, hi*1 then -hi*1", {hi, -hi}, {1, 1}, imax - 1);
    }
    for (int j = 0; j < kt; ++j) {  // overflow caused by one position: does the order matter?
      auto a = rep(sgn ? lo : 0, kt), b = rep(1, kt);
      a[j] = hi;
      b[j] = hi;
      B.add("s32 max-" + std::to_string(static_cast<long>(hi * hi / 2)) + ", one hi*hi at j=" + std::to_string(j), a, b,
            imax - std::floor(hi * hi / 2));
    }
    return;
  }
  // e_zero (FP16 accumulation): a = (2^-11, 2^x), b = (2^-14, 2^-24), c = 0
  if (op.acc == Fmt::f16)
    for (int x = -15; x >= -24; --x) {
      B.add_placed("e_zero x=" + std::to_string(x), {p2(-11), p2(x)}, {p2(-14), p2(-24)}, 0);
      B.add_placed("e_zero swapped x=" + std::to_string(x), {p2(x), p2(-11)}, {p2(-24), p2(-14)}, 0);
    }
  // carry width: n products just below 4 (a = b = the largest value below 2), several c
  const Fmt in = operand_encoding(op) == Fmt::f32 ? Fmt::f32 : op.in;
  const int mb = op.in == Fmt::tf32 ? 10 : float_spec(in).mbits;
  const double below2 = 2 - p2(-mb);
  for (int n = 2; n <= kt; n *= 2)
    for (double c : {0.0, 2 - p2(-23), -(2 - p2(-23)), p2(6), 1.0, 65504.0}) {
      B.add("carry n=" + std::to_string(n) + " c=" + std::to_string(c), rep(below2, n), rep(below2, n), c);
      B.add("carry neg n=" + std::to_string(n) + " c=" + std::to_string(c), rep(-below2, n), rep(below2, n), -c);
    }
  // carry with the largest finite operands
  const double mxv = decode(in, max_finite_bits(in, false));
  for (int n = 2; n <= kt; n *= 2) B.add("carry max n=" + std::to_string(n), rep(mxv, n), rep(mxv, n), 0);
  // block k-order: one large product cancelled by c, small products elsewhere (spec 4.3/8.8),
  // with the large product at every position and c of both signs
  for (int j = 0; j < kt; ++j) {
    auto a = rep(p2(-9), kt);
    a[j] = p2(7);
    auto b = a;
    b[j] = -p2(7);
    B.add("block probe neg j=" + std::to_string(j), a, b, p2(14));
  }
}

}  // namespace

Fmt operand_encoding(const OpInfo& op) { return op.in == Fmt::tf32 ? Fmt::f32 : op.in; }

std::vector<std::string> set_names_for(const OpInfo& op) {
  if (fmt_is_int(op.in)) return {"random_bits", "discriminating"};
  return {"random_bits", "random_normal", "adversarial", "specials", "discriminating"};
}

std::vector<Sample> make_set(const OpInfo& op, int chain, const SetSpec& spec) {
  const int kt = op.k * chain;
  std::vector<Sample> out;
  if (spec.name == "random_bits") random_set(op, kt, spec, false, out);
  else if (spec.name == "random_normal") random_set(op, kt, spec, true, out);
  else if (spec.name == "adversarial") adversarial_set(op, kt, out);
  else if (spec.name == "specials") specials_set(op, kt, spec, out);
  else if (spec.name == "discriminating") discriminating_set(op, kt, out);
  return out;
}

}  // namespace tcv
