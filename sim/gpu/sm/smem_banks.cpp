#include "gpu/sm/smem_banks.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

namespace tcsim::gpu {
namespace {

// The rule applies to all active lanes: lane n and lane n^d read the same address (or one is inactive).
bool pairs_uniform(std::span<const std::int64_t> a, int d) {
  bool any_pair = false;
  for (std::size_t n = 0; n < a.size(); ++n) {
    const std::size_t m = n ^ std::size_t(d);
    if (m >= a.size() || a[n] < 0 || a[m] < 0) continue;
    if (a[n] != a[m]) return false;
    any_pair = true;
  }
  return any_pair;
}

// Max over banks of the distinct words the lanes [first, last) touch.
int phase_wavefronts(std::span<const std::int64_t> a, std::size_t first, std::size_t last, int width,
                     const SmemBankGeometry& geo) {
  std::array<std::int64_t, 32 * 16> words;  // 32 lanes x 16 B, 1-byte banks at most
  std::size_t n_words = 0;
  const int per_lane = std::max(1, width / geo.bank_bytes);
  for (std::size_t n = first; n < last && n < a.size(); ++n) {
    if (a[n] < 0) continue;
    const std::int64_t w0 = a[n] / geo.bank_bytes;
    for (int i = 0; i < per_lane && n_words < words.size(); ++i) words[n_words++] = w0 + i;
  }
  if (n_words == 0) return 0;
  auto* const end = words.data() + n_words;
  std::sort(words.data(), end);
  auto* const unique_end = std::unique(words.data(), end);
  // Banks of the distinct words; the most frequent bank sets the phase's wavefronts.
  for (auto* w = words.data(); w != unique_end; ++w) *w %= geo.banks;
  std::sort(words.data(), unique_end);
  int worst = 0;
  for (auto* i = words.data(); i != unique_end;) {
    auto* j = i;
    while (j != unique_end && *j == *i) ++j;
    worst = std::max(worst, int(j - i));
    i = j;
  }
  return worst;
}

}  // namespace

int smem_wavefronts(std::span<const std::int64_t> a, int width, const SmemBankGeometry& geo, bool pair_merge) {
  if (a.size() > 32) throw std::invalid_argument("smem_wavefronts: more than 32 lanes");
  if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16)
    throw std::invalid_argument("smem_wavefronts: access width must be 1, 2, 4, 8 or 16 bytes, got " +
                                std::to_string(width));
  if (geo.banks <= 0 || geo.bank_bytes <= 0) throw std::invalid_argument("smem_wavefronts: no banks");
  for (std::int64_t x : a)
    if (x >= 0 && x % width != 0)
      throw std::invalid_argument("smem_wavefronts: address " + std::to_string(x) + " is not a multiple of the " +
                                  std::to_string(width) + "-byte access width");
  // Lanes per phase: each phase asks for at most banks x bank_bytes bytes.
  int lanes = std::min(32, geo.phase_bytes() / std::max(width, geo.bank_bytes));
  if (pair_merge && width > geo.bank_bytes && (pairs_uniform(a, 1) || pairs_uniform(a, 2))) lanes = std::min(32, lanes * 2);
  lanes = std::max(lanes, 1);
  int total = 0;
  for (std::size_t first = 0; first < a.size(); first += std::size_t(lanes))
    total += phase_wavefronts(a, first, first + std::size_t(lanes), width, geo);
  return total;
}

int ldmatrix_wavefronts(std::span<const std::int64_t> rows, const SmemBankGeometry& geo) {
  if (rows.size() != 8 && rows.size() != 16 && rows.size() != 32)
    throw std::invalid_argument("ldmatrix_wavefronts: expected 8, 16 or 32 row addresses");
  // One matrix = 8 rows of 16 B = one phase; the same rule as a quarter warp of LDS.128.
  int total = 0;
  for (std::size_t m = 0; m < rows.size(); m += 8) total += smem_wavefronts(rows.subspan(m, 8), 16, geo);
  return total;
}

}  // namespace tcsim::gpu
