#include "gpu/sm/rf_ports.h"

#include <algorithm>
#include <stdexcept>

#include "numerics/formats/format_id.h"

namespace tcsim::gpu {
namespace {

// Registers per thread of an operand of `elements` per warp at `bits` each (at least one).
int regs(double elements, int bits) { return std::max(1, int(elements * bits / 32.0 / 32.0 + 0.5)); }

// First register >= at that lives in bank `bank`.
int place(int at, int bank, int banks) {
  const int want = ((bank % banks) + banks) % banks;
  while (at % banks != want) ++at;
  return at;
}

RegRange range(int first, int n) { return {first, std::max(n, 0)}; }

bool volta_wmma(const GpuConfig& g, const MmaInstr& row) {
  return g.arch == "sm_70" && row.kind == MmaKind::sync && row.m == 16 && row.n == 16 && row.k == 16 &&
         (row.sass_count == 16 || row.sass_count == 8);
}

}  // namespace

RfReads count_rf_reads(const std::vector<SassSources>& seq, int banks, bool reuse) {
  if (banks <= 0) throw std::invalid_argument("count_rf_reads: no banks");
  std::vector<double> per_bank(std::size_t(banks), 0.0);
  RfReads r;
  const SassSources* prev = nullptr;
  for (const auto& in : seq) {
    for (std::size_t s = 0; s < in.slot.size(); ++s) {
      const RegRange& regs = in.slot[s];
      if (reuse && prev && regs.count > 0 && prev->slot[s] == regs) continue;
      for (int reg = regs.first; reg < regs.first + regs.count; ++reg) per_bank[std::size_t(reg % banks)] += 1;
      r.reads += regs.count;
    }
    prev = &in;
  }
  for (double b : per_bank) r.busiest_bank = std::max(r.busiest_bank, b);
  return r;
}

RfReads mma_group_rf_reads(const GpuConfig& g, const MmaInstr& row, int frags_m, int frags_n, int n_used) {
  const int banks = g.rf_banks_per_subcore;
  const int ab_bits = row.ab.empty() ? 16 : format_bits(row.ab.front());
  const int acc_bits = format_bits(row.acc);
  std::vector<SassSources> seq;
  if (row.kind == MmaKind::wgmma) {
    // Per warp of the warpgroup: A and B from shared memory (descriptors), C = its quarter of m x n.
    const int n = n_used > 0 ? n_used : row.n;
    const int c = regs(double(row.m) * n / 4.0, acc_bits);
    for (int i = 0; i < frags_m * frags_n; ++i) {
      SassSources s;
      s.slot[2] = range(i * c, c);
      seq.push_back(s);
    }
    return count_rf_reads(seq, banks);
  }
  const bool volta = volta_wmma(g, row);
  // Per PTX instruction: fragment registers per thread (Volta octets hold A and B twice).
  const int a = regs(double(row.m) * row.k, ab_bits) * (volta ? 2 : 1);
  const int b = regs(double(row.n) * row.k, ab_bits) * (volta ? 2 : 1);
  const int c = regs(double(row.m) * row.n, acc_bits);
  const int c_base = 0;
  const int a_base = place(c * frags_m * frags_n, c, banks);
  const int b_base = place(a_base + a * frags_m, c + a, banks);
  for (int i = 0; i < frags_m; ++i)
    for (int jj = 0; jj < frags_n; ++jj) {
      const int j = i % 2 ? frags_n - 1 - jj : jj;  // serpentine: the turn reuses B
      const int ar = a_base + i * a, br = b_base + j * b, cr = c_base + (i * frags_n + j) * c;
      if (volta) {
        // 4 sets (k-slices of 4) x steps; a set reads its quarter of A and B, a step its share of C.
        const int sets = 4, steps = row.sass_count / sets;
        for (int set = 0; set < sets; ++set)
          for (int step = 0; step < steps; ++step) {
            SassSources s;
            s.slot[0] = range(ar + set * a / sets, a / sets);
            s.slot[1] = range(br + set * b / sets, b / sets);
            s.slot[2] = range(cr + step * c / steps, c / steps);
            seq.push_back(s);
          }
      } else {
        // sass_count > 1: the SASS instructions split N; each reads all of A.
        const int parts = std::max(1, row.sass_count);
        for (int p = 0; p < parts; ++p) {
          SassSources s;
          s.slot[0] = range(ar, a);
          s.slot[1] = range(br + p * b / parts, std::max(1, b / parts));
          s.slot[2] = range(cr + p * c / parts, std::max(1, c / parts));
          seq.push_back(s);
        }
      }
    }
  return count_rf_reads(seq, banks);
}

RfReads ffma_group_rf_reads(const GpuConfig& g, int tm, int tn) {
  const int banks = g.rf_banks_per_subcore;
  const int c_base = 0;
  const int b_base = place(tm * tn, 1, banks);
  const int a_base = place(b_base + tn, 2, banks);
  std::vector<SassSources> seq;
  seq.reserve(std::size_t(tm) * tn);
  for (int i = 0; i < tm; ++i)
    for (int jj = 0; jj < tn; ++jj) {
      const int j = i % 2 ? tn - 1 - jj : jj;
      SassSources s;
      s.slot[0] = range(a_base + i, 1);
      s.slot[1] = range(b_base + j, 1);
      s.slot[2] = range(c_base + i * tn + j, 1);
      seq.push_back(s);
    }
  return count_rf_reads(seq, banks);
}

}  // namespace tcsim::gpu
