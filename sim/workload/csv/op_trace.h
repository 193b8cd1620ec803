#pragma once
// The op-trace CSV (traces/gemm/*.csv, documented in traces/README.md): one GEMM per row,
//   name,m,n,k,batch,a_format,b_format,c_format,d_format,layout,count
// Columns are found by header name (any order, case-insensitive). m, n, k are required; the others
// default to: name "row<line>", batch 1, a/b fp16, c/d fp32 (d defaults to c when only c is
// given), layout NN, count 1. Unknown columns are errors. Lines starting with '#' are comments.
// Layout letters follow tcsim's Kernel convention (workload/kernel.h): row-major storage,
// N = operand stored as used (A as M×K, B as K×N), T = stored transposed.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "workload/csv/csv_text.h"
#include "workload/kernel.h"

namespace tcsim::workload {

// The op-trace columns in their canonical order.
const std::vector<std::string>& op_trace_columns();
// Optional columns after them: `sparsity` (dense or 2:4: A is 2:4 structured sparse) and `warm_l2`
// (0/1: timed back to back, operands that fit in L2 are there; Kernel::l2_warm). Empty = dense / 0.
const std::vector<std::string>& op_trace_optional_columns();

// Reads an op-trace file. Bad rows throw InputError("file:line: column", what was expected):
// zero, negative, non-integer or > 2^31 dimensions, unknown formats or layouts, missing fields.
// When `origins` is given, "file:line" of each kernel's row is appended to it.
std::vector<Kernel> read_op_trace(const std::filesystem::path& file, std::vector<std::string>* origins = nullptr);
std::vector<Kernel> parse_op_trace(std::string_view text, const std::string& file_name,
                                   std::vector<std::string>* origins = nullptr);

// Lower level, for readers of files that carry the op-trace columns among others (measured data):
// the column indices (-1 when absent; m, n, k required: InputError naming the header line) and
// the Kernel of one row.
struct OpTraceColumns {
  int name = -1, m = -1, n = -1, k = -1, batch = -1, a_format = -1, b_format = -1, c_format = -1,
      d_format = -1, layout = -1, count = -1, sparsity = -1, warm_l2 = -1;
  static OpTraceColumns find(const CsvText& csv);
};
Kernel op_trace_kernel(const CsvText& csv, const CsvRow& row, const OpTraceColumns& cols);

// Writes kernels (GEMMs; a conv is written as its implicit GEMM) in the op-trace form, with the
// header and the given comment lines ("# ..." prefixed automatically); the optional columns only
// when some kernel is sparse or warm.
std::string format_op_trace(const std::vector<Kernel>& kernels, const std::vector<std::string>& comments = {});

}  // namespace tcsim::workload
