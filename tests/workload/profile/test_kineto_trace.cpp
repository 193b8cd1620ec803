// PyTorch profiler (Kineto) traces: reading, linking kernels to ops, the kernel-name classifier
// and the mapping of op calls to tcsim kernels (sim/workload/profile/).
#include <doctest/doctest.h>

#include <zlib.h>

#include <fstream>

#include "common/error.h"
#include "test_support.h"
#include "workload/profile/readers/read_profile.h"
#include "workload/profile/kernel_name.h"
#include "workload/profile/readers/kineto_trace.h"
#include "workload/profile/profile_mapping.h"
#include "small_kineto_trace.h"

using namespace tcsim;
using namespace tcsim::workload;

namespace {
const ProfiledCall* call_named(const ProfileMapping& m, const std::string& name) {
  for (const auto& c : m.calls)
    if (c.name == name) return &c;
  return nullptr;
}
}  // namespace

TEST_CASE("kineto trace: ops, kernels, links by External id and by correlation, nesting") {
  const Profile p = parse_kineto_trace(test::small_kineto_trace(), "t.json");
  CHECK(p.format == "kineto");
  CHECK(p.ops.size() == 10);
  REQUIRE(p.kernels.size() == 9);  // 8 kernels and the memcpy
  CHECK(p.meta.at(0).second == "NVIDIA A100-SXM4-40GB");
  // In start order: the memcpy (ts 150) comes first.
  CHECK(p.kernels[0].name.rfind("Memcpy", 0) == 0);
  CHECK(p.kernels[0].op == -1);
  const ProfiledKernel& gemm = p.kernels[1];
  REQUIRE(gemm.op >= 0);
  CHECK(p.ops[std::size_t(gemm.op)].name == "aten::addmm");
  CHECK(gemm.grid[0] == 8);
  CHECK(gemm.block[0] == 256);
  CHECK(p.ops[std::size_t(p.ops[std::size_t(gemm.op)].parent)].name == "aten::linear");
  // The relu kernel has no External id: found through its launch's correlation id.
  REQUIRE(p.kernels[2].op >= 0);
  CHECK(p.ops[std::size_t(p.kernels[2].op)].name == "aten::relu");
  // A TensorList argument keeps each tensor's sizes.
  for (const auto& op : p.ops)
    if (op.name == "aten::_fused_adam_") {
      REQUIRE(op.input_lists.size() > 5);
      CHECK(op.input_lists[0].size() == 3);
      CHECK(op.input_lists[0][0] == Dims{1024, 512});
    }
}

TEST_CASE("kineto trace: malformed files give file:line:column errors") {
  const std::string full = test::small_kineto_trace();
  const std::string truncated = full.substr(0, full.size() / 2);
  try {
    (void)parse_kineto_trace(truncated, "t.json");
    FAIL("expected an error");
  } catch (const InputError& e) {
    const std::string w = e.what();
    CHECK(w.find("t.json:") != std::string::npos);
    CHECK(w.find("ends early") != std::string::npos);
  }
  try {
    (void)parse_kineto_trace("{\"traceEvents\": [\n{\"ph\": \"X\",, }]}", "bad.json");
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("bad.json:2:") != std::string::npos);
    CHECK(std::string(e.what()).find("malformed JSON") != std::string::npos);
  }
  // A number past double's range is nlohmann's out_of_range, not a parse_error (fuzz_profile).
  CHECK_THROWS_WITH_AS((void)parse_kineto_trace("{\"traceEvents\": [{\"ts\": 4E4404}]}", "big.json"),
                       doctest::Contains("big.json: malformed JSON: number overflow"), InputError);
  CHECK_THROWS_WITH_AS((void)parse_kineto_trace("{\"schemaVersion\": 1}", "x.json"),
                       doctest::Contains("traceEvents"), InputError);
  CHECK_THROWS_WITH_AS((void)parse_kineto_trace(
                           R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": "soon", "dur": 1}]})", "y.json"),
                       doctest::Contains("traceEvents[0]: ts"), InputError);
  CHECK(is_kineto_trace_text("  {\"schemaVersion\": 1, \"traceEvents\": ["));
  CHECK_FALSE(is_kineto_trace_text("name,m,n,k\n"));
}

