#pragma once
// Reader and writer of the "tc-golden" layout: measured tensor-core dot products, one sample per
// line, as in ../shared/tc-golden (see its README) and in the directories the CUDA probe writes.
//
//   <dir>/a_<GPU>_<fmt>.txt   K space-separated 8-hex-digit FP32 bit patterns per line (a row of A)
//   <dir>/b_<GPU>_<fmt>.txt   the same for the column of B
//   <dir>/c_<GPU>_<acc>.txt   one 32-character binary string per line: the accumulator input c
//                             (acc "fp32" in the shipped data; "s32" for integer data)
//   <dir>/d_<GPU>_<acc>.txt   optional, one 32-character binary string per line: the GPU's result
//                             (acc fp32, fp16 widened exactly to FP32 bits, or s32 two's complement)
//   <dir>/meta.yaml           optional metadata (metadata.yaml is accepted too; see GoldenMeta)
//
// The a/b values are FP32 bit patterns of values that are representable in <fmt> (for integer
// formats: FP32 patterns of the integer values, which are exact). Any error in a file is an
// InputError naming "file:line".
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "numerics/mma/arch.h"
#include "numerics/formats/format_id.h"
#include "numerics/mma/mma.h"

namespace tcsim::num {

// Optional metadata of a case directory. Every key is kept (as text, nested maps flattened to
// dotted keys) for display; only `arch` (sm_70 | sm_75 | sm_80 | sm_90), `instruction` (a name of
// the instruction table) and `gpu` change how the case is emulated. Found in the case directory
// or in its parent (one file may describe a whole <GPU>/ tree).
struct GoldenMeta {
  std::filesystem::path file;                                  // empty when there is none
  std::vector<std::pair<std::string, std::string>> entries;    // in file order
  std::optional<std::string> get(const std::string& key) const;
};

// One d_<GPU>_<acc>.txt file.
struct GoldenOutput {
  std::string acc_name;                 // "fp32", "fp16", "s32" as written in the file name
  FormatId acc = FormatId::fp32;
  std::filesystem::path file;
  std::vector<std::uint32_t> d;         // one 32-bit pattern per row
};

// A whole case directory in memory.
struct GoldenCase {
  std::filesystem::path dir;
  std::string gpu;                      // <GPU> from the file names, e.g. "V100"
  std::string input_name;               // <fmt> as written, e.g. "fp16"
  FormatId input = FormatId::fp16;
  int k = 0;                            // products per row
  std::size_t rows = 0;
  std::vector<std::uint32_t> a, b;      // rows*k FP32 patterns, row-major
  std::string c_name;                   // <acc> of the c file ("fp32")
  std::filesystem::path c_file;
  std::vector<std::uint32_t> c;         // one 32-bit pattern per row
  std::vector<GoldenOutput> outputs;    // the d files present, fp32 first, then by name
  GoldenMeta meta;

