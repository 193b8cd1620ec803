#pragma once
// Nsight Systems SQLite exports (`nsys export --type sqlite report.nsys-rep`, or `nsys-exporter -s`
// on older versions), read through SQLite. Format in traces/README.md ("Nsight Systems exports").
//
// Read:
//  - CUPTI_ACTIVITY_KIND_KERNEL (required): start, end (ns), deviceId, streamId, correlationId,
//    demangledName or shortName (ids into StringIds(id, value)), gridX/Y/Z, blockX/Y/Z;
//  - CUPTI_ACTIVITY_KIND_MEMCPY / _MEMSET (when present): their time, listed as GPU work;
//  - CUPTI_ACTIVITY_KIND_RUNTIME (when present): the launch call (correlationId, globalTid, start);
//  - NVTX_EVENTS (when present): push/pop ranges (eventType 59) with text or textId, globalTid,
//    start, end. PyTorch's emit_nvtx(record_shapes=True) names each op's range
//    "aten::addmm, seq = 12, sizes = [[1024], [64, 512], [512, 1024]]": these become ops with their
//    input sizes, and a kernel belongs to the innermost range around its launch call.
//  - TARGET_INFO_GPU.name (when present) as meta "gpu".
// NVTX records no dtypes and no scalar arguments: dtypes come from the kernels' names
// (profile_links.h), and ops that need scalars (convolution stride and padding) stay not mapped.
#include <filesystem>
#include <string>

#include "workload/profile/profile.h"

namespace tcsim::workload {

bool is_sqlite_file(const std::filesystem::path& file);  // by its 16-byte header
// InputError for a file SQLite cannot open, a database without the kernel table or its columns
// (table: column), and rows with missing values (table:row N).
Profile read_nsys_sqlite(const std::filesystem::path& file);

}  // namespace tcsim::workload
