// The `kind: gpu` schema: every GPU parameter, declared once. Defaults describe a V100 SXM2 so
// that a minimal config runs; the shipped configs (configs/gpu/*.yaml) give every value with its
// source.
#include <limits>

#include "config/schema.h"
#include "gpu/gpu_config.h"

namespace tcsim::gpu {
namespace {

using config::Param;
using config::ParamType;
using config::Schema;
constexpr double inf = std::numeric_limits<double>::infinity();

Schema mma_record() {
  Schema r("mma", "one row of the MMA instruction table");
  r.add({"name", ParamType::string, "", "SASS name, e.g. HMMA.884.F32.F32"});
  r.add({"kind", ParamType::choice, "sync", "sync (wmma/mma.sync) or wgmma (sm_90 warpgroup, asynchronous)",
         -inf, inf, {"sync", "wgmma"}});
  r.add({"shape", ParamType::string, "", "PTX shape mMnNkK, e.g. m16n16k16 (wgmma: the largest N)"});
  r.add({"ab", ParamType::string, "", "operand formats it accepts, comma-separated, e.g. fp16,bf16"});
  r.add({"acc", ParamType::string, "", "accumulator format, e.g. fp32"});
  r.add({"sass_count", ParamType::integer, "1", "SASS MMAs one PTX instruction compiles to", 1, 64});
  r.add({"issue_interval", ParamType::cycles, "", "sub-core tensor-pipe cycles per SASS MMA (wgmma: at the largest N)",
         0.01, 4096});
  r.add({"latency", ParamType::cycles, "", "cycles from the last SASS MMA's issue to the result (wgmma: at the largest N)",
         1, 100000});
  r.add({"fma_per_clk", ParamType::number, "", "ideal dense FMA per clock per sub-core (checked against shape/interval)",
         1, 1e6});
  r.add({"issue_cycles", ParamType::cycles, "1", "scheduler cycles to issue one PTX instruction", 1, 64});
  r.add({"sparse", ParamType::boolean, "false",
         "2:4 structured-sparse A (mma.sp / wgmma.sp): shape K and fma_per_clk count the dense-equivalent MACs"});
  return r;
}

Schema vf_record() {
  Schema r("power.vf_curve", "one point of the voltage-frequency curve");
  r.add({"clock", ParamType::frequency, "", "SM clock", 1e6, 1e10});
  r.add({"voltage", ParamType::voltage, "", "core voltage the firmware sets at that clock", 0.1, 5});
  return r;
}

// Power and energy. Defaults: a V100 SXM2 (configs/gpu/v100.yaml gives each value with its source).
void add_power(Schema& s) {
  s.add({"power.mode", ParamType::choice, "fixed",
         "fixed: every kernel runs at `clock`; boost: at the highest clock step whose predicted board power stays "
         "within power.limit (what the boost firmware does)",
         -inf, inf, {"fixed", "boost"}});
  s.add({"power.limit", ParamType::power, "300W", "board power limit (TDP)", 0, 1e5});
  s.add({"power.idle", ParamType::power, "0W", "board power at idle (memory, regulators, fans, the idle chip)", 0, 1e5});
  s.add({"power.leakage", ParamType::power, "0W",
         "extra static power of the busy chip at the reference voltage (power.energy_voltage, else the curve's last "
         "point; scales with the voltage)", 0, 1e5});
  s.add({"power.min_clock", ParamType::frequency, "1MHz", "lowest clock the firmware lowers to under the power limit",
         1e3, 1e10});
  s.add({"power.clock_step", ParamType::frequency, "15MHz", "clock step of the firmware's table", 1e3, 1e9});
  s.add_list("power.vf_curve", vf_record(),
             "voltage-frequency curve: {clock, voltage} points, clocks increasing, voltages not decreasing");
  s.add({"power.energy_voltage", ParamType::voltage, "0V",
         "core voltage at which power.energy.* and power.leakage are quoted (0: the curve's last point); set it to "
         "extend a curve above the clock a chip's figures belong to (a GeForce board boosting past its published "
         "clock) without restating every energy",
         0, 5});
  const char* at_nominal = " at the reference voltage (power.energy_voltage, else the curve's last point)";
  auto energy = [&](const char* key, const char* what) {
    s.add({std::string("power.energy.") + key, ParamType::energy, "0J", std::string(what) + at_nominal, 0, 1e-6});
  };
  energy("instruction", "dynamic energy per warp instruction issued (fetch, decode, schedule, operand collection)");
  energy("ffma", "dynamic energy per thread FP32 lane operation (FFMA, FADD, FMUL)");
  energy("mufu", "dynamic energy per thread special-function result (MUFU ex2, rcp, rsqrt)");
  energy("rf_read", "dynamic energy per warp-register read (32 lanes x 32 bit)");
  energy("mma_fp16", "dynamic energy per dense tensor-core MAC, fp16 operands");
  energy("mma_bf16", "dynamic energy per dense tensor-core MAC, bf16 operands");
  energy("mma_tf32", "dynamic energy per dense tensor-core MAC, tf32 operands");
  energy("mma_fp8", "dynamic energy per dense tensor-core MAC, fp8 (e4m3/e5m2) operands");
  energy("mma_int8", "dynamic energy per dense tensor-core MAC, int8 (and int4) operands");
  auto per_byte = [&](const char* key, const char* what) {
    s.add({std::string("power.energy.") + key, ParamType::energy_per_byte, "0pJ/B", what, 0, 1e-6});
  };
  per_byte("smem", (std::string("dynamic energy per shared-memory byte read or written") + at_nominal).c_str());
  per_byte("l1", (std::string("dynamic energy per L1 byte (global loads through L1)") + at_nominal).c_str());
  per_byte("l2", (std::string("dynamic energy per L2 byte read or written (crossbar included)") + at_nominal).c_str());
  per_byte("dram", "energy per DRAM byte read or written, interface included (its own supply: not scaled with the core voltage)");
}

Schema make_schema() {
  Schema s("gpu", "An NVIDIA GPU: SMs of sub-cores with tensor cores, shared memory, L1, L2 and DRAM");
  s.add({"name", ParamType::string, "gpu", "name shown in results, e.g. V100-SXM2"});
  s.add({"arch", ParamType::choice, "sm_70", "architecture: selects the MMA instructions and kernel-mapping rules",
         -inf, inf, {"sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_120"}});
  s.add({"clock", ParamType::frequency, "1530MHz", "SM clock during the kernel", 1e6, 1e10});

  s.add({"sm.count", ParamType::integer, "80", "number of SMs", 1, 4096});
  s.add({"sm.subcores", ParamType::integer, "4", "sub-cores (processing blocks) per SM", 1, 16});
  s.add({"sm.max_warps", ParamType::integer, "64", "resident warps per SM", 1, 1024});
  s.add({"sm.max_ctas", ParamType::integer, "32", "resident CTAs per SM", 1, 1024});
  s.add({"sm.max_threads_per_cta", ParamType::integer, "1024", "threads per CTA", 32, 4096});
  s.add({"sm.registers", ParamType::integer, "65536", "32-bit registers per SM", 1024, 1 << 24});
  s.add({"sm.max_registers_per_thread", ParamType::integer, "255", "registers one thread may use", 16, 1024});
  s.add({"sm.max_shared_memory", ParamType::bytes, "96KiB", "shared memory per SM (largest carve-out)", 0, 1e9});
  s.add({"sm.max_shared_memory_per_cta", ParamType::bytes, "96KiB", "shared memory one CTA may use", 0, 1e9});
  s.add({"sm.fp32_lanes_per_subcore", ParamType::integer, "16", "FP32 FFMA lanes per sub-core (CUDA-core rate)", 1, 256});
  s.add({"sm.ffma_latency", ParamType::cycles, "4", "dependent FFMA latency", 1, 1000});
  s.add({"sm.int32_lanes_per_subcore", ParamType::integer, "16",
         "32-bit integer results (add, multiply-add, shift, compare) per clock per sub-core", 1, 1024});
  s.add({"sm.sfu_lanes_per_subcore", ParamType::integer, "4",
         "special-function (MUFU exp2/rcp) lanes per sub-core; 16 results/clk/SM on cc 5.x-9.0 (CUDA C++ "
         "Programming Guide, arithmetic instruction throughput)", 1, 256});

  s.add({"scheduler.per_subcore", ParamType::integer, "1", "warp schedulers per sub-core", 1, 8});
  s.add({"scheduler.policy", ParamType::choice, "gto", "warp scheduling policy (greedy-then-oldest or loose round robin)",
         -inf, inf, {"gto", "lrr"}});
  s.add({"scheduler.warp_slots", ParamType::integer, "16", "warps one scheduler holds", 1, 256});
  s.add({"scheduler.issue_per_clk", ParamType::integer, "1", "instructions each scheduler issues per clock", 1, 8});

  s.add({"register_file.banks_per_subcore", ParamType::integer, "2",
         "register-file banks per sub-core (register r lives in bank r mod banks)", 1, 64});
  s.add({"register_file.read_ports_per_bank", ParamType::integer, "1",
         "warp-register reads one bank serves per clock (MMA/FFMA source operands wait for them)", 1, 16});

  s.add({"tensor.copy_engine", ParamType::choice, "ldg_sts",
         "how tiles travel global->shared: ldg_sts (sm_70/75), cp_async (sm_80), tma (sm_90)",
         -inf, inf, {"ldg_sts", "cp_async", "tma"}});
  s.add_list("mma", mma_record(), "the MMA instruction table (shape, formats, issue interval, latency, rate)");

  s.add({"shared_memory.banks", ParamType::integer, "32", "shared-memory banks (bank conflicts: sim/gpu/sm/smem_banks.h)", 1, 1024});
  s.add({"shared_memory.bank_width", ParamType::bytes, "4B", "bytes one bank delivers per cycle (a word)", 1, 64});
  s.add({"shared_memory.bandwidth", ParamType::bytes_per_cycle, "128B/clk", "shared-memory bandwidth per SM", 1, 1e6});
  s.add({"shared_memory.latency", ParamType::cycles, "27", "shared-memory load latency", 1, 10000});
  s.add({"shared_memory.instruction_interval", ParamType::cycles, "0",
         "cycles between the shared-memory instructions (LDS, ldmatrix, STS) the SM takes, from any sub-core "
         "(0: only the banks limit them)", 0, 64});
  s.add({"l1.size", ParamType::bytes, "128KiB", "unified L1 + shared memory per SM", 0, 1e9});
  s.add({"l1.bandwidth", ParamType::bytes_per_cycle, "128B/clk", "L1 bandwidth per SM", 1, 1e6});
  s.add({"l1.latency", ParamType::cycles, "34", "L1 hit latency", 1, 10000});
  s.add({"l1.narrow_request_interval", ParamType::cycles, "0",
         "cycles per SM between the L1 requests of operand copies made of accesses narrower than 16 B (cp.async of "
         "4 or 8 B, LDG+STS of 2 B: GEMMs whose leading dimensions are not multiples of 16 bytes); a request is a "
         "warp's 32 accesses, at most 128 B. 0: not limited",
         0, 1e6});

  s.add({"l2.size", ParamType::bytes, "6MiB", "L2 size", 1024, 1e12});
  s.add({"l2.line_requests_per_clock", ParamType::number, "0",
         "line requests the L2 serves per SM clock, chip-wide, each one 128-byte line's sectors of a warp access; "
         "binds PyTorch's strided elementwise kernels whose warps touch many lines (a channels-last tensor read "
         "channel by channel: one line per lane). 0: not limited",
         0, 1e6});
  s.add({"l2.partitions", ParamType::integer, "1", "L2 partitions (A100/H100: 2)", 1, 64});
  s.add({"l2.bandwidth", ParamType::bytes_per_cycle, "1536B/clk", "theoretical L2 bandwidth of the whole GPU", 1, 1e7});
  s.add({"l2.efficiency", ParamType::number, "0.9", "achievable fraction of the L2 bandwidth (microbenchmark)", 0.05, 1});
  s.add({"l2.latency", ParamType::cycles, "211", "L2 hit latency (load to use), in the SM's near partition", 1, 100000});
  s.add({"l2.far_latency", ParamType::cycles, "0",
         "L2 hit latency in a far partition (0: same as l2.latency); addresses interleave over the partitions", 0,
         100000});
  s.add({"dram.size", ParamType::bytes, "0B",
         "device memory capacity (tcsim network warns when a step needs more; 0: not given)", 0, 1e15});
  s.add({"dram.bandwidth", ParamType::bandwidth, "900GB/s", "theoretical DRAM bandwidth", 1e6, 1e15});
  s.add({"dram.efficiency", ParamType::number, "0.8", "achievable fraction of the DRAM bandwidth (microbenchmark)", 0.05, 1});
  s.add({"dram.latency", ParamType::cycles, "313", "L2-miss latency (load to use, whole trip)", 1, 100000});
  s.add({"dram.channels", ParamType::integer, "32", "independent DRAM channels, each limited to one row activation per activate_interval", 1, 4096});
  s.add({"dram.activate_interval", ParamType::time, "0s",
         "tRRD: minimum time between row activations in one channel; streams that use few bytes per row opened "
         "(K-contiguous operand tiles) become activation-bound (0: not modelled)", 0, 1e-6});
  s.add({"dram.run_overhead", ParamType::bytes, "0B",
         "bus time lost per short run of an operand tile's row (a GEMM's K-contiguous k-tile, a GEMV's row "
         "segment), in bytes: each run of r bytes moves at r / (r + this) of the streaming rate, the row switch "
         "that bank parallelism does not hide (0: not modelled)",
         0, 4096});
  s.add({"dram.access_granularity", ParamType::bytes, "64B", "smallest DRAM access (bus width x burst)", 1, 4096});

  s.add({"kernel.launch_overhead", ParamType::time, "4.7us", "time per kernel launch seen by back-to-back host timing",
         0, 1});
  s.add({"kernel.empty_duration", ParamType::time, "0s",
         "profiled (CUPTI) duration of an empty kernel: grid launch, CTA dispatch and drain, the floor of any "
         "kernel's own duration; charged to the helper kernels of a convolution call (layout transposes, filter "
         "reorders), whose work is a few microseconds (0: not measured, not charged)",
         0, 1});
  s.add({"kernel.queue_gap", ParamType::time, "0s",
         "time from a kernel's end to the start of the next kernel already queued behind it in a stream (eager "
         "launches): a loop's or a training step's time per launch includes it, a profiler's kernel durations and "
         "CUDA-graph replays do not (0: not measured, or part of kernel.launch_overhead)",
         0, 1});
  s.add({"host.kernel_overhead", ParamType::time, "0s",
         "CPU time an eager framework (PyTorch) spends dispatching one op/kernel; timings taken around one op "
         "call include it, a step of kernels shorter than it is host-bound",
         0, 1});
  // One cost per class of op (workload/host_op_class.h), where a host's ops differ: the lent H200
  // VM's (sim/engine/README.md, "Host cost by op class").
  for (HostOpClass c : kHostOpClasses)
    s.add({"host.op_overhead." + std::string(to_string(c)), ParamType::time, "0s",
           "CPU time an eager framework spends dispatching one " + std::string(to_string(c)) +
               " op in an inference step (0: host.kernel_overhead); workload/host_op_class.h says which "
               "kernels count as which class. A training step's forward ops cost host.autograd_factor times "
               "this, its backward and optimizer launches host.kernel_overhead",
           0, 1});
  // CALIBRATION (named): fitted on the lent H200 VM's Hugging Face BERT-large AMP training step
  // (validation/measured/H200/networks, host-bound: the GPU busy 40.8 of its 110.6 ms); every other
  // training step is held out (sim/engine/README.md, "Autograd on the host").
  s.add({"host.autograd_factor", ParamType::number, "1.5",
         "host cost of an op in an eager (PyTorch) training step's forward pass, as a multiple of "
         "host.kernel_overhead (which is an op's cost without autograd: inference mode, single ops): autograd "
         "records the backward graph (a node per op, saved tensors, version counters) as the forward runs; "
         "backward and optimizer ops cost host.kernel_overhead, and graph frameworks (TensorFlow, MXNet) none of it",
         1, 10});
  s.add({"host.launch_delay", ParamType::time, "0s",
         "the part of host.kernel_overhead before the op's kernel is launched: an op timed alone on an idle GPU "
         "starts its kernel this late",
         0, 1});
  s.add({"library.cudnn_version", ParamType::number, "8.9",
         "cuDNN release the convolutions run with (a conv kernel may name its own): before 8, FP32 algorithms "
         "follow the rules learnt from cuDNN 7.6's heuristic; from 8 on, benchmark mode (the fastest modelled "
         "algorithm), as PyTorch with cudnn.benchmark runs it. See sim/gpu/README.md, Convolutions",
         5, 20});
  s.add({"library.cublas_version", ParamType::number, "12.1",
         "cuBLAS release the GEMMs run with (a measured set's GEMM may name its own): before 11, fp16 GEMMs whose "
         "M, N or K is not a multiple of 8 ran without tensor cores (HFMA2) on sm_70/75; from 11 on they run on the "
         "tensor cores, padded (NVIDIA's Matrix Multiplication Background guide, Tensor Core Requirements). The "
         "default is the CUDA 12.1 of library.pytorch_version's default. See sim/gpu/README.md, How a kernel is simulated",
         9, 20});
  s.add({"library.cudnn_benchmark", ParamType::boolean, "true",
         "true: cuDNN >= 8 convolutions run the fastest modelled algorithm (PyTorch's cudnn.benchmark = True); "
         "false: cuDNN's own heuristic (PyTorch's default), modelled from cuDNN 9 on: its FP32 forward "
         "convolutions run implicit GEMM, never Winograd or FFT (the H100 trace, sim/gpu/README.md, Convolutions)"});
  s.add({"library.pytorch_version", ParamType::string, "2.1",
         "PyTorch release whose ATen kernels the memory-bound ops run (major.minor, e.g. 2.11): the "
         "softmax forward's block size and its shared-memory and register paths changed after 2.1. "
         "The default is the release of NeuSight's measurements. See sim/gpu/README.md, Memory-bound kernels"});
  s.add({"library.sgemm_tile", ParamType::string, "auto",
         "for analysis: the cuBLAS SIMT kernel every FP32 CUDA-core GEMM runs, as its CTA tile in tcsim's M x N "
         "(cuBLAS's name transposed for row-major callers such as PyTorch: ampere_sgemm_128x32 is 32x128), "
         "e.g. 32x128, or 32x32-sliced for a sliced1x4 kernel; auto: the fastest candidate (cuBLAS's batched "
         "rule for batched SGEMMs). cuDNN's own kernels keep theirs. scripts/sgemm_tile_bias.py uses it"});
  add_power(s);
  s.add({"calibration.tile_overhead", ParamType::cycles, "0",
         "global knob: fixed cycles per CTA tile (prologue, index math, epilogue sync); fitted on V100 only", 0, 1e6});
  s.add({"calibration.mma_efficiency", ParamType::number, "1",
         "global knob: fraction of the MMA table rate GEMM main loops sustain (instruction-mix losses); fitted on V100 only",
         0.3, 1});
  s.add({"calibration.ffma_efficiency", ParamType::number, "1",
         "global knob: fraction of the FFMA rate SIMT GEMM main loops sustain; fitted on V100 only", 0.3, 1});
  return s;
}

}  // namespace

const config::Schema& config_schema() {
  static const config::Schema schema = make_schema();
  return schema;
}

}  // namespace tcsim::gpu