TEST_CASE("kernel names: tensor-core and CUDA-core paths of each generation") {
  struct Case {
    const char* name;
    MathPath path;
    const char* generation;
    NameFamily family;
  };
  const Case cases[] = {
      {"volta_h884gemm_64x64_ldg8_nn", MathPath::tensor_core, "volta", NameFamily::gemm},
      {"volta_fp16_s884cudnn_fp16_128x128_ldg8_relu_f2f_exp_small_nhwc2nchw_tn_v1", MathPath::tensor_core, "volta", NameFamily::conv},
      {"turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_tn", MathPath::tensor_core, "turing", NameFamily::gemm},
      {"turing_i8816gemm_int8_128x128_ldg16_nt", MathPath::tensor_core, "turing", NameFamily::gemm},
      {"ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_64x3_nn", MathPath::tensor_core, "ampere", NameFamily::gemm},
      {"cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8", MathPath::tensor_core, "ampere", NameFamily::gemm},
      {"sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x16_stage4_warpsize2x2x1_tensor16x8x8_kernel", MathPath::tensor_core, "ampere", NameFamily::gemm},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", MathPath::tensor_core, "hopper", NameFamily::gemm},
      {"nvjet_tst_128x256_64x4_1x2_h_bz_coopA_TNT", MathPath::tensor_core, "hopper", NameFamily::gemm},
      {"void cutlass::Kernel2<cutlass_80_wmma_tensorop_f16_s161616gemm_f16_32x32_128x1_tn_align8>(Params)", MathPath::tensor_core, "ampere", NameFamily::gemm},
      {"volta_sgemm_128x64_nn", MathPath::cuda_core, "volta", NameFamily::gemm},
      {"ampere_sgemm_128x32_sliced1x4_tn", MathPath::cuda_core, "ampere", NameFamily::gemm},
      {"void cutlass::Kernel<cutlass_80_simt_sgemm_128x128_8x4_nn_align1>(Params)", MathPath::cuda_core, "ampere", NameFamily::gemm},
      {"void cudnn::detail::implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, true, false, true>(int, int, int, float const*)", MathPath::cuda_core, "", NameFamily::conv},
      {"volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", MathPath::cuda_core, "volta", NameFamily::conv},
      {"void fft2d_r2c_32x32<float, false, 1u, false>(float2*, float const*, int)", MathPath::cuda_core, "", NameFamily::conv},
      {"void implicit_precomp_conv(cudnn::detail)", MathPath::cuda_core, "", NameFamily::conv},
      {"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::half_t>>(Flash_fwd_params)", MathPath::tensor_core, "", NameFamily::attention},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>(int)", MathPath::other, "", NameFamily::memory},
      {"void splitKreduce_kernel<32, 16, int, float, float, float>(cublasSplitKParams<float>)", MathPath::other, "", NameFamily::memory},
      {"my_custom_kernel", MathPath::other, "", NameFamily::other},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const KernelNameClass k = classify_kernel_name(c.name);
    CHECK(k.path == c.path);
    CHECK(k.generation == c.generation);
    CHECK(k.family == c.family);
  }
  CHECK(classify_kernel_name("sm80_xmma_dgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize").conv_pass == ConvPassHint::dgrad);
  CHECK(classify_kernel_name("sm80_xmma_dgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize").nhwc);
  CHECK_FALSE(classify_kernel_name("volta_fp16_s884cudnn_fp16_128x128_ldg8_relu_f2f_exp_small_nhwc2nchw_tn_v1").nhwc);
}

