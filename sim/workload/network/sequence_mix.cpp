#include "workload/network/sequence_mix.h"

#include <algorithm>
#include <stdexcept>

namespace tcsim::workload {

std::vector<SequenceShare> binned_sequence_mix(std::span<const std::int64_t> histogram, std::int64_t bin_size) {
  if (bin_size < 1) throw std::invalid_argument("binned_sequence_mix: bin size must be at least 1");
  const auto max_len = std::int64_t(histogram.size());
  std::vector<SequenceShare> mix;
  double total = 0;
  for (std::int64_t lo = 0; lo < max_len; lo += bin_size) {
    const std::int64_t hi = std::min(lo + bin_size, max_len);
    double count = 0;
    for (std::int64_t i = lo; i < hi; ++i) count += double(histogram[std::size_t(i)]);
    if (count > 0) mix.push_back({hi, count});
    total += count;
  }
  if (!(total > 0)) throw std::invalid_argument("binned_sequence_mix: the histogram holds no sequence");
  for (auto& m : mix) m.share /= total;
  return mix;
}

}  // namespace tcsim::workload
