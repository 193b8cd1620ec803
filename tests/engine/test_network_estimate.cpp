// Network estimation (engine/network): identical kernels simulated once, the launch queue (a step
// of short kernels is host-bound; CUDA graphs remove the per-kernel cost), per-layer sums, kernels
// a model does not run (not modelled, never dropped silently), and precision checks.
#include <doctest/doctest.h>

#include <array>
#include <atomic>
#include <cmath>
#include <filesystem>

#include "common/error.h"
#include "engine/network/launch_queue.h"
#include "engine/load_accelerator.h"
#include "engine/network/network_estimate.h"
#include "test_support.h"
#include "workload/network/reader/network_reader.h"

using namespace tcsim;
using namespace tcsim::engine;

namespace {

// time = 1 us per GEMM-like kernel, 0.5 us per memory kernel; counts its runs; optionally no
// memory-bound kernels (like a systolic array without a vector unit) or no fp16.
class CountingAccelerator : public Accelerator {
 public:
  bool memory_kernels = true, fp16 = true;
  double host = 0, autograd = 1, gap = 0;
  mutable std::atomic<int> runs{0};
  std::string name() const override { return "counting"; }
  double clock_hz() const override { return 1e9; }
  double host_overhead_s() const override { return host; }
  // Per op class (host.op_overhead.*): 0 leaves the class at `host`.
  std::array<double, 5> op_host{};
  double host_op_overhead_s(HostOpClass c) const override {
    return op_host[std::size_t(c)] > 0 ? op_host[std::size_t(c)] : host;
  }
  double host_autograd_factor() const override { return autograd; }
  double queue_gap_s() const override { return gap; }
  KernelResult run(const Kernel& k) const override {
    if (k.kind == Kernel::Kind::memory && !memory_kernels) throw InputError(k.name, "no vector unit");
    if (k.kind == Kernel::Kind::attention) throw InputError(k.name, "no fused attention");
    if (!fp16 && k.a_format == FormatId::fp16) throw InputError(k.name, "no fp16 unit");
    ++runs;
    KernelResult r;
    r.time_s = k.kind == Kernel::Kind::memory ? 0.5e-6 : 1e-6;
    r.flops = k.flops();
    r.bound = k.kind == Kernel::Kind::memory ? "dram" : "tensor";
    return r;
  }
};

const char* kNet = R"(version: 1
kind: network
name: mlp
task: image
input: [4, 4, 4]
defaults: {batch: 2}
layers:
  - {name: flat, kind: flatten}
  - repeat: 4
    name: block
    layers:
      - {name: fc, kind: linear, out_features: 64}
      - {name: act, kind: relu}
  - {name: out, kind: linear, out_features: 10}
)";

}  // namespace

TEST_CASE("network estimate: repeated layers are simulated once and counted per copy") {
  CountingAccelerator acc;
  const auto net = workload::parse_network(kNet, "mlp.yaml");
  NetworkRunOptions opt;
  const NetworkEstimate e = estimate_network(acc, net, opt);
  // Distinct kernels: block.fc, block.act, out (flatten moves nothing); the probe GEMM adds one run.
  CHECK(e.distinct_kernels == 3);
  CHECK(acc.runs.load() == 3 + 1);
  CHECK(e.launches == 4 + 4 + 1);
  CHECK(e.gpu_time_s == doctest::Approx(4 * 1e-6 + 4 * 0.5e-6 + 1e-6));
  CHECK(e.step_time_s == doctest::Approx(e.gpu_time_s));  // no host cost
  CHECK_FALSE(e.host_bound);
  REQUIRE(e.layers.size() == net.layers.size());
  const LayerEstimate& fc = e.layers[1];
  CHECK(fc.name == "block.fc");
  CHECK(fc.count == 4);
  CHECK(fc.launches == 4);
  CHECK(fc.forward_s == doctest::Approx(4e-6));
  CHECK(fc.bound == "tensor");
  CHECK(e.throughput() == doctest::Approx(2 / e.step_time_s));
}

TEST_CASE("network estimate: the launch queue makes short kernels host-bound; CUDA graphs do not") {
  CountingAccelerator acc;
  acc.host = 10e-6;  // every kernel is shorter than its launch
  const auto net = workload::parse_network(kNet, "mlp.yaml");
  NetworkRunOptions opt;
  const NetworkEstimate e = estimate_network(acc, net, opt);
  CHECK(e.host_bound);
  CHECK(e.host_time_s == doctest::Approx(9 * 10e-6));
  CHECK(e.step_time_s == doctest::Approx(9 * 10e-6 + 1e-6));  // the last kernel runs after its launch
  CHECK(e.layers[1].bound == "host");
  opt.cuda_graphs = true;
  const NetworkEstimate g = estimate_network(acc, net, opt);
  CHECK(g.step_time_s == doctest::Approx(g.gpu_time_s + 10e-6));  // one graph launch
  CHECK(g.step_time_s < e.step_time_s / 4);
}