TEST_CASE("profile mapping: op calls to the kernels tcsim simulates; the rest listed with a reason") {
  const Profile p = parse_kineto_trace(test::small_kineto_trace(), "t.json");
  const ProfileMapping m = map_profile(p);
  CHECK(m.kernels == 9);
  CHECK(m.calls.size() == 8);  // the two convolution_backward kernels are one call
  CHECK(m.kernel_time_us == doctest::Approx(6 + 50 + 4 + 300 + 320 + 310 + 20 + 15 + 40));
  CHECK(m.span_us == doctest::Approx(1390 - 150));

  const ProfiledCall* addmm = call_named(m, "aten::addmm");
  REQUIRE(addmm);
  REQUIRE(addmm->sim.mapped);
  CHECK(addmm->phase == ProfilePhase::forward);
  CHECK(addmm->measured_tensor_core_us == 50);
  REQUIRE(addmm->sim.kernels.size() == 1);
  const Kernel& g = addmm->sim.kernels[0];
  CHECK(g.kind == Kernel::Kind::gemm);
  CHECK(g.m == 64);
  CHECK(g.n == 1024);
  CHECK(g.k == 512);
  CHECK(g.layout == Layout::NT);  // the weight's transpose: strides [1, 512]
  CHECK(g.a_format == FormatId::fp16);

  const ProfiledCall* conv = call_named(m, "aten::cudnn_convolution");
  REQUIRE(conv);
  REQUIRE(conv->sim.mapped);
  const Kernel& c = conv->sim.kernels.at(0);
  CHECK(c.kind == Kernel::Kind::conv);
  CHECK(c.a_format == FormatId::tf32);  // fp32 tensors, tensor-core kernel: TF32
  CHECK(c.conv.layout == TensorLayout::nhwc);
  CHECK(c.conv.pad_h == 1);
  CHECK(c.conv.out_h() == 56);

  const ProfiledCall* bwd = call_named(m, "aten::convolution_backward");
  REQUIRE(bwd);
  CHECK(bwd->phase == ProfilePhase::backward);
  CHECK(bwd->kernels.size() == 2);
  REQUIRE(bwd->sim.kernels.size() == 2);
  CHECK(bwd->sim.kernels[0].pass == Pass::data_grad);
  CHECK(bwd->sim.kernels[1].pass == Pass::weight_grad);

  const ProfiledCall* adam = call_named(m, "aten::_fused_adam_");
  REQUIRE(adam);
  REQUIRE(adam->sim.mapped);
  CHECK(adam->phase == ProfilePhase::optimizer);
  CHECK(adam->sim.family == "optimizer");
  const std::int64_t params = 1024 * 512 + 1024 + 64 * 64 * 9;
  CHECK(adam->sim.kernels[0].bytes_read == std::uint64_t(16 * params));
  CHECK(adam->sim.kernels[0].memory.op == "adam");

  const ProfiledCall* relu = call_named(m, "aten::relu");
  REQUIRE(relu);
  REQUIRE(relu->sim.mapped);
  CHECK(relu->sim.kernels[0].bytes_written == 64u * 1024u * 2u);

  const ProfiledCall* custom = call_named(m, "aten::my_custom_op");
  REQUIRE(custom);
  CHECK_FALSE(custom->sim.mapped);
  CHECK(custom->sim.reason.find("not mapped") != std::string::npos);
  bool nccl_listed = false;
  for (const auto& call : m.calls)
    if (call.name.rfind("ncclKernel", 0) == 0) nccl_listed = !call.sim.mapped && call.sim.reason.find("no recorded op") != std::string::npos;
  CHECK(nccl_listed);

  // Replayed in another precision: the GEMM takes its formats, the fp32 conv casts its weight once.
  const ProfileMapping amp = map_profile(p, Precision::amp_bf16);
  const ProfiledCall* conv_amp = call_named(amp, "aten::cudnn_convolution");
  REQUIRE(conv_amp);
  REQUIRE(conv_amp->sim.kernels.size() == 2);
  CHECK(conv_amp->sim.kernels[0].memory.op == "cast");
  CHECK(conv_amp->sim.kernels[1].a_format == FormatId::bf16);
  CHECK(call_named(amp, "aten::addmm")->sim.kernels.back().a_format == FormatId::bf16);
}

