#pragma once
// results.h5, schema v1:
//   root attributes (variable-length UTF-8 strings): every ResultSet attribute, and
//     schema_version = "1" (always; a caller's schema_version is replaced)
//   one group per table: /<table.name>; inside, one dataset per column, 1-D, one element per
//     row: float64 when every cell is a number or empty (empty -> NaN), else variable-length
//     UTF-8 strings (numbers written as text);
//     each dataset has string attributes `unit` (unit_of_column(name)) and `description`.
//   every group also has an attribute `columns`: a 1-D array of UTF-8 strings, the column names in
//   table order (HDF5 itself lists datasets alphabetically).
// Written to a temporary name and renamed (sim/common/files/atomic_file.h). HDF5's own error printing is
// switched off; failures throw InputError naming the file.
#include <filesystem>

#include "io/table.h"

namespace tcsim::io {

void write_hdf5(const std::filesystem::path& file, const ResultSet& r);   // atomic; schema above

}  // namespace tcsim::io
