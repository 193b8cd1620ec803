#pragma once
// The sample sets of the MMA probe: each sample is one dot product d = c + sum_k a_k*b_k of one
// instruction variant (K = instruction K times the chain length), as bit patterns of the
// variant's formats. See validation/README.md for what each set contains and why.
#include <cstdint>
#include <string>
#include <vector>

#include "mma_runner.h"

namespace tcv {

struct Sample {
  std::vector<std::uint64_t> a, b;  // kt entries each (zero-padded)
  std::uint64_t c = 0;
  std::string label;                // short description, written to labels.txt
};

struct SetSpec {
  std::string name;     // random_bits, random_normal, adversarial, specials, discriminating
  int samples = 1000;   // for the random sets
  std::uint64_t seed = 1;
};

// The sets that apply to op (integer variants have no adversarial/specials sets).
std::vector<std::string> set_names_for(const OpInfo& op);

// Generates a set; kt = op.k * chain. Values not representable in the variant's formats are
// skipped (a spec vector that needs 2^-24 has no FP8 instance).
std::vector<Sample> make_set(const OpInfo& op, int chain, const SetSpec& spec);

// The format the A/B entries are encoded in (tf32 operands are raw FP32 patterns: the hardware
// reads only their top 19 bits, and the probe wants to see that).
Fmt operand_encoding(const OpInfo& op);

}  // namespace tcv