TEST_CASE("profile mapping: convolutions without Concrete Inputs are listed, not guessed") {
  const std::string t = R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::convolution", "tid": 1, "ts": 1, "dur": 5,
     "args": {"External id": 1, "Input Dims": [[8, 3, 32, 32], [16, 3, 3, 3], [16], [], [], [], [], [], []], "Input type": ["float", "float", "float"]}},
    {"ph": "X", "cat": "kernel", "name": "implicit_convolve_sgemm", "ts": 10, "dur": 5, "args": {"External id": 1}}]})";
  const ProfileMapping m = map_profile(parse_kineto_trace(t, "c.json"));
  REQUIRE(m.calls.size() == 1);
  CHECK_FALSE(m.calls[0].sim.mapped);
  CHECK(m.calls[0].sim.reason.find("Concrete Inputs") != std::string::npos);
}

TEST_CASE("kineto trace: gzip-compressed files (tensorboard_trace_handler(use_gzip=True)) read as they are") {
  const auto d = test::temp_dir("kineto_gz");
  const auto file = d / "worker.pt.trace.json.gz";
  const std::string text = test::small_kineto_trace();
  gzFile f = gzopen(file.string().c_str(), "wb");
  REQUIRE(f);
  REQUIRE(gzwrite(f, text.data(), unsigned(text.size())) == int(text.size()));
  gzclose(f);
  REQUIRE(is_profile_file(file));
  const Profile p = read_profile(file);
  CHECK(p.kernels.size() == 9);
  // A damaged one is an error, not a crash.
  std::string bytes = test::slurp(file);
  std::ofstream(d / "bad.json.gz", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  CHECK_THROWS_AS((void)read_kineto_trace(d / "bad.json.gz"), InputError);
}

TEST_CASE("profile mapping: autocast's casts of a layer's parameters read DRAM, its input's cast does not") {
  // aten::linear -> aten::to -> aten::_to_copy -> aten::copy_ (fp32 -> fp16), once for the input
  // [16384, 768] and once for the weight [3072, 768] (BERT-base's FFN under autocast): the weight was
  // last written by the previous step's optimizer, the input by the kernel before.
  auto cast = [](int id, int ts, const char* dims) {
    const std::string t = std::to_string(ts), c = std::to_string(100 + id);
    return std::string(R"J({"ph": "X", "cat": "cpu_op", "name": "aten::to", "pid": 1, "tid": 1, "ts": )J") + t +
           R"J(, "dur": 10, "args": {"Input Dims": [)J" + dims + R"J(], "Input type": ["float"]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::_to_copy", "pid": 1, "tid": 1, "ts": )J" + std::to_string(ts + 1) +
           R"J(, "dur": 8, "args": {"Input Dims": [)J" + dims + R"J(], "Input type": ["float"]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": 1, "ts": )J" + std::to_string(ts + 2) +
           R"J(, "dur": 6, "args": {"External id": )J" + std::to_string(id) + R"J(, "Input Dims": [)J" + dims + ", " + dims +
           R"J(], "Input type": ["c10::Half", "float"]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": )J" + std::to_string(ts + 3) +
           R"J(, "dur": 2, "args": {"External id": )J" + std::to_string(id) + R"J(, "correlation": )J" + c + R"J(}},
  {"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<8, at::native::float16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::float16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)", "pid": 0, "tid": 7, "ts": )J" +
           std::to_string(1000 + ts) + R"J(, "dur": 6, "args": {"External id": )J" + std::to_string(id) + R"J(, "correlation": )J" + c +
           R"J(, "device": 0, "stream": 7}})J";
  };
  const std::string trace = R"J({"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 100, "dur": 100,
   "args": {"Input Dims": [[128, 128, 768], [3072, 768], [3072]], "Input type": ["float", "float", "float"]}},
  )J" + cast(1, 110, "[128, 128, 768]") + ",\n  " + cast(2, 130, "[3072, 768]") + "]}";
  const ProfileMapping m = map_profile(parse_kineto_trace(trace, "casts.json"));
  std::vector<const ProfiledCall*> copies;
  for (const auto& c : m.calls)
    if (c.name == "aten::copy_") copies.push_back(&c);
  REQUIRE(copies.size() == 2);
  for (const ProfiledCall* c : copies) {
    REQUIRE(c->sim.mapped);
    REQUIRE(c->sim.kernels.size() == 1);
  }
  const Kernel& input = copies[0]->sim.kernels[0];
  const Kernel& weight = copies[1]->sim.kernels[0];
  CHECK(input.memory.elements == 128 * 128 * 768);
  CHECK_FALSE(input.memory.cold);
  CHECK(weight.memory.elements == 3072 * 768);
  CHECK(weight.memory.cold);
}

