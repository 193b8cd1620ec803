#include "numerics/formats/big_uint.h"

#include <bit>
#include <stdexcept>

namespace tcsim::num::detail {

void BigUint::trim() {
  while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
}

int BigUint::bit_length() const {
  if (limbs_.empty()) return 0;
  return static_cast<int>(limbs_.size() - 1) * 32 + (32 - std::countl_zero(limbs_.back()));
}

void BigUint::mul_small(std::uint32_t f) {
  std::uint64_t carry = 0;
  for (auto& l : limbs_) {
    const std::uint64_t v = static_cast<std::uint64_t>(l) * f + carry;
    l = static_cast<std::uint32_t>(v);
    carry = v >> 32;
  }
  if (carry) limbs_.push_back(static_cast<std::uint32_t>(carry));
  trim();
}

void BigUint::add_small(std::uint32_t a) {
  std::uint64_t carry = a;
  for (auto& l : limbs_) {
    if (!carry) break;
    const std::uint64_t v = static_cast<std::uint64_t>(l) + carry;
    l = static_cast<std::uint32_t>(v);
    carry = v >> 32;
  }
  if (carry) limbs_.push_back(static_cast<std::uint32_t>(carry));
}

void BigUint::shift_left(int bits) {
  if (limbs_.empty() || bits <= 0) return;
  const int words = bits / 32, rest = bits % 32;
  limbs_.insert(limbs_.begin(), static_cast<std::size_t>(words), 0u);
  if (rest) {
    std::uint32_t carry = 0;
    for (std::size_t i = static_cast<std::size_t>(words); i < limbs_.size(); ++i) {
      const std::uint32_t v = limbs_[i];
      limbs_[i] = (v << rest) | carry;
      carry = v >> (32 - rest);
    }
    if (carry) limbs_.push_back(carry);
  }
}

void BigUint::sub(const BigUint& o) {
  std::int64_t borrow = 0;
  for (std::size_t i = 0; i < limbs_.size(); ++i) {
    std::int64_t v = static_cast<std::int64_t>(limbs_[i]) - borrow -
                     (i < o.limbs_.size() ? static_cast<std::int64_t>(o.limbs_[i]) : 0);
    borrow = v < 0 ? 1 : 0;
    if (v < 0) v += std::int64_t{1} << 32;
    limbs_[i] = static_cast<std::uint32_t>(v);
  }
  if (borrow) throw std::logic_error("BigUint::sub: negative result");
  trim();
}

std::uint64_t BigUint::low64() const {
  std::uint64_t v = 0;
  if (!limbs_.empty()) v = limbs_[0];
  if (limbs_.size() > 1) v |= static_cast<std::uint64_t>(limbs_[1]) << 32;
  return v;
}

int compare(const BigUint& a, const BigUint& b) {
  if (a.limbs_.size() != b.limbs_.size()) return a.limbs_.size() < b.limbs_.size() ? -1 : 1;
  for (std::size_t i = a.limbs_.size(); i-- > 0;)
    if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] < b.limbs_[i] ? -1 : 1;
  return 0;
}

std::uint64_t divide_small_quotient(BigUint num, BigUint den, bool& remainder_nonzero) {
  // Shift-subtract long division; the quotient has at most 64 bits.
  const int qbits = num.bit_length() - den.bit_length() + 1;
  if (qbits > 64) throw std::logic_error("divide_small_quotient: quotient too large");
  std::uint64_t q = 0;
  if (qbits > 0) {
    BigUint d = den;
    d.shift_left(qbits - 1);
    for (int i = qbits - 1; i >= 0; --i) {
      if (compare(num, d) >= 0) {
        num.sub(d);
        q |= std::uint64_t{1} << i;
      }
      // d >>= 1, done by rebuilding from den (simple; qbits is small)
      if (i > 0) {
        d = den;
        d.shift_left(i - 1);
      }
    }
  }
  remainder_nonzero = !num.is_zero();
  return q;
}

}  // namespace tcsim::num::detail
