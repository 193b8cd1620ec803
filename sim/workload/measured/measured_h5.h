#pragma once
// The HDF5 form of our measured-data schema (validation/measured/README.md, "HDF5 form"), read by
// `tcsim validate FILE.h5`.
//
// Layout: sim/io's results.h5 schema v1 (io/hdf5_writer.h) with one table named `measured`:
//   /measured            group; attribute `columns` = column names in order (when absent, the
//                        group's datasets are taken in name order)
//   /measured/<column>   1-D dataset, one element per row: float64/integer (NaN = empty) or
//                        UTF-8 strings (variable or fixed length); the same columns as gemm.csv
//                        (op-trace columns, m n k and time_us required, others ignored)
//   root attributes      the metadata of meta.yaml (gpu, nvidia_driver, cuda_*, clocks,
//                        command_line, date_utc, ...): string or numeric scalars, kept as meta.
// So `io::write_hdf5` of a ResultSet {attributes from meta.yaml, table "measured" = gemm.csv}
// gives a readable file. Rows follow the CSV rules exactly (same Kernel, same time, same group,
// unmeasured rows skipped and counted in meta "rows_not_measured").
// Errors throw InputError naming the file and the dataset ("x.h5:/measured/time_us") or row
// ("x.h5:/measured:3: m" = row 3, 1-based, column m): no group, no or non-1-D dataset, a type
// that is neither number nor string, columns of different lengths, bad values/formats/layouts.
#include <filesystem>

#include "workload/measured/measured.h"

namespace tcsim::workload {

inline constexpr const char* kMeasuredH5Group = "measured";

// True when the file name ends in .h5 or .hdf5 (case-insensitive): validate's input dispatch.
bool is_measured_h5_name(const std::filesystem::path& file);

// Reads the HDF5 form; schema "tcsim-measured-h5".
MeasuredSet read_measured_h5(const std::filesystem::path& file);

}  // namespace tcsim::workload
