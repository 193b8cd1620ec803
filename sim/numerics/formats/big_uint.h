#pragma once
// Internal: a minimal unsigned big integer for exact decimal parsing (parse_value). Little-endian
// 32-bit limbs; only the operations the parser needs.
#include <cstdint>
#include <vector>

namespace tcsim::num::detail {

class BigUint {
 public:
  BigUint() = default;
  explicit BigUint(std::uint64_t v) {
    while (v) {
      limbs_.push_back(static_cast<std::uint32_t>(v));
      v >>= 32;
    }
  }
  bool is_zero() const { return limbs_.empty(); }
  int bit_length() const;
  void mul_small(std::uint32_t f);
  void add_small(std::uint32_t a);
  void shift_left(int bits);
  // Sets *this -= o; requires *this >= o.
  void sub(const BigUint& o);
  std::uint64_t low64() const;
  friend int compare(const BigUint& a, const BigUint& b);

 private:
  void trim();
  std::vector<std::uint32_t> limbs_;
};

// floor(num / den) (must fit in 64 bits) and whether the remainder is nonzero; den != 0.
std::uint64_t divide_small_quotient(BigUint num, BigUint den, bool& remainder_nonzero);

}  // namespace tcsim::num::detail