TEST_CASE("network estimate: eager launches wait the stream's queue gap; a CUDA graph's replay does not") {
  CountingAccelerator acc;
  acc.gap = 2e-6;
  const auto net = workload::parse_network(kNet, "mlp.yaml");
  NetworkRunOptions opt;
  const NetworkEstimate e = estimate_network(acc, net, opt);
  const double kernels = 4 * 1e-6 + 4 * 0.5e-6 + 1e-6;
  CHECK(e.queue_gap_time_s == doctest::Approx(9 * 2e-6));
  CHECK(e.gpu_time_s == doctest::Approx(kernels + 9 * 2e-6));
  CHECK(e.step_time_s == doctest::Approx(e.gpu_time_s));  // no host cost: the gaps are GPU-side
  CHECK_FALSE(e.host_bound);
  CHECK(e.layers[1].time_s() == doctest::Approx(4 * 1e-6));  // a layer's time is its kernels'
  opt.cuda_graphs = true;
  const NetworkEstimate g = estimate_network(acc, net, opt);
  CHECK(g.queue_gap_time_s == 0);
  CHECK(g.gpu_time_s == doctest::Approx(kernels));
}

TEST_CASE("launch queue: the queue gap precedes each launch and is not kernel time") {
  LaunchQueue q(0, 1e-6);
  q.launch(3e-6, 4);
  CHECK(q.finish_s() == doctest::Approx(16e-6));
  CHECK(q.gpu_busy_s() == doctest::Approx(12e-6));
  CHECK(q.gaps_s() == doctest::Approx(4e-6));
  LaunchQueue h(5e-6, 1e-6);  // host-bound: each kernel starts a gap after its launch
  h.launch(1e-6, 3);          // launched at 5, 10, 15 us
  CHECK(h.finish_s() == doctest::Approx(17e-6));
}

TEST_CASE("network estimate: cuDNN launches a recurrent layer's per-step kernels inside one op, at no host cost of theirs") {
  CountingAccelerator acc;
  acc.host = 10e-6;  // longer than any kernel: charged per launch, the step would be host-bound
  const auto net = workload::parse_network(R"(version: 1
kind: network
name: lstm
task: sequence
input: [16]
defaults: {batch: 2, seq: 50}
layers:
  - {name: lstm, kind: rnn, cell: lstm, hidden: 16}
)", "lstm.yaml");
  NetworkRunOptions opt;
  const NetworkEstimate e = estimate_network(acc, net, opt);
  CHECK(e.launches == 1 + 2 * 50);  // the input GEMM, then a recurrent GEMM and a cell kernel per step
  CHECK(e.host_time_s == doctest::Approx(10e-6));  // the one op's dispatch
  CHECK(e.step_time_s == doctest::Approx(10e-6 + 51 * 1e-6 + 50 * 0.5e-6));
  CHECK_FALSE(e.host_bound);
  opt.training = true;
  opt.optimizer_step = false;
  const NetworkEstimate t = estimate_network(acc, net, opt);
  CHECK(t.host_time_s == doctest::Approx(2 * 10e-6));  // _cudnn_rnn and _cudnn_rnn_backward
  CHECK_FALSE(t.host_bound);
}

