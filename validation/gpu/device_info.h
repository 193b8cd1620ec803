#pragma once
// Shared helpers of the CUDA validation tools: checked CUDA calls, the device description that
// every output's meta.yaml carries, atomic file writes and a watchdog so no tool can hang.
//
// Exit codes of every tool: 0 success, 1 CUDA or internal failure, 2 bad command line or input,
// 3 no usable CUDA device (no GPU, no driver, or a GPU too old for the tool).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace tcv {

constexpr int kExitCuda = 1;
constexpr int kExitInput = 2;
constexpr int kExitNoDevice = 3;

// The tool name used in messages ("mma_probe: error: ..."); set once by main().
void set_tool_name(const char* name);
const char* tool_name();

[[noreturn]] void fail(int exit_code, const std::string& what);
[[noreturn]] void cuda_fail(cudaError_t e, const char* call, const char* file, int line);

#define TCV_CUDA(call)                                                        \
  do {                                                                        \
    cudaError_t tcv_e_ = (call);                                              \
    if (tcv_e_ != cudaSuccess) ::tcv::cuda_fail(tcv_e_, #call, __FILE__, __LINE__); \
  } while (0)

// Checks the last kernel launch and waits for it, so an error is reported at its launch site.
#define TCV_KERNEL_CHECK()                                \
  do {                                                    \
    TCV_CUDA(cudaGetLastError());                         \
    TCV_CUDA(cudaDeviceSynchronize());                    \
  } while (0)

struct DeviceInfo {
  int device = 0;
  std::string name;          // "NVIDIA H100 80GB HBM3"
  std::string short_name;    // "H100" (directory and file names)
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int sm_clock_khz = 0;      // peak (cudaDevAttrClockRate)
  int mem_clock_khz = 0;     // peak (cudaDevAttrMemoryClockRate)
  int mem_bus_bits = 0;
  int l2_bytes = 0;
  std::size_t global_mem_bytes = 0;
  int smem_per_sm = 0, smem_per_block_optin = 0;
  int runtime_version = 0, driver_api_version = 0;   // 13000 = 13.0
  std::string nvidia_driver;                          // from /proc/driver/nvidia/version
  int cc() const { return cc_major * 10 + cc_minor; }
  std::string arch() const { return "sm_" + std::to_string(cc()); }
};

// Selects the device and describes it. Exits with kExitNoDevice and a clear message when there
// is no usable CUDA device.
DeviceInfo open_device(int device);

// A short GPU name from the marketing name: "NVIDIA H100 80GB HBM3" -> "H100",
// "Tesla V100-SXM2-16GB" -> "V100", "NVIDIA A100-SXM4-40GB" -> "A100".
std::string short_gpu_name(const std::string& name);

std::string utc_now_iso();
std::string command_line(int argc, char** argv);
std::string yaml_quote(const std::string& s);
std::string version_text(int v);     // 13000 -> "13.0"

// meta.yaml text: the device block plus `extra` (key, already-formatted YAML value) pairs.
std::string meta_yaml(const DeviceInfo& dev, const std::string& command,
                      const std::vector<std::pair<std::string, std::string>>& extra);

// Writes text to path atomically (temporary file in the same folder, then rename); exits with
// code 1 and a message naming the file on failure.
void write_file_atomic(const std::string& path, const std::string& text);
void make_dirs(const std::string& path);   // mkdir -p; exits with a message on failure

// Kills the process with exit code 124 and a message after `seconds` (0 = no watchdog).
void start_watchdog(unsigned seconds);

}  // namespace tcv
