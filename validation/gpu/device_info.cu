#include "device_info.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <cctype>
#include <fstream>
#include <sstream>

namespace tcv {
namespace {
const char* g_tool = "tcsim-cuda";

void on_alarm(int) {
  static const char msg[] = ": error: watchdog: the run took longer than its --timeout; killed\n";
  ssize_t r = write(2, g_tool, std::strlen(g_tool));
  r = write(2, msg, sizeof msg - 1);
  (void)r;
  _exit(124);
}

int attr(cudaDeviceAttr a, int dev) {
  int v = 0;
  TCV_CUDA(cudaDeviceGetAttribute(&v, a, dev));
  return v;
}
}  // namespace

void set_tool_name(const char* name) { g_tool = name; }
const char* tool_name() { return g_tool; }

void fail(int exit_code, const std::string& what) {
  std::fprintf(stderr, "%s: error: %s\n", g_tool, what.c_str());
  std::exit(exit_code);
}

void cuda_fail(cudaError_t e, const char* call, const char* file, int line) {
  std::fprintf(stderr, "%s: error: CUDA call failed: %s: %s (%s) at %s:%d\n", g_tool, call,
               cudaGetErrorName(e), cudaGetErrorString(e), file, line);
  std::exit(kExitCuda);
}

std::string short_gpu_name(const std::string& name) {
  std::istringstream in(name);
  std::string tok;
  while (in >> tok) {
    if (tok == "NVIDIA" || tok == "Tesla" || tok == "GeForce" || tok == "Quadro") continue;
    std::string out;
    for (char ch : tok) {
      if (ch == '-' || ch == '_') break;
      if (std::isalnum(static_cast<unsigned char>(ch))) out += ch;
    }
    if (!out.empty()) return out;
  }
  return "GPU";
}

std::string version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

DeviceInfo open_device(int device) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::string why = e != cudaSuccess ? std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e)
                                       : std::string("the driver reports 0 devices");
    if (e == cudaErrorInsufficientDriver)
      why += "; no NVIDIA driver is loaded, or it is older than this CUDA " + version_text(CUDART_VERSION) +
             " runtime needs";
    fail(kExitNoDevice, "no CUDA device (" + why + "); this tool needs an NVIDIA GPU");
  }
  if (device < 0 || device >= count)
    fail(kExitInput, "--device " + std::to_string(device) + ": expected 0.." + std::to_string(count - 1));
  TCV_CUDA(cudaSetDevice(device));
  cudaDeviceProp p{};
  TCV_CUDA(cudaGetDeviceProperties(&p, device));
  DeviceInfo d;
  d.device = device;
  d.name = p.name;
  d.short_name = short_gpu_name(d.name);
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.global_mem_bytes = p.totalGlobalMem;
  d.sm_clock_khz = attr(cudaDevAttrClockRate, device);
  d.mem_clock_khz = attr(cudaDevAttrMemoryClockRate, device);
  d.mem_bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth, device);
  d.l2_bytes = attr(cudaDevAttrL2CacheSize, device);
  d.smem_per_sm = attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  d.smem_per_block_optin = attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  TCV_CUDA(cudaRuntimeGetVersion(&d.runtime_version));
  TCV_CUDA(cudaDriverGetVersion(&d.driver_api_version));
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  if (std::getline(f, line)) {
    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul ..." or
    // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...":
    // the first word after "Module" made of digits and dots with at least one dot.
    auto pos = line.find("Module");
    std::istringstream in(pos == std::string::npos ? line : line.substr(pos + 6));
    for (std::string word; in >> word;) {
      bool version = word.find('.') != std::string::npos && std::isdigit(static_cast<unsigned char>(word[0]));
      for (char c : word) version = version && (std::isdigit(static_cast<unsigned char>(c)) || c == '.');
      if (version) { d.nvidia_driver = word; break; }
    }
  }
  if (d.nvidia_driver.empty()) d.nvidia_driver = "unknown";
  return d;
}

std::string utc_now_iso() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    s += argv[i];
  }
  return s;
}

std::string yaml_quote(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

std::string meta_yaml(const DeviceInfo& d, const std::string& command,
                      const std::vector<std::pair<std::string, std::string>>& extra) {
  std::ostringstream o;
  o << "# Written by the tcsim CUDA validation harness (validation/gpu). Measured, not edited.\n";
  o << "gpu: " << yaml_quote(d.short_name) << "\n";
  o << "gpu_name: " << yaml_quote(d.name) << "\n";
  o << "arch: " << d.arch() << "\n";
  o << "compute_capability: \"" << d.cc_major << "." << d.cc_minor << "\"\n";
  o << "sm_count: " << d.sm_count << "\n";
  o << "sm_clock_max_mhz: " << d.sm_clock_khz / 1000 << "   # cudaDevAttrClockRate (peak)\n";
  o << "mem_clock_max_mhz: " << d.mem_clock_khz / 1000 << "   # cudaDevAttrMemoryClockRate (peak)\n";
  o << "mem_bus_bits: " << d.mem_bus_bits << "\n";
  o << "l2_bytes: " << d.l2_bytes << "\n";
  o << "global_mem_bytes: " << d.global_mem_bytes << "\n";
  o << "nvidia_driver: " << yaml_quote(d.nvidia_driver) << "\n";
  o << "cuda_driver_version: \"" << version_text(d.driver_api_version) << "\"\n";
  o << "cuda_runtime_version: \"" << version_text(d.runtime_version) << "\"\n";
  o << "tool: " << g_tool << "\n";
  o << "command_line: " << yaml_quote(command) << "\n";
  o << "date_utc: \"" << utc_now_iso() << "\"\n";
  for (const auto& kv : extra) o << kv.first << ": " << kv.second << "\n";
  return o.str();
}

void make_dirs(const std::string& path) {
  std::string cur;
  std::size_t i = 0;
  while (i <= path.size()) {
    std::size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    cur = path.substr(0, j);
    if (!cur.empty() && mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
      fail(kExitCuda, "cannot create directory " + cur + ": " + std::strerror(errno));
    i = j + 1;
  }
}

void write_file_atomic(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) fail(kExitCuda, "cannot write " + tmp + ": " + std::strerror(errno));
    f << text;
    f.flush();
    if (!f) fail(kExitCuda, "cannot write " + tmp + ": " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    fail(kExitCuda, "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno));
}

void start_watchdog(unsigned seconds) {
  if (seconds == 0) return;
  signal(SIGALRM, on_alarm);
  alarm(seconds);
}

}  // namespace tcv
