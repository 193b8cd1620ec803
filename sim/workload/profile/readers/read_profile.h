#pragma once
// Any profile file tcsim reads, detected by its content: a PyTorch profiler (Kineto) trace
// (kineto_trace.h), an Nsight Systems SQLite export (nsys_sqlite.h) or an Nsight Compute CSV (ncu_csv.h).
#include <filesystem>

#include "workload/profile/profile.h"

namespace tcsim::workload {

bool is_profile_file(const std::filesystem::path& file);
Profile read_profile(const std::filesystem::path& file);

}  // namespace tcsim::workload