TEST_CASE("network estimate: an eager training step's forward ops cost the host autograd's factor; backward and inference do not") {
  CountingAccelerator acc;
  acc.host = 10e-6;  // host-bound: the step is the host's time
  const auto net = workload::parse_network(kNet, "mlp.yaml");
  NetworkRunOptions opt;
  opt.training = true;
  opt.optimizer_step = false;
  const NetworkEstimate plain = estimate_network(acc, net, opt);
  acc.autograd = 2;
  const NetworkEstimate e = estimate_network(acc, net, opt);
  std::int64_t forward = 0, other = 0;
  for (const KernelEstimate& k : e.kernels)
    (k.lowered.phase == workload::StepPhase::forward ? forward : other) += k.lowered.kernel.count;
  REQUIRE(forward > 0);
  REQUIRE(other > 0);
  CHECK(plain.host_time_s == doctest::Approx(double(forward + other) * 10e-6));
  CHECK(e.host_time_s == doctest::Approx(double(2 * forward + other) * 10e-6));
  CHECK(e.step_time_s > plain.step_time_s + 0.9 * double(forward) * 10e-6);
  CHECK(e.gpu_time_s == doctest::Approx(plain.gpu_time_s));  // the GPU's work is the same
  // The layer's host time: its forward launches at 2 x 10 us, its backward ones at 10 us.
  const LayerEstimate& fc = e.layers[1];
  REQUIRE(fc.launches > 4);
  CHECK(fc.host_s > double(fc.launches) * 10e-6);
  CHECK(fc.bound == "host");
  bool noted = false;
  for (const auto& n : e.notes) noted = noted || n.find("x2 in the forward pass: autograd") != std::string::npos;
  CHECK(noted);
  // TensorFlow and MXNet run a graph built beforehand, and inference has no autograd: no factor.
  opt.framework = workload::Framework::tensorflow;
  CHECK(estimate_network(acc, net, opt).host_time_s == doctest::Approx(plain.host_time_s));
  opt.framework = workload::Framework::pytorch;
  opt.training = false;
  const NetworkEstimate infer = estimate_network(acc, net, opt);
  CHECK(infer.host_time_s == doctest::Approx(double(infer.launches) * 10e-6));
}

TEST_CASE("network estimate: each forward op costs the host its class's cost; backward launches host.kernel_overhead") {
  CountingAccelerator acc;
  acc.host = 10e-6;
  acc.op_host[std::size_t(HostOpClass::gemm)] = 40e-6;
  acc.op_host[std::size_t(HostOpClass::elementwise)] = 4e-6;
  const auto net = workload::parse_network(kNet, "mlp.yaml");
  NetworkRunOptions opt;
  // Inference: 5 linear layers (GEMMs) at 40 us and 4 ReLUs at 4 us, host-bound.
  const NetworkEstimate infer = estimate_network(acc, net, opt);
  REQUIRE(infer.launches == 9);
  CHECK(infer.host_time_s == doctest::Approx(5 * 40e-6 + 4 * 4e-6));
  CHECK(infer.step_time_s >= infer.host_time_s);
  CHECK(infer.layers[1].host_s == doctest::Approx(4 * 40e-6));  // block.fc, four copies
  CHECK(infer.layers[2].host_s == doctest::Approx(4 * 4e-6));   // block.act
  bool noted = false;
  for (const auto& n : infer.notes) noted = noted || n.find("host.op_overhead.* by class") != std::string::npos;
  CHECK(noted);
  // Training: forward ops at their class's cost times autograd's factor, the rest at 10 us each.
  opt.training = true;
  opt.optimizer_step = false;
  acc.autograd = 2;
  const NetworkEstimate train = estimate_network(acc, net, opt);
  double expected = 0;
  for (const KernelEstimate& k : train.kernels) {
    const double n = double(k.lowered.kernel.count);
    if (k.lowered.phase != workload::StepPhase::forward) expected += n * 10e-6;
    else expected += n * 2 * (k.lowered.kernel.kind == Kernel::Kind::gemm ? 40e-6 : 4e-6);
  }
  CHECK(train.host_time_s == doctest::Approx(expected));
  // A CUDA graph replaces every launch's cost by one graph launch at host.kernel_overhead.
  opt.training = false;
  opt.cuda_graphs = true;
  CHECK(estimate_network(acc, net, opt).host_time_s == doctest::Approx(10e-6));
}

TEST_CASE("host op class: GEMMs, convolutions and fused attention by kind; norms by their op, forward and backward") {
  Kernel k;
  k.kind = Kernel::Kind::gemm;
  CHECK(host_op_class(k) == HostOpClass::gemm);
  k.kind = Kernel::Kind::conv;
  CHECK(host_op_class(k) == HostOpClass::convolution);
  k.kind = Kernel::Kind::attention;
  CHECK(host_op_class(k) == HostOpClass::attention);
  k.kind = Kernel::Kind::memory;
  for (const char* op : {"batch_norm", "batch_norm_nhwc_backward", "layer_norm", "layer_norm_gamma_beta", "rms_norm"}) {
    k.memory.op = op;
    CHECK_MESSAGE(host_op_class(k) == HostOpClass::normalization, op);
  }
  // "norm" alone is a vector norm (gradient clipping), an elementwise-class reduction.
  for (const char* op : {"add", "cast", "softmax", "norm", "copy", "embedding", "reduce"}) {
    k.memory.op = op;
    CHECK_MESSAGE(host_op_class(k) == HostOpClass::elementwise, op);
  }
  CHECK(to_string(HostOpClass::normalization) == "normalization");
}

