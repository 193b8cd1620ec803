#pragma once
// gemm.csv (+ meta.yaml beside it) -> the HDF5 form of the measured schema
// (workload/measured/measured_h5.h, validation/measured/README.md), for `tcsim measured to-h5`.
//
// The CSV is first read with the schema's own rules (workload::read_measured_schema), so a file
// that `tcsim validate` would reject is rejected here with the same file:line: column message.
// Every CSV column is kept (name order preserved in the `columns` attribute): a column whose
// non-empty cells are all numbers becomes float64 (empty -> NaN), any other column strings.
// meta.yaml's values become root attributes with dotted keys ("clocks.sm_mhz"), plus
// `converted_from` (the CSV's file name).
#include <filesystem>

#include "io/table.h"

namespace tcsim::engine {

io::ResultSet measured_csv_as_result_set(const std::filesystem::path& csv);

// Reads `csv` and writes `h5` atomically; returns the number of rows written.
std::size_t convert_measured_csv_to_h5(const std::filesystem::path& csv, const std::filesystem::path& h5);

}  // namespace tcsim::engine
