#pragma once
// Padded sequence lengths of a step whose data loader batches sequences by length. NVIDIA's LDDL
// loader (DeepLearningExamples' PyTorch BERT since the 21.11 container) sorts sequences into bins
// of `bin_size` tokens ((i - 1) * bin_size + 1 .. i * bin_size), draws each step's bin with the
// weight of the sequences it holds, and pads the batch to its longest sequence (rounded up to 8):
// with 16-32 sequences per batch that is the bin's upper edge (the expected maximum of 32 draws
// from Wikipedia's 65-128 bin is 127.6). So a step of such a loader is, on average, the
// share-weighted mean of the steps at the bin edges, not the step at the maximum length.
#include <cstdint>
#include <span>
#include <vector>

namespace tcsim::workload {

struct SequenceShare {
  std::int64_t seq = 0;   // padded length of the batch
  double share = 0;       // fraction of the steps (of the sequences) at that length
};

// histogram[i]: the number of sequences with i + 1 real tokens. Bins of bin_size tokens, each padded
// to min(its upper edge, histogram.size()); empty bins are left out; the shares sum to 1.
// Throws std::invalid_argument on bin_size < 1 or an empty or all-zero histogram.
std::vector<SequenceShare> binned_sequence_mix(std::span<const std::int64_t> histogram, std::int64_t bin_size);

// The BERT pre-training sequences of English Wikipedia at max length 512 (wikipedia_lengths.cpp
// has the source).
std::span<const std::int64_t> wikipedia_pretraining_lengths_512();

}  // namespace tcsim::workload