TEST_CASE("launch queue: a launch's own host cost replaces the queue's") {
  LaunchQueue q(5e-6);
  q.launch(1e-6, 2, 15e-6);  // launched at 15 and 30 us
  CHECK(q.host_s() == doctest::Approx(30e-6));
  CHECK(q.finish_s() == doctest::Approx(31e-6));
}

TEST_CASE("launch queue: a long kernel hides the launches behind it") {
  LaunchQueue q(5e-6);
  q.launch(100e-6);   // starts at 5 us, ends at 105 us
  q.launch(1e-6, 3);  // launched at 10, 15, 20 us: run back to back after 105 us
  CHECK(q.finish_s() == doctest::Approx(108e-6));
  CHECK(q.gpu_busy_s() == doctest::Approx(103e-6));
  CHECK(q.host_s() == doctest::Approx(20e-6));
}

TEST_CASE("launch queue: after a synchronize (.item()) the launches cannot hide behind the GPU") {
  LaunchQueue q(5e-6);
  q.launch(100e-6);   // ends at 105 us
  q.synchronize();    // the host waits until 105 us
  q.launch(1e-6, 3);  // launched at 110, 115, 120 us: each waits for its launch
  CHECK(q.finish_s() == doctest::Approx(121e-6));
  CHECK(q.host_s() == doctest::Approx(120e-6));
}

namespace {
// The queue launch by launch, as the framework issues them: the closed forms must agree with it.
struct SteppedQueue {
  double host, gap = 0, cpu = 0, gpu = 0, busy = 0;
  void launch(double t, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i) cpu += host, gpu = std::max(gpu, cpu) + gap + t, busy += t;
  }
  void synchronize() { cpu = std::max(cpu, gpu); }
};
}  // namespace

TEST_CASE("launch queue: N launches and N runs of a block in closed form match launching one by one") {
  for (const double host : {0.0, 2e-6, 5e-6, 9e-6})
  for (const double gap : {0.0, 1.5e-6}) {
    CAPTURE(host);
    CAPTURE(gap);
    // A mix of kernels shorter and longer than a launch, a synchronize inside the block, and a
    // long kernel before it so that the block starts with the GPU behind or ahead of the host.
    auto block = [](auto& q) {
      q.launch(3e-6, 2);
      q.launch(0.5e-6, 5);
      q.synchronize();
      q.launch(12e-6, 1);
      q.launch(1e-6, 3);
    };
    for (const std::int64_t times : std::vector<std::int64_t>{1, 2, 7, 64, 1000}) {
      CAPTURE(times);
      LaunchQueue q(host, gap);
      SteppedQueue s{host, gap};
      q.launch(40e-6, 1);
      s.launch(40e-6, 1);
      q.repeat(times, block);
      for (std::int64_t c = 0; c < times; ++c) block(s);
      CHECK(q.finish_s() == doctest::Approx(s.gpu).epsilon(1e-12));
      CHECK(q.host_s() == doctest::Approx(s.cpu).epsilon(1e-12));
      CHECK(q.gpu_busy_s() == doctest::Approx(s.busy).epsilon(1e-12));
    }
  }
}

TEST_CASE("network estimate: a repeat block of three billion copies is replayed in closed form") {
  CountingAccelerator acc;
  acc.host = 0.7e-6;  // between the memory kernel (0.5 us) and the GEMM (1 us): neither side always waits
  auto with_copies = [&](const char* copies) {
    std::string y = kNet;
    y.replace(y.find("repeat: 4"), 9, std::string("repeat: ") + copies);
    return estimate_network(acc, workload::parse_network(y, "mlp.yaml"), NetworkRunOptions{});
  };
  const NetworkEstimate b = with_copies("3000000000"), s = with_copies("3000"), s2 = with_copies("6000");
  CHECK(b.launches == 2 * 3000000000LL + 1);
  // Each copy adds the same time once the queue is in its periodic regime: the step grows linearly.
  const double per_copy = (s2.step_time_s - s.step_time_s) / 3000;
  CHECK(per_copy == doctest::Approx(1.5e-6));  // GPU-bound: the two launches take 1.4 us of host time
  CHECK(b.step_time_s == doctest::Approx(s.step_time_s + (3e9 - 3000) * per_copy).epsilon(1e-9));
  CHECK(b.gpu_time_s == doctest::Approx(3e9 * 1.5e-6 + 1e-6).epsilon(1e-9));
}

