#pragma once
// Any profile file tcsim reads, detected by its content: a PyTorch profiler (Kineto) trace.
#include <filesystem>

#include "workload/profile/profile.h"

namespace tcsim::workload {

bool is_profile_file(const std::filesystem::path& file);
Profile read_profile(const std::filesystem::path& file);

}  // namespace tcsim::workload
