#pragma once
// Nsight Compute CSV exports: `ncu --csv --page raw` (one row per kernel launch, one column per
// metric, a second line of units) or `ncu --csv --page details` (one row per kernel and metric:
// "Section Name", "Metric Name", "Metric Unit", "Metric Value"). Format in traces/README.md.
// Read per kernel: "ID", "Kernel Name", "Grid Size", "Block Size", the duration
// (raw: gpu__time_duration.sum; details: "Duration" in "GPU Speed Of Light Throughput") and, where
// present, SM, DRAM and tensor-pipe throughput (percent of peak). Lines before the header that
// ncu prints itself ("==PROF== ...") are skipped.
// Nsight Compute records no framework ops and no problem sizes, so its kernels are listed with
// their measured time and math path (tensor-core share) and stay not mapped.
#include <filesystem>
#include <string>
#include <string_view>

#include "workload/profile/profile.h"

namespace tcsim::workload {

// True for a CSV whose header has "Kernel Name" and either a gpu__ metric column or "Metric Name".
bool is_ncu_csv_file(const std::filesystem::path& file);
// InputError(file:line) for a CSV from another ncu page (no per-kernel duration), bad numbers
// or units.
Profile parse_ncu_csv(std::string_view text, const std::string& file_name);
Profile read_ncu_csv(const std::filesystem::path& file);

}  // namespace tcsim::workload