TEST_CASE("network estimate: per-sample readbacks after an inference forward run one at a time, host and GPU in turn") {
  CountingAccelerator acc;
  acc.host = 10e-6;
  const auto net = workload::parse_network(kNet, "mlp.yaml");  // batch 2, output [10]
  NetworkRunOptions opt;
  const NetworkEstimate plain = estimate_network(acc, net, opt);
  opt.per_sample_readbacks = 2;
  const NetworkEstimate read = estimate_network(acc, net, opt);
  // 2 samples x 2 copies of a 5-element row, each 10 us of host then 0.5 us on the GPU, after the
  // forward pass has drained: the step ends 4 x 10.5 us after the later of host and GPU.
  CHECK(read.launches == plain.launches + 4);
  CHECK(read.step_time_s == doctest::Approx(std::max(plain.step_time_s, plain.host_time_s) + 4 * 10.5e-6));
  const LayerEstimate& out = read.layers.back();
  CHECK(out.name == "out");
  CHECK(out.launches == 1 + 4);
  opt.training = true;  // a training step reads back nothing per sample
  CHECK(estimate_network(acc, net, opt).launches == estimate_network(acc, net, NetworkRunOptions{.training = true}).launches);
}

TEST_CASE("network estimate: memory kernels a model lacks are listed as not modelled") {
  CountingAccelerator acc;
  acc.memory_kernels = false;
  const auto net = workload::parse_network(kNet, "mlp.yaml");
  const NetworkEstimate e = estimate_network(acc, net, NetworkRunOptions{});
  CHECK(e.not_modelled == 4);
  CHECK(e.gpu_time_s == doctest::Approx(5e-6));
  REQUIRE_FALSE(e.layers[2].flags.empty());
  CHECK(e.layers[2].flags[0].find("not modelled") != std::string::npos);
  bool noted = false;
  for (const auto& n : e.notes) noted |= n.find("not modelled") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("network estimate: a not-modelled kernel's flag names its own launch, not the one simulated for its key") {
  CountingAccelerator acc;
  acc.memory_kernels = false;
  const auto net = workload::parse_network(R"(version: 1
kind: network
name: two_relus
task: image
input: [4, 4, 4]
defaults: {batch: 2}
layers:
  - {name: first_relu, kind: relu}
  - {name: second_relu, kind: relu}
)", "relus.yaml");
  const NetworkEstimate e = estimate_network(acc, net, NetworkRunOptions{});
  CHECK(e.distinct_kernels == 1);  // one key, simulated once (and failed once)
  REQUIRE(e.layers[1].flags.size() == 1);
  CHECK(e.layers[1].flags[0] == "second_relu not modelled: no vector unit");
}

TEST_CASE("network estimate: every shipped network trains on the shipped A100 with every kernel modelled") {
  // A memory-bound kernel the GPU model rejects is reported as not modelled and left out of the
  // step's time; on a GPU that is always a lowering bug (bias and layer-norm weight gradients over
  // more tokens than features once were).
  const auto acc = load_accelerator(test::source_dir() / "configs/gpu/a100_80gb.yaml");
  for (const auto& entry : std::filesystem::directory_iterator(test::source_dir() / "models")) {
    if (entry.path().extension() != ".yaml") continue;
    CAPTURE(entry.path().filename().string());
    workload::NetworkVariables vars;
    vars.batch = 2;  // small steps: what is checked is the kernels' shapes, not their cost
    if (entry.path().filename().string().rfind("llama", 0) == 0) vars.seq = 512;
    const auto net = workload::read_network(entry.path(), vars);
    NetworkRunOptions opt;
    opt.training = true;
    opt.precision = workload::Precision::amp_fp16;
    opt.jobs = 1;
    const NetworkEstimate e = estimate_network(*acc, net, opt);
    CHECK(e.not_modelled == 0);
    for (const auto& l : e.layers)
      for (const auto& f : l.flags) CHECK_MESSAGE(f.find("not modelled") == std::string::npos, f);
  }
}

TEST_CASE("network estimate: a bigger batch never takes less GPU time (ViT-B/16's 197 tokens on Volta and Turing)") {
  // 197 tokens make M a multiple of 8 only at batches divisible by 8. Before cuBLAS 11 those GEMMs ran
  // without tensor cores on sm_70/75, and at the default (later) release they must not: a sweep found
  // batch 4 on the T4 slower than batch 8 (library.cublas_version, sim/gpu/README.md).
  for (const char* gpu : {"t4", "v100"}) {
    CAPTURE(gpu);
    const auto acc = load_accelerator(test::source_dir() / "configs/gpu" / (std::string(gpu) + ".yaml"));
    double previous = 0;
    for (int batch : {1, 2, 3, 4, 6, 8}) {
      CAPTURE(batch);
      workload::NetworkVariables vars;
      vars.batch = batch;
      const auto net = workload::read_network(test::source_dir() / "models/vit_b_16.yaml", vars);
      NetworkRunOptions opt;
      opt.precision = workload::Precision::amp_fp16;
      opt.jobs = 1;
      const NetworkEstimate e = estimate_network(*acc, net, opt);
      CHECK(e.gpu_time_s > previous);
      previous = e.gpu_time_s;
    }
  }
}

TEST_CASE("network estimate: an inference engine's int8 ResNet-50 on the T4 fuses its epilogues and beats fp16") {
  // TensorRT-style: batch norm, ReLU and the residual add + ReLU of each bottleneck run in the conv
  // epilogues, which write the next conv's int8 input; the T4's int8 tensor cores run at twice
  // fp16's rate. Eager int8 quantizes with a vectorized kernel per conv (not PyTorch's cast).
  const auto t4 = load_accelerator(test::source_dir() / "configs/gpu/t4.yaml");
  workload::NetworkVariables vars;
  vars.batch = 128;
  const auto net = workload::read_network(test::source_dir() / "models/resnet50.yaml", vars);
  auto step = [&](workload::Precision p, bool engine) {
    NetworkRunOptions opt;
    opt.precision = p;
    opt.conv_layout = TensorLayout::nhwc;
    opt.fuse_epilogues = engine;
    opt.cuda_graphs = engine;
    opt.jobs = 1;
    return estimate_network(*t4, net, opt);
  };
  const NetworkEstimate int8 = step(workload::Precision::int8, true), fp16 = step(workload::Precision::fp16, true);
  CHECK(int8.gpu_time_s < 0.7 * fp16.gpu_time_s);
  int adds = 0, quantize = 0, residual_convs = 0;
  for (const auto& k : int8.kernels) {
    const Kernel& kernel = k.lowered.kernel;
    adds += kernel.kind == Kernel::Kind::memory && kernel.memory.op == "add";
    quantize += kernel.kind == Kernel::Kind::memory && kernel.memory.op == "quantize";
    residual_convs += kernel.epilogue_inputs == 1 ? int(kernel.count) : 0;
  }
  CHECK(adds == 0);
  CHECK(residual_convs == 16);  // one per bottleneck
  CHECK(quantize == 2);         // the images and the classifier's pooled input (the max pool runs int8)
  // The table says where each fused layer went: the first block's add into its shortcut conv, the
  // one computed last.
  bool flagged = false;
  for (const auto& l : int8.layers)
    if (l.name == "layer1_0_add")
      for (const auto& f : l.flags) flagged |= f == "fused into layer1_0_down's epilogue";
  CHECK(flagged);
  const NetworkEstimate eager = step(workload::Precision::int8, false);
  CHECK(eager.gpu_time_s > 2 * int8.gpu_time_s);
  CHECK(eager.gpu_time_s < step(workload::Precision::fp16, false).gpu_time_s);
}

TEST_CASE("network estimate: every shipped network trains on the A10 and runs int8 inference on the T4") {
  // The A10 (sm_86) has 99 KB of shared memory per CTA: FlashAttention-2's backward takes its
  // smaller tiles there (it once threw "does not fit an SM"). The T4 has no fused attention: int8
  // inference runs attention as fp16 GEMMs, accumulated in fp32 (it once asked for fp16 x fp16 ->
  // s32, which no tensor core has).
  struct Case {
    const char* config;
    bool training;
    workload::Precision precision;
  };
  for (const Case& c : {Case{"configs/gpu/a10.yaml", true, workload::Precision::bf16},
                        Case{"configs/gpu/t4.yaml", false, workload::Precision::int8}}) {
    const auto acc = load_accelerator(test::source_dir() / c.config);
    for (const auto& entry : std::filesystem::directory_iterator(test::source_dir() / "models")) {
      if (entry.path().extension() != ".yaml") continue;
      CAPTURE(c.config);
      CAPTURE(entry.path().filename().string());
      workload::NetworkVariables vars;
      vars.batch = 1;
      if (entry.path().filename().string().rfind("llama", 0) == 0) vars.seq = 256;
      const auto net = workload::read_network(entry.path(), vars);
      NetworkRunOptions opt;
      opt.training = c.training;
      opt.precision = c.precision;
      opt.jobs = 1;
      const NetworkEstimate e = estimate_network(*acc, net, opt);
      CHECK(e.not_modelled == 0);
      CHECK(e.gpu_time_s > 0);
    }
  }
}

TEST_CASE("network estimate: a precision the accelerator lacks is an input error naming it") {
  CountingAccelerator acc;
  acc.fp16 = false;
  const auto net = workload::parse_network(kNet, "mlp.yaml");
  NetworkRunOptions opt;
  opt.precision = workload::Precision::amp_fp16;
  try {
    (void)estimate_network(acc, net, opt);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.where() == "--precision");
    CHECK(std::string(e.what()).find("amp-fp16") != std::string::npos);
  }
}

