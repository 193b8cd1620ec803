#include "workload/profile/read_profile.h"

#include "common/error.h"
#include "workload/profile/kineto_trace.h"

namespace tcsim::workload {

bool is_profile_file(const std::filesystem::path& file) { return is_kineto_trace_file(file); }

Profile read_profile(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) throw InputError(file.string(), "file not found");
  if (is_kineto_trace_file(file)) return read_kineto_trace(file);
  throw InputError(file.string(), "not a profile tcsim reads (a PyTorch profiler trace: JSON with \"traceEvents\")");
}

}  // namespace tcsim::workload