TEST_CASE("profile mapping: an op right after a fill larger than any L2 (a benchmark's flush) is marked evicted") {
  // validation/gpu/op_profile.py's cold suite: aten::zero_ of 256 MiB (its kernel is aten::fill_'s)
  // before each timed call; the second add follows the first, not a fill.
  auto op = [](const char* name, int id, int ts, const std::string& dims, const std::string& types) {
    return R"J({"ph": "X", "cat": "cpu_op", "name": ")J" + std::string(name) + R"J(", "pid": 1, "tid": 1, "ts": )J" +
           std::to_string(ts) + R"J(, "dur": 5, "args": {"External id": )J" + std::to_string(id) + R"J(, "Input Dims": )J" +
           dims + R"J(, "Input type": )J" + types + "}}";
  };
  auto kernel = [](const char* name, int id, int ts) {
    return R"J({"ph": "X", "cat": "kernel", "name": ")J" + std::string(name) + R"J(", "pid": 0, "tid": 7, "ts": )J" +
           std::to_string(1000 + ts) + R"J(, "dur": 3, "args": {"External id": )J" + std::to_string(id) +
           R"J(, "device": 0, "stream": 7}})J";
  };
  const char* fill = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)";
  const char* add = "void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::Half>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::Half>, std::array<char*, 3ul>)";
  const std::string x = R"J([[1024, 4096], [1024, 4096], []])J", half = R"J(["c10::Half", "c10::Half", "Scalar"])J";
  const std::string trace = R"J({"schemaVersion": 1, "traceEvents": [
  )J" + op("aten::zero_", 1, 100, "[[67108864]]", R"J(["float"])J") + ",\n  " +
                            op("aten::fill_", 2, 101, "[[67108864], []]", R"J(["float", "Scalar"])J") + ",\n  " +
                            kernel(fill, 2, 101) + ",\n  " + op("aten::add", 3, 110, x, half) + ",\n  " +
                            kernel(add, 3, 110) + ",\n  " + op("aten::add", 4, 120, x, half) + ",\n  " +
                            kernel(add, 4, 120) + "]}";
  const ProfileMapping m = map_profile(parse_kineto_trace(trace, "flush.json"));
  std::vector<const ProfiledCall*> adds;
  for (const auto& c : m.calls)
    if (c.name == "aten::add") adds.push_back(&c);
  REQUIRE(adds.size() == 2);
  REQUIRE(adds[0]->sim.kernels.size() == 1);
  REQUIRE(adds[1]->sim.kernels.size() == 1);
  CHECK(adds[0]->sim.kernels[0].memory.evicted_bytes == doctest::Approx(256.0 * 1024 * 1024));
  CHECK(adds[1]->sim.kernels[0].memory.evicted_bytes == 0);
  // The second add repeats the first (op, shapes, types and kernel): its kernel runs right after
  // itself (Kernel::follows_itself); the first follows the fill.
  CHECK_FALSE(adds[0]->sim.kernels[0].follows_itself);
  CHECK(adds[1]->sim.kernels[0].follows_itself);
  // A trace's times are CUPTI kernel durations (Kernel::profiled).
  CHECK(adds[0]->sim.kernels[0].profiled);
  CHECK(adds[1]->sim.kernels[0].profiled);
  // Each kernel knows what the kernel before it stored (Kernel::written_before): the fill's 256 MiB,
  // then the first add's 1024 x 4096 halves; the trace's first kernel follows nothing known.
  REQUIRE(m.calls.front().sim.kernels.size() == 1);
  CHECK(m.calls.front().sim.kernels[0].written_before == -1);
  CHECK(adds[0]->sim.kernels[0].written_before == doctest::Approx(256.0 * 1024 * 1024));
  CHECK(adds[1]->sim.kernels[0].written_before == doctest::Approx(1024.0 * 4096 * 2));
}