namespace {
// A token network (batch 2, seq 8): an embedding, then these layers.
workload::Network moe_network(const std::string& layers) {
  return workload::parse_network("version: 1\nkind: network\nname: moe\ntask: tokens\ndefaults: {batch: 2, seq: 8}\nlayers:\n"
                                 "  - {name: emb, kind: embedding, vocab: 50, dim: 16}\n" + layers,
                                 "moe.yaml");
}
}  // namespace

TEST_CASE("network estimate: a host sync in a repeat block waits in every copy (a mixture of experts' nonzero)") {
  CountingAccelerator acc;
  acc.host = 0.2e-6;  // shorter than every kernel: the GPU waits for the host only after a sync
  const auto net = moe_network("  - repeat: 3\n    name: block\n    layers:\n      - {name: moe, kind: moe, experts: 2, ffn: 32}\n");
  NetworkRunOptions opt;
  const NetworkEstimate e = estimate_network(acc, net, opt);
  // Routed dispatch: each expert's gather and scatter wait on nonzero: 2 x 2 syncs per copy, 3 copies.
  // After each the GPU idles one launch; so does it before the first kernel.
  CHECK(e.gpu_time_s > 0);
  const double idle_launches = (e.step_time_s - e.gpu_time_s) / acc.host;
  CHECK(idle_launches == doctest::Approx(1 + 3 * 2 * 2));
}

