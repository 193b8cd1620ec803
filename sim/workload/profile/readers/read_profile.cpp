#include "workload/profile/readers/read_profile.h"

#include "common/error.h"
#include "workload/profile/readers/kineto_trace.h"
#include "workload/profile/readers/ncu_csv.h"
#include "workload/profile/readers/nsys_sqlite.h"

namespace tcsim::workload {

bool is_profile_file(const std::filesystem::path& file) {
  return is_kineto_trace_file(file) || is_sqlite_file(file) || is_ncu_csv_file(file);
}

Profile read_profile(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) throw InputError(file.string(), "file not found");
  if (is_kineto_trace_file(file)) return read_kineto_trace(file);
  if (is_sqlite_file(file)) return read_nsys_sqlite(file);
  if (is_ncu_csv_file(file)) return read_ncu_csv(file);
  throw InputError(file.string(), "not a profile tcsim reads (a PyTorch profiler trace, an Nsight Systems SQLite "
                                  "export or an Nsight Compute CSV)");
}

}  // namespace tcsim::workload
