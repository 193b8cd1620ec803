#pragma once
// 2:4 structured sparsity (PTX mma.sp, sm_80 and later): the metadata format, magnitude pruning
// of a dense matrix to 2:4, and the MMA over the kept elements.
//
// Format (PTX ISA, "Sparse matrix storage" of mma.sp): A (M x K) keeps 2 of every 4 consecutive
// elements along K. Per row the kept values are stored densely (K/2 per row, in increasing k) and
// each group of four has a 4-bit metadata nibble holding the two kept positions i0 < i1 (0..3):
// nibble = i0 | i1 << 2, so the only valid nibbles are 0x4 (0,1), 0x8 (0,2), 0xC (0,3), 0x9 (1,2),
// 0xD (1,3), 0xE (2,3). Eight nibbles make one 32-bit metadata word, group 0 in the low nibble.
// Which threads of a quad supply the word is the instruction's sparsity selector (a register
// layout choice with no effect on the numbers; validation/gpu/tc_probe_sparse.cu uses 0).
//
// Numerics rule implemented (MmaOptions::sparse_blocks = SparseBlocks::kept, the default): one mma.sp instruction of logical
// depth k computes the k/2 products a_kept[j] * b[4g + i] in increasing k, grouped into T-FDPA
// blocks of L *kept* products with the dense instruction's F, L, e_zero and rounding. Why: the
// sparse tensor core doubles throughput by routing only the kept operands (selected by the
// metadata) into the same dot-product datapath (NVIDIA A100 whitepaper, "Fine-grained structured
// sparsity"), so a block of the adder tree sees L kept products. Not measured by any source we
// have: SparseBlocks::dense gives the other candidate (the dense instruction run on the pruned
// matrix with zeros, blocks of L consecutive k), and the probe in validation/gpu decides.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "numerics/gemm/gemm.h"

namespace tcsim::num {

// The metadata nibble of kept positions i0 < i1 (both 0..3).
std::uint8_t meta_nibble(int i0, int i1);
// True for the six valid 2:4 nibbles.
bool valid_meta_nibble(std::uint8_t nibble);

// A 2:4-compressed M x K matrix (K a multiple of 4; prune_2_4 pads a dense K with zeros).
struct Sparse24 {
  FormatId fmt = FormatId::fp16;
  int rows = 0, cols = 0;  // the dense shape (cols = K, a multiple of 4)
  BitMatrix values;        // rows x cols/2: the kept values in increasing k
  std::vector<std::uint8_t> meta;  // rows * cols/4 nibbles, row-major (row r group g at r*cols/4+g)
  std::uint8_t nibble(int r, int g) const { return meta[static_cast<std::size_t>(r) * (cols / 4) + g]; }
};

// Magnitude pruning as cuSPARSELt's CUSPARSELT_PRUNE_SPMMA_STRIP: in every 1x4 strip along K the
// two elements of largest magnitude are kept (|x| for floats, |value| for integers; a NaN counts
// as the largest so it is never pruned away silently; on equal magnitude the lower k wins). A K
// that is not a multiple of 4 is padded with zeros. The kept set always has two entries per group,
// zeros included, as the metadata requires.
Sparse24 prune_2_4(const BitMatrix& A, FormatId fmt);
// The dense matrix the compressed one stands for (pruned entries +0).
BitMatrix densify(const Sparse24& s);
// Builds a Sparse24 from given kept values and metadata nibbles (rows x cols/4); throws
// InputError("<where> row R group G", ...) for a nibble that is not 2:4 or for wrong sizes.
Sparse24 make_sparse_24(FormatId fmt, int rows, int cols, BitMatrix values, std::vector<std::uint8_t> meta,
                        const std::string& where = "metadata");
// The 32-bit metadata words of one row (ceil(cols/32) words, 8 groups per word, group 0 low).
std::vector<std::uint32_t> metadata_words(const Sparse24& s, int row);

// One mma.sp instruction: kept.size() == ins.k/2, meta.size() == ins.k/4, b.size() == ins.k.
// Throws InputError for a non-sparse instruction, wrong sizes or a metadata nibble that is not 2:4.
Bits sparse_mma_element(const Instruction& ins, std::span<const Bits> kept, std::span<const std::uint8_t> meta,
                        std::span<const Bits> b, Bits c, const MmaOptions& opt = {});

// D = A_sparse * B + C with ins (an mma.sp instruction) chained along K in increasing k (the last
// instruction zero-padded: kept values 0 with metadata 0x4). Each output by one thread.
BitMatrix sparse_gemm(const Instruction& ins, const Sparse24& A, const BitMatrix& B, const BitMatrix& C,
                      const GemmOptions& opt = {});

}  // namespace tcsim::num