TEST_CASE("network estimate: CUDA graphs cannot capture a step that reads values back between kernels") {
  CountingAccelerator acc;
  const auto net = moe_network("  - {name: moe, kind: moe, experts: 2, ffn: 32, router: topk, top_k: 1}\n");
  NetworkRunOptions opt;
  opt.cuda_graphs = true;
  CHECK_THROWS_WITH_AS(estimate_network(acc, net, opt), doctest::Contains("layer 'moe' (moe.yaml:8) reads values back"),
                       InputError);
}

namespace {

// A board with a power limit: clocks 1000, 900, ..., 100 MHz; a GEMM-like kernel takes 1000 cycles
// and a memory kernel 500, and a kernel's power at f is (f / 1 GHz)^2 W (energy per cycle grows
// with the clock, as V^2 does), so a step's average power rises with the clock.
class PoweredAccelerator : public Accelerator {
 public:
  double limit = 1, idle = 0, host = 0;
  mutable std::atomic<int> runs{0};
  std::string name() const override { return "powered"; }
  double clock_hz() const override { return 1e9; }
  double host_overhead_s() const override { return host; }
  bool models_energy() const override { return true; }
  double idle_power_w() const override { return idle; }
  double power_limit_w() const override { return limit; }
  std::vector<double> power_capped_clocks() const override {
    std::vector<double> c;
    for (int i = 10; i >= 1; --i) c.push_back(i * 1e8);
    return c;
  }
  KernelResult run(const Kernel& k) const override { return run_fixed_clock(k, 1e9); }
  KernelResult run_fixed_clock(const Kernel& k, double hz) const override {
    ++runs;
    KernelResult r;
    r.cycles = k.kind == Kernel::Kind::memory ? 500 : 1000;
    r.time_s = r.cycles / hz;
    r.flops = k.flops();
    r.bound = "tensor";
    r.set("energy_j", r.time_s * (hz / 1e9) * (hz / 1e9));
    return r;
  }
};

}  // namespace