  std::filesystem::path a_file() const;
  std::filesystem::path b_file() const;
  const std::uint32_t* a_row(std::size_t r) const { return a.data() + r * static_cast<std::size_t>(k); }
  const std::uint32_t* b_row(std::size_t r) const { return b.data() + r * static_cast<std::size_t>(k); }
};

// Reads a case directory: exactly one a_<GPU>_<fmt>.txt, the matching b_ file, one c_<GPU>_*.txt,
// any d_<GPU>_<acc>.txt, and meta.yaml if present. Checks that every file has the same number of
// rows and a/b the same K on every line. Throws InputError("file:line", ...) on any problem.
GoldenCase read_golden_case(const std::filesystem::path& dir);

// The case directories under root: root itself when it holds an a_*.txt file, else every
// sub-directory (recursively) that does, sorted by path. Throws InputError when there is none.
std::vector<std::filesystem::path> find_golden_cases(const std::filesystem::path& root);

// Reads a file of 32-character binary strings (a c or d file). expected_rows = 0: any count;
// otherwise a different count is an InputError naming the file (and the first extra line).
std::vector<std::uint32_t> read_binary_file(const std::filesystem::path& file, std::size_t expected_rows = 0);

// Reads a file of hex FP32 patterns, K per line; sets k (every line must have the same K).
std::vector<std::uint32_t> read_hex_file(const std::filesystem::path& file, int& k);

// Output-format name for a d or c file name ("fp32", "fp16", "s32") and its parse.
std::optional<FormatId> parse_acc_name(const std::string& name);

// File names of the layout.
std::string golden_file_name(char which, const std::string& gpu, const std::string& fmt);  // "d_V100_fp32.txt"

// Text of the files, exactly as the shipped data writes them.
std::string format_binary_lines(const std::vector<std::uint32_t>& bits);                    // "0011...\n"
std::string format_hex_lines(const std::vector<std::uint32_t>& bits, int k);               // "3f7aa000 ... \n"

// Writers; each file is written atomically (temporary name, then rename).
void write_binary_file(const std::filesystem::path& file, const std::vector<std::uint32_t>& bits);
void write_hex_file(const std::filesystem::path& file, const std::vector<std::uint32_t>& bits, int k);
// Writes a, b, c and every output of `gc` into dir with gc's names (meta is not written).
void write_golden_case(const std::filesystem::path& dir, const GoldenCase& gc);

// ---- Emulating a case -------------------------------------------------------------------------
// How the instruction is chosen for a case and one accumulator format (first match wins):
//   architecture: GoldenOptions::arch (--arch), else meta.yaml `arch`, else the GPU name of the
//     files (V100 -> sm_70, T4 -> sm_75, A100/A30 -> sm_80, A10/A2 -> sm_86, Ada/L4/L40S ->
//     sm_89, H100/H200/H800 -> sm_90, B200 -> sm_100, RTXPRO6000 -> sm_120; see gpu_arch()); anything else is an InputError asking for --arch.
//   instruction: GoldenOptions::instruction (--instr), else meta.yaml `instruction`, else the
//     architecture's wmma instruction for the formats (what the shipped data used: V100 fp16
//     wmma.m16n16k16 = 4 chained m8n8k4 blocks; A100 fp16/bf16 wmma.m16n16k16 = m16n8k16;
//     A100 tf32 wmma.m16n16k8), else default_instruction() (e.g. H100 fp8 wgmma.m64nNk32,
//     integer formats their imma shape).
//   K: a row with K <= the instruction's k is zero-padded (the shipped A100 rows use K = 8 of
//     k16, the rest zero, exactly as measured); a larger K must be a multiple of k and chains
//     instructions in increasing k; anything else is an InputError.
// Inputs: a/b FP32 patterns are converted exactly into the input format (tf32: fed as FP32 bits,
// truncated by the MMA as on the hardware); a value that is not representable is an InputError
// naming the a/b file and line. c: FP32 bits are rounded to FP16 with RNE for an FP16
// accumulator (as the GPU harness did); s32 bits are taken as they are. Results are written as
// FP32 bits (FP16 widened exactly) or s32 bits.
struct GoldenOptions {
  std::optional<Arch> arch;
  std::string instruction;   // empty: the default choice above
  MmaOptions mma;
};

struct GoldenPlan {
  Arch arch = Arch::sm80;
  const Instruction* instruction = nullptr;
  FormatId acc = FormatId::fp32;
  std::string arch_from;     // "--arch", "meta.yaml", "GPU name V100"
  std::string instr_from;    // "--instr", "meta.yaml", "wmma default", "default"
};

// The architecture of a GPU name (case-insensitive), or nullopt.
std::optional<Arch> gpu_arch(const std::string& gpu);

// Chooses the architecture and instruction (see above). Errors name "--arch"/"--instr", the
// meta.yaml key, or the a_ file.
GoldenPlan plan_golden(const GoldenCase& gc, FormatId acc, const GoldenOptions& opt);

// d for every row (32-bit patterns as in a d file). Throws InputError for unrepresentable inputs
// and a K that does not fit the instruction.
std::vector<std::uint32_t> emulate_golden(const GoldenCase& gc, const GoldenPlan& plan,
                                          const MmaOptions& mma = {});

// The accumulator input of row r as the instruction's acc format (c file bits, rounded RNE to
// FP16 for an FP16 accumulator).
Bits golden_c(const GoldenCase& gc, std::size_t r, FormatId acc);
// Operand j of row r of a (which='a') or b in the case's input format; throws InputError naming
// the file and line when it is not representable.
Bits golden_operand(const GoldenCase& gc, char which, std::size_t r, int j);
// A 32-bit d pattern (as in the files) decoded into the acc format, and the reverse.
Bits d_file_to_acc(std::uint32_t bits, FormatId acc);
std::uint32_t acc_to_d_file(Bits bits, FormatId acc);

}  // namespace tcsim::num
