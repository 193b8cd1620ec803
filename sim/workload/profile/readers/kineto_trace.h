#pragma once
// PyTorch profiler traces: the Chrome-trace JSON that torch.profiler writes through Kineto
// (prof.export_chrome_trace(path), or tensorboard_trace_handler), recorded with
// record_shapes=True; plain or gzip-compressed (use_gzip=True, *.pt.trace.json.gz).
// Format in traces/README.md ("PyTorch profiler traces").
//
// Read: "traceEvents" complete events ("ph": "X") of category
//  - cpu_op (older traces: Operator): the op calls, args "External id", "Input Dims",
//    "Input type", optional "Input Strides" and "Concrete Inputs";
//  - cuda_runtime / cuda_driver (older: Runtime): launches, args "correlation" and "External id";
//  - kernel (older: Kernel), gpu_memcpy, gpu_memset (Memcpy, Memset): GPU work with "ts"/"dur" in
//    microseconds and args "correlation", "External id", "device", "stream", "grid", "block".
// A kernel belongs to the cpu_op whose External id it carries (or its launch's, through the
// correlation id; Kineto's "ac2g" flow events join the same two ids and add nothing).
// "deviceProperties"[0].name, when present, is kept as meta "gpu".
#include <filesystem>
#include <string>
#include <string_view>

#include "workload/profile/profile.h"

namespace tcsim::workload {

// True when the text looks like a Chrome trace (a JSON object with "traceEvents" near its start).
bool is_kineto_trace_text(std::string_view head);
bool is_kineto_trace_file(const std::filesystem::path& file);

// InputError(file:line:column, ...) for malformed JSON (truncated files included), a missing
// "traceEvents" array, or events whose fields have the wrong types.
Profile parse_kineto_trace(std::string_view text, const std::string& file_name);
Profile read_kineto_trace(const std::filesystem::path& file);

}  // namespace tcsim::workload