TEST_CASE("network estimate: a power limit holds the step's kernels at one clock, the highest whose step average fits") {
  PoweredAccelerator acc;
  const auto net = workload::parse_network(kNet, "mlp.yaml");
  acc.limit = 2;  // 1 W at boost: within the limit
  const NetworkEstimate boost = estimate_network(acc, net, NetworkRunOptions{});
  CHECK(boost.step_clock_hz == doctest::Approx(1e9));
  CHECK(boost.power_bound_launches == 0);
  CHECK(boost.avg_power_w() == doctest::Approx(1.0));
  acc.limit = 0.5;  // 0.49 W at 700 MHz, 0.64 W at 800 MHz
  const NetworkEstimate capped = estimate_network(acc, net, NetworkRunOptions{});
  CHECK(capped.step_clock_hz == doctest::Approx(7e8));
  CHECK(capped.boost_avg_power_w == doctest::Approx(1.0));
  CHECK(capped.avg_power_w() == doctest::Approx(0.49));
  CHECK(capped.gpu_time_s == doctest::Approx(boost.gpu_time_s / 0.7));
  CHECK(capped.power_bound_launches == capped.launches);
  for (const KernelEstimate& k : capped.kernels)
    CHECK(k.result.time_s == doctest::Approx((k.lowered.kernel.kind == Kernel::Kind::memory ? 500 : 1000) / 7e8));
  bool noted = false;
  for (const auto& n : capped.notes)
    noted |= n.find("power-limited step") != std::string::npos && n.find("700 MHz") != std::string::npos;
  CHECK(noted);
  // Idle gaps count in the average: a host-bound step (50 us a launch against 1-2 us kernels)
  // averages far below its kernels' power and keeps the boost clock.
  acc.host = 50e-6;
  const NetworkEstimate host_bound = estimate_network(acc, net, NetworkRunOptions{});
  CHECK(host_bound.host_bound);
  CHECK(host_bound.step_clock_hz == doctest::Approx(1e9));
  CHECK(host_bound.avg_power_w() <= 0.5);
  acc.host = 0;
  acc.limit = 0.001;  // below even the lowest clock's power: the floor
  CHECK(estimate_network(acc, net, NetworkRunOptions{}).step_clock_hz == doctest::Approx(1e8));
}

TEST_CASE("network estimate: the T4's 70 W holds a ResNet-50 step at the highest clock step within the limit") {
  const auto acc = load_accelerator(test::source_dir() / "configs/gpu/t4.yaml");
  workload::NetworkVariables vars;
  vars.batch = 64;
  const auto net = workload::read_network(test::source_dir() / "models/resnet50.yaml", vars);
  NetworkRunOptions opt;
  opt.precision = workload::Precision::amp_fp16;
  opt.conv_layout = TensorLayout::nhwc;
  const NetworkEstimate e = estimate_network(*acc, net, opt);
  REQUIRE(e.step_clock_hz > 0);
  CHECK(e.step_clock_hz < e.boost_clock_hz);
  CHECK(e.boost_avg_power_w > 70);
  CHECK(e.avg_power_w() <= 70.0 + 1e-9);
  // One clock step (15 MHz) higher would draw more than the limit.
  const auto faster = load_accelerator(test::source_dir() / "configs/gpu/t4.yaml",
                                       {"power.mode=fixed", "clock=" + std::to_string(std::llround(e.step_clock_hz / 1e6) + 15) + "MHz"});
  CHECK(estimate_network(*faster, net, opt).avg_power_w() > 70);
  for (const KernelEstimate& k : e.kernels)
    if (k.modelled) CHECK(k.result.get("clock_mhz").value_or(0) == doctest::Approx(e.step_clock_hz / 1e6));
}

TEST_CASE("network estimate: an evaluation step adds the loss and the top-1 / top-5 accuracy kernels") {
  CountingAccelerator acc;
  acc.host = 10e-6;
  workload::NetworkVariables vars;
  vars.batch = 4;
  const auto net = workload::read_network(test::source_dir() / "models/resnet50.yaml", vars);
  NetworkRunOptions opt;
  const NetworkEstimate plain = estimate_network(acc, net, opt);
  opt.eval_metrics = true;
  const NetworkEstimate eval = estimate_network(acc, net, opt);
  // log_softmax and nll_loss; topk, its sort, eq, then per k: (a copy for top-5) float, sum, mul_.
  CHECK(eval.launches == plain.launches + 2 + 3 + 3 + 4);
  int accuracy = 0;
  for (const KernelEstimate& k : eval.kernels) accuracy += k.lowered.kernel.name.rfind("accuracy.", 0) == 0;
  CHECK(accuracy == 10);
  opt.precision = workload::Precision::amp_fp16;  // autocast casts the fp16 logits up for the loss
  opt.eval_metrics = false;
  const NetworkEstimate amp_plain = estimate_network(acc, net, opt);
  opt.eval_metrics = true;
  CHECK(estimate_network(acc, net, opt).launches == amp_plain.launches + 1 + 2 + 3 + 3 + 4);
  opt.training = true;
  CHECK_THROWS_WITH_AS(estimate_network(acc, net, opt), doctest::Contains("--pass infer"), InputError);
  opt.training = false;
  CHECK_THROWS_WITH_AS(estimate_network(acc, workload::parse_network(kNet, "mlp.yaml"), opt),
                       doctest::Contains("no cross_entropy"), InputError);
}
