// One profiled op call to tcsim kernels (sim/workload/profile/op_kernels.h), op by op.
#include <doctest/doctest.h>

#include "workload/profile/op_kernels.h"

using namespace tcsim;
using namespace tcsim::workload;

namespace {
ProfiledOp op(const std::string& name, std::vector<Dims> dims, std::vector<std::string> types,
              std::vector<std::string> concrete = {}, std::vector<Dims> strides = {}) {
  ProfiledOp o;
  o.name = name;
  o.input_dims = std::move(dims);
  o.input_lists.assign(o.input_dims.size(), {});
  o.input_types = std::move(types);
  o.concrete = std::move(concrete);
  o.input_strides = std::move(strides);
  return o;
}
std::vector<KernelNameClass> named(std::initializer_list<const char*> names) {
  std::vector<KernelNameClass> out;
  for (const char* n : names) out.push_back(classify_kernel_name(n));
  return out;
}
// The memory shape of a call mapped to one kernel.
MemoryShape only_memory(const OpKernels& k) {
  REQUIRE(k.mapped);
  REQUIRE(k.kernels.size() == 1);
  return k.kernels[0].memory;
}
}  // namespace

TEST_CASE("op kernels: GEMM ops, their layouts and formats") {
  const auto sgemm = named({"volta_sgemm_128x64_nn"});
  const auto tc = named({"sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x16_kernel"});
  OpKernels mm = op_kernels(op("aten::mm", {{128, 256}, {256, 512}}, {"float", "float"}), sgemm);
  REQUIRE(mm.mapped);
  CHECK(mm.kernels[0].a_format == FormatId::fp32);  // CUDA cores: plain fp32
  CHECK(mm.kernels[0].layout == Layout::NN);
  OpKernels mm_tc = op_kernels(op("aten::mm", {{128, 256}, {256, 512}}, {"float", "float"}, {}, {{1, 128}, {512, 1}}), tc);
  CHECK(mm_tc.kernels[0].a_format == FormatId::tf32);  // tensor-core kernel on fp32 tensors: TF32
  CHECK(mm_tc.kernels[0].layout == Layout::TN);        // A stored transposed
  OpKernels bmm = op_kernels(op("aten::bmm", {{12, 128, 64}, {12, 64, 128}}, {"c10::BFloat16", "c10::BFloat16"}), tc);
  REQUIRE(bmm.mapped);
  CHECK(bmm.kernels[0].batch == 12);
  CHECK(bmm.kernels[0].a_format == FormatId::bf16);
  CHECK(bmm.kernels[0].c_format == FormatId::fp32);  // accumulates in fp32,
  CHECK(bmm.kernels[0].d_format == FormatId::bf16);  // returns bf16 (PyTorch's output dtype)
  CHECK(mm_tc.kernels[0].d_format == FormatId::fp32);
  OpKernels lin = op_kernels(op("aten::linear", {{8, 128, 768}, {3072, 768}, {3072}}, {"c10::Half", "c10::Half", "c10::Half"}), tc);
  REQUIRE(lin.mapped);
  CHECK(lin.kernels[0].m == 1024);
  CHECK(lin.kernels[0].n == 3072);
  CHECK(lin.kernels[0].k == 768);
  CHECK(lin.kernels[0].layout == Layout::NT);
  OpKernels mat = op_kernels(op("aten::matmul", {{8, 12, 128, 64}, {8, 12, 64, 128}}, {"c10::Half", "c10::Half"}), tc);
  REQUIRE(mat.mapped);
  CHECK(mat.kernels[0].batch == 96);
  OpKernels bad = op_kernels(op("aten::mm", {{128, 256}, {128, 512}}, {"float", "float"}), sgemm);
  CHECK_FALSE(bad.mapped);
  CHECK(bad.reason.find("inner sizes differ") != std::string::npos);
  OpKernels notype = op_kernels(op("aten::mm", {{128, 256}, {256, 512}}, {}), sgemm);
  CHECK_FALSE(notype.mapped);
  CHECK(notype.reason.find("no dtype") != std::string::npos);
}

TEST_CASE("op kernels: attention, norms, softmax, reductions, copies") {
  const std::vector<KernelNameClass> none;
  OpKernels fa = op_kernels(op("aten::_scaled_dot_product_flash_attention", {{4, 16, 1024, 64}, {4, 16, 1024, 64}, {4, 16, 1024, 64}, {}, {}},
                               {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"}, {"", "", "", "0.", "True", "False", ""}),
                            named({"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64>>(Flash_fwd_params)"}));
  REQUIRE(fa.mapped);
  CHECK(fa.kernels[0].kind == Kernel::Kind::attention);
  CHECK(fa.kernels[0].attention.causal);
  CHECK(fa.kernels[0].attention.q_len == 1024);
  CHECK(fa.kernels[0].pass == Pass::forward);
  OpKernels fab = op_kernels(op("aten::_scaled_dot_product_flash_attention_backward",
                                {{4, 16, 1024, 64}, {4, 16, 1024, 64}, {4, 16, 1024, 64}, {4, 16, 1024, 64}}, {"c10::BFloat16", "c10::BFloat16"}),
                             none);
  REQUIRE(fab.mapped);
  CHECK(fab.kernels[0].pass == Pass::data_grad);
  CHECK_FALSE(fab.kernels[0].attention.causal);
  CHECK(fa.kernels[0].attention.dropout == 0);
  // cuDNN's SDPA as the H100 GPT-2 AMP trace records it (validation/measured/H100/profiles): the
  // forward's dropout_p and is_causal at 5 and 6, the backward's at 13 and 14
  const std::vector<std::string> four = {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16"};
  OpKernels cf = op_kernels(op("aten::_scaled_dot_product_cudnn_attention", {{16, 12, 1024, 64}, {16, 12, 1024, 64}, {16, 12, 1024, 64}, {}},
                               four, {"", "", "", "", "True", "0.10000000000000001", "True", "False", "0.125"}),
                            none);
  REQUIRE(cf.mapped);
  CHECK(cf.kernels[0].attention.causal);
  CHECK(cf.kernels[0].attention.dropout == doctest::Approx(0.1));
  CHECK(cf.shape.find("causal dropout") != std::string::npos);
  OpKernels cb = op_kernels(op("aten::_scaled_dot_product_cudnn_attention_backward",
                               {{16, 12, 1024, 64}, {16, 12, 1024, 64}, {16, 12, 1024, 64}, {16, 12, 1024, 64}, {16, 12, 1024, 64}},
                               four, {"", "", "", "", "", "", "", "", "", "", "", "1024", "1024", "0.10000000000000001", "True", "0.125"}),
                            none);
  REQUIRE(cb.mapped);
  CHECK(cb.kernels[0].pass == Pass::data_grad);
  CHECK(cb.kernels[0].attention.causal);  // before session 54 read at 11 (flash's position): not causal
  CHECK(cb.kernels[0].attention.dropout == doctest::Approx(0.1));

  OpKernels ln = op_kernels(op("aten::native_layer_norm", {{1024, 768}, {}, {768}, {768}, {}}, {"float", "", "float", "float", "Scalar"}), none);
  REQUIRE(ln.mapped);
  CHECK(ln.family == "norm");
  CHECK(ln.kernels[0].memory.row_length == 768);
  CHECK(ln.kernels[0].memory.op == "layer_norm");
  OpKernels sm = op_kernels(op("aten::_softmax", {{32, 12, 128, 128}, {}, {}}, {"c10::Half", "Scalar", "Scalar"}, {"", "-1", "False"}), none);
  REQUIRE(sm.mapped);
  CHECK(sm.kernels[0].memory.row_length == 128);
  CHECK(sm.kernels[0].bytes_read == 32u * 12 * 128 * 128 * 2);
  CHECK(sm.kernels[0].bytes_written == 32u * 12 * 128 * 128 * 2);
  // Autocast's softmax (half_to_float True, the H200's eager BERT trace): fp16 in, fp32 out; its
  // gradient (input_dtype 5, Half) is written in fp16 from fp32 operands.
  const std::size_t scores = 32u * 12 * 128 * 128;
  OpKernels smf = op_kernels(op("aten::_softmax", {{32, 12, 128, 128}, {}, {}}, {"c10::Half", "Scalar", "Scalar"}, {"", "-1", "True"}), none);
  REQUIRE(smf.mapped);
  CHECK(smf.kernels[0].bytes_read == scores * 2);
  CHECK(smf.kernels[0].bytes_written == scores * 4);
  OpKernels smb = op_kernels(op("aten::_softmax_backward_data", {{32, 12, 128, 128}, {32, 12, 128, 128}, {}, {}},
                                {"float", "float", "Scalar", "Scalar"}, {"", "", "-1", "5"}), none);
  REQUIRE(smb.mapped);
  CHECK(smb.kernels[0].bytes_read == scores * 8);
  CHECK(smb.kernels[0].bytes_written == scores * 2);
  OpKernels sum = op_kernels(op("aten::sum", {{64, 1000}, {}}, {"float", "ScalarList"}, {"", "[0]"}), none);
  REQUIRE(sum.mapped);
  CHECK(sum.kernels[0].memory.elements == 1000);
  CHECK(sum.kernels[0].memory.row_length == 64);
  OpKernels cp = op_kernels(op("aten::copy_", {{1024, 1024}, {1024, 1024}, {}}, {"c10::Half", "float", "Scalar"}), none);
  REQUIRE(cp.mapped);
  CHECK(cp.kernels[0].bytes_read == 4u * 1024 * 1024);
  CHECK(cp.kernels[0].bytes_written == 2u * 1024 * 1024);
  OpKernels idx = op_kernels(op("aten::index_select", {{1000, 64}, {}, {32}}, {"float", "Scalar", "long int"}), none);
  CHECK_FALSE(idx.mapped);
  CHECK(idx.reason.find("aten::index_select") != std::string::npos);
}

TEST_CASE("op kernels: a channels-last bias gradient is a column reduction; a library's memsets are kernels of their own") {
  // VGG-16's conv bias gradient under AMP channels-last (the H200 trace): dY [64, 512, 14, 14] with
  // strides [100352, 1, 7168, 512] summed over N, H and W: the stride-1 dim (C) is kept, so
  // reduce_kernel runs its column form (grid [4, 196] of 32 x 4 threads in the trace), after a memset
  // of its semaphores. Without strides the trace's logical layout (NCHW) sums the innermost dim.
  const std::vector<Dims> dims = {{64, 512, 14, 14}, {}, {}, {}};
  const std::vector<std::string> types = {"c10::Half", "ScalarList", "Scalar", ""};
  const std::vector<std::string> concrete = {"", "[0, 2, 3]", "False", ""};
  const auto launched = named({"Memset (Device)", "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<c10::Half>>()"});
  CHECK(launched[0].memset);
  CHECK_FALSE(launched[1].memset);
  const OpKernels nhwc = op_kernels(op("aten::sum", dims, types, concrete, {{100352, 1, 7168, 512}, {}, {}, {}}), launched);
  REQUIRE(nhwc.mapped);
  REQUIRE(nhwc.kernels.size() == 2);
  CHECK(nhwc.kernels[0].memory.op == "reduce_columns");
  CHECK(nhwc.kernels[0].memory.elements == 512);  // every output in the one reduce launch (the memset is not one)
  CHECK(nhwc.kernels[0].memory.row_length == 64 * 14 * 14);
  CHECK(nhwc.kernels[0].count == 1);
  CHECK(nhwc.kernels[1].name == "aten::sum.memset");
  CHECK(nhwc.kernels[1].memory.op == "fill");
  CHECK(nhwc.kernels[1].count == 1);
  const OpKernels nchw = op_kernels(op("aten::sum", dims, types, concrete), named({"void at::native::reduce_kernel<512, 1>()"}));
  REQUIRE(nchw.mapped);
  REQUIRE(nchw.kernels.size() == 1);  // no memset launched, none added
  CHECK(nchw.kernels[0].memory.op == "reduce");
  // A GEMM's workspace memsets (cuBLAS's split-K) are added beside its kernel.
  const OpKernels mm = op_kernels(op("aten::mm", {{128, 256}, {256, 512}}, {"c10::Half", "c10::Half"}),
                                  named({"Memset (Device)", "nvjet_sm90_hsh_64x32_64x16_2x1_v_bz_splitK_NTN", "cublasLt::splitKreduce_kernel"}));
  REQUIRE(mm.mapped);
  CHECK(mm.kernels.back().name == "aten::mm.memset");
  // An op whose only launch is a memset is its own mapping's work, not twice.
  const OpKernels zero = op_kernels(op("aten::zero_", {{1024, 1024}}, {"float"}), named({"Memset (Device)"}));
  REQUIRE(zero.mapped);
  CHECK(zero.kernels.size() == 1);
}

TEST_CASE("op kernels: PyTorch's fused RMSNorm and embedding lookups") {
  const std::vector<KernelNameClass> none;
  // aten::_fused_rms_norm (input, normalized_shape, weight, eps): the layer-norm row kernel, x and
  // gamma in, y and the fp32 rstd per row out (PyTorch 2.11's trace: vectorized_layer_norm_kernel
  // with its RMS flag, "layer_norm_rms": its own instruction count).
  OpKernels rms = op_kernels(op("aten::_fused_rms_norm", {{256, 4096}, {}, {4096}, {}},
                                {"c10::Half", "ScalarList", "c10::Half", "Scalar"}), none);
  REQUIRE(rms.mapped);
  CHECK(rms.family == "norm");
  CHECK(rms.kernels[0].memory.op == "layer_norm_rms");
  CHECK(rms.kernels[0].memory.row_length == 4096);
  CHECK(rms.kernels[0].bytes_read == 2u * 256 * 4096 + 2u * 4096);
  CHECK(rms.kernels[0].bytes_written == 2u * 256 * 4096 + 4u * 256);
  // aten::embedding (weight [V, H], indices): the rows it gathers, not the table.
  OpKernels emb = op_kernels(op("aten::embedding", {{32000, 4096}, {1024}, {}, {}, {}},
                                {"c10::Half", "long int", "Scalar", "Scalar", "Scalar"}), none);
  REQUIRE(emb.mapped);
  CHECK(emb.family == "embedding");
  CHECK(emb.kernels[0].memory.op == "embedding");
  CHECK(emb.kernels[0].memory.elements == 1024 * 4096);
  CHECK(emb.kernels[0].memory.row_length == 4096);
  CHECK(emb.kernels[0].bytes_read == 2u * 1024 * 4096 + 8u * 1024);
  CHECK(emb.kernels[0].bytes_written == 2u * 1024 * 4096);
  OpKernels bad = op_kernels(op("aten::embedding", {{4096}, {1024}}, {"c10::Half", "long int"}), none);
  CHECK_FALSE(bad.mapped);
  CHECK(bad.reason.find("2-D floating weight") != std::string::npos);
}

TEST_CASE("op kernels: re-typed for another precision (replay)") {
  const auto sgemm = named({"volta_sgemm_128x64_nn"});
  OpKernels lin = op_kernels(op("aten::linear", {{64, 1024}, {4096, 1024}, {4096}}, {"float", "float", "float"}), sgemm, Precision::amp_fp16);
  REQUIRE(lin.kernels.size() == 2);  // the weight cast autocast adds, then the GEMM
  CHECK(lin.kernels[0].memory.op == "cast");
  CHECK(lin.kernels[1].a_format == FormatId::fp16);
  OpKernels add = op_kernels(op("aten::add", {{64, 1024}, {64, 1024}, {}}, {"float", "float", "Scalar"}), {}, Precision::amp_fp16);
  REQUIRE(add.mapped);
  CHECK(add.kernels[0].bytes_read == 2u * 64 * 1024 * 2);  // half the fp32 bytes
  OpKernels ln = op_kernels(op("aten::native_layer_norm", {{64, 1024}, {}, {1024}, {1024}}, {"float", "", "float", "float"}), {}, Precision::amp_fp16);
  CHECK(ln.kernels[0].a_format == FormatId::fp32);  // on autocast's fp32 list
}

TEST_CASE("op kernels: sizes out of range are listed, never multiplied into overflow") {
  OpKernels big = op_kernels(op("aten::mm", {{std::int64_t(1) << 40, 256}, {256, 512}}, {"float", "float"}), {});
  CHECK_FALSE(big.mapped);
  CHECK(big.reason.find("out of range") != std::string::npos);
  OpKernels many = op_kernels(op("aten::add", {{1 << 30, 1 << 30}, {1 << 30, 1 << 30}}, {"float", "float"}), {});
  CHECK_FALSE(many.mapped);
  OpKernels neg = op_kernels(op("aten::relu", {{-4, 8}}, {"float"}), {});
  CHECK_FALSE(neg.mapped);
}

TEST_CASE("op kernels: batch norm picks cuDNN's per-channel or persistent kernels when the trace names them") {
  // The kernels of the H100 ResNet-50 TF32 trace (channels-first) and of the AMP channels-last one.
  const Dims x = {128, 64, 112, 112};
  const auto bn = [&](const char* name, std::initializer_list<const char*> kernels) {
    return op_kernels(op(name, {x, {64}, {64}, {64}, {64}}, {"float", "float", "float", "float", "float"}), named(kernels));
  };
  OpKernels nchw = bn("aten::cudnn_batch_norm",
                      {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1, true>(cudnnTensorStruct, float const*)"});
  REQUIRE(nchw.mapped);
  CHECK(nchw.kernels[0].memory.op == "batch_norm_nchw");
  CHECK(nchw.kernels[0].memory.row_length == 128 * 112 * 112);
  OpKernels nchw_bwd = op_kernels(op("aten::cudnn_batch_norm_backward", {x, x, {64}, {64}, {64}, {64}, {64}},
                                     {"float", "float", "float", "float", "float", "float", "float"}),
                                  named({"void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>(float, float, float, float)"}));
  REQUIRE(nchw_bwd.mapped);
  CHECK(nchw_bwd.kernels[0].memory.op == "batch_norm_nchw_backward");
  // Channels-last: the persistent kernel, one launch over all channels reading x once; the op's
  // other launch is the running counter's increment.
  OpKernels nhwc = bn("aten::cudnn_batch_norm",
                      {"void at::native::vectorized_elementwise_kernel<2, at::native::CUDAFunctorOnSelf_add<long>>(int)",
                       "void cudnn::batchnorm_fwtr_nhwc_semiPersist<__half, float, __half, 512, 16, 5, 4, 1, 0, false>(cudnn::bn_args)"});
  REQUIRE(nhwc.mapped);
  REQUIRE(nhwc.kernels.size() == 2);
  CHECK(nhwc.kernels[0].memory.op == "add");
  CHECK(nhwc.kernels[0].bytes_read == 8);
  const Kernel& persist = nhwc.kernels[1];
  CHECK(persist.memory.op == "batch_norm_nhwc");
  CHECK(persist.memory.elements == 128 * 64 * 112 * 112);
  CHECK(persist.memory.row_length == 128 * 112 * 112);
  CHECK(persist.bytes_read == persist.bytes_written);  // x once, y once (fp32 here)
  OpKernels nhwc_bwd = op_kernels(op("aten::cudnn_batch_norm_backward", {x, x, {64}, {64}, {64}, {64}, {64}},
                                     {"float", "float", "float", "float", "float", "float", "float"}),
                                  named({"void cudnn::batchnorm_bwtr_nhwc_semiPersist<__half, float, __half, 512, 16, 3, 4, 1, 1, true, 2>(cudnn::p)"}));
  REQUIRE(nhwc_bwd.mapped);
  CHECK(nhwc_bwd.kernels[0].memory.op == "batch_norm_nhwc_backward");
  CHECK(nhwc_bwd.kernels[0].bytes_read == 2 * nhwc_bwd.kernels[0].bytes_written);  // x and dY once
  CHECK(bn("aten::cudnn_batch_norm", {}).kernels[0].memory.op == "batch_norm");  // no kernel names: as before
  // Inference, channels-last (the H200 ResNet-50 inference traces): cuDNN's per-image kernel, x once, y once.
  OpKernels inf = bn("aten::cudnn_batch_norm",
                     {"void cudnn::bn_fw_inf_1C11_kernel_NHWC<__half, float, true, true>(float, float, cudnnTensorStruct)"});
  REQUIRE(inf.mapped);
  REQUIRE(inf.kernels.size() == 1);
  CHECK(inf.kernels[0].memory.op == "batch_norm_inference_nhwc");
  CHECK(inf.kernels[0].memory.row_length == 64 * 112 * 112);
  CHECK(inf.kernels[0].bytes_read == inf.kernels[0].bytes_written);
}

TEST_CASE("op kernels: cuDNN's layout transposes mark a convolution's tensors NCHW, whatever the conv kernel's name") {
  const std::vector<Dims> dims = {{32, 64, 56, 56}, {64, 64, 3, 3}, {}};
  const std::vector<std::string> types = {"float", "float", ""};
  const std::vector<std::string> concrete = {"", "", "[1, 1]", "[1, 1]", "[1, 1]", "1"};  // padding, stride, dilation, groups
  const char* conv = "sm90_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x32";
  OpKernels nchw = op_kernels(op("aten::cudnn_convolution", dims, types, concrete),
                              named({"void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, false, true>()", conv,
                                     "void cudnn::engines_precompiled::nhwcToNchwKernel<float, float, float, true, false>()"}));
  REQUIRE(nchw.mapped);
  CHECK(nchw.kernels[0].conv.layout == TensorLayout::nchw);
  OpKernels nhwc = op_kernels(op("aten::cudnn_convolution", dims, types, concrete), named({conv}));
  REQUIRE(nhwc.mapped);
  CHECK(nhwc.kernels[0].conv.layout == TensorLayout::nhwc);
}

TEST_CASE("op kernels: elementwise ops PyTorch cannot vectorize (permuted, broadcast, casting) are marked") {
  const std::vector<KernelNameClass> none;
  const auto memory = only_memory;
  // BERT's QKV permute: copy_(dst contiguous [128,12,128,64], src a permuted view of [128,128,12,64]):
  // no two adjacent dims coalesce in both, so all four are walked per element
  const auto permuted = memory(op_kernels(op("aten::copy_", {{128, 12, 128, 64}, {128, 12, 128, 64}}, {"c10::Half", "c10::Half"},
                                             {}, {{98304, 8192, 64, 1}, {98304, 64, 768, 1}}), none));
  CHECK(permuted.strided_dims == 4);
  CHECK_FALSE(permuted.cast);
  // the same copy between two contiguous tensors, and between two channels-last ones: one stream
  CHECK(memory(op_kernels(op("aten::copy_", {{8, 64, 56, 56}, {8, 64, 56, 56}}, {"float", "float"}, {},
                             {{200704, 3136, 56, 1}, {200704, 3136, 56, 1}}), none)).strided_dims == 0);
  CHECK(memory(op_kernels(op("aten::add_", {{8, 64, 56, 56}, {8, 64, 56, 56}}, {"float", "float"}, {},
                             {{200704, 1, 3584, 64}, {200704, 1, 3584, 64}}), none)).strided_dims == 0);
  // a bias broadcast over the rows: rows and features stay apart (the bias steps 0 across rows)
  CHECK(memory(op_kernels(op("aten::add", {{16384, 768}, {768}}, {"c10::Half", "c10::Half"}, {}, {{768, 1}, {1}}), none)).strided_dims == 2);
  // a transpose of the last two dims of [32, 1024, 1024]: the batch dim coalesces with neither
  CHECK(memory(op_kernels(op("aten::copy_", {{32, 1024, 1024}, {32, 1024, 1024}}, {"float", "float"}, {},
                             {{1048576, 1024, 1}, {1048576, 1, 1024}}), none)).strided_dims == 3);
  // fp16 -> fp32 copies (the logits for the loss): contiguous, casting; AMP's fp32 -> fp16 weight
  // copies have their own vectorized kernel
  const auto cast = memory(op_kernels(op("aten::copy_", {{768, 768}, {768, 768}}, {"float", "c10::Half"}, {}, {{768, 1}, {768, 1}}), none));
  CHECK(cast.cast);
  CHECK(cast.strided_dims == 0);
  CHECK(cast.operands == 2);
  // a contiguous mixed-dtype add (GPT-2 AMP: bf16 + fp32): two tensors loaded, one stored; a scalar
  // operand is an argument, not a tensor the kernel reads
  const auto mixed = memory(op_kernels(op("aten::add", {{16, 1024, 3072}, {16, 1024, 3072}}, {"c10::BFloat16", "float"}), none));
  CHECK(mixed.cast);
  CHECK(mixed.strided_dims == 0);
  CHECK(mixed.operands == 3);
  const auto scalar = memory(op_kernels(op("aten::mul", {{16, 1024, 3072}, {}}, {"c10::BFloat16", "double"}), none));
  CHECK_FALSE(scalar.cast);
  CHECK_FALSE(memory(op_kernels(op("aten::copy_", {{768, 768}, {768, 768}}, {"c10::Half", "float"}, {}, {{768, 1}, {768, 1}}), none)).cast);
  // no strides recorded: taken as contiguous
  CHECK(memory(op_kernels(op("aten::mul", {{4096, 4096}, {4096, 4096}}, {"float", "float"}), none)).strided_dims == 0);
  // The H200 Llama-2 decode step (validation/measured/H200/networks): RMSNorm's weight [4096] times
  // the hidden state [1, 1, 4096] is one stream (leading size-1 dims broadcast nothing:
  // vectorized_elementwise_kernel in all 65 calls); the hidden state times its 1-element rsqrt, a
  // CUDA tensor [1, 1, 1], is a broadcast (elementwise_kernel<128, 2> in all 65), and so is the
  // rotary multiply of q, a transposed view, by cos [1, 1, 1, 128] (elementwise_kernel<128, 4>)
  CHECK(memory(op_kernels(op("aten::mul", {{4096}, {1, 1, 4096}}, {"c10::Half", "c10::Half"}, {}, {{1}, {4096, 4096, 1}}), none))
            .strided_dims == 0);
  CHECK(memory(op_kernels(op("aten::mul", {{1, 1, 4096}, {1, 1, 1}}, {"float", "float"}, {}, {{4096, 4096, 1}, {1, 1, 1}}), none))
            .strided_dims > 0);
  // dropout's gradient is a TensorIterator op too, and its bool mask an operand: BERT-base AMP
  // (validation/measured/H100/profiles) runs the call whose mask is permuted as elementwise_kernel<128, 4>
  CHECK(memory(op_kernels(op("aten::native_dropout_backward", {{128, 128, 768}, {128, 128, 768}, {}}, {"c10::Half", "bool", "Scalar"},
                             {}, {{98304, 768, 1}, {768, 98304, 1}, {}}), none))
            .strided_dims > 0);
  CHECK(memory(op_kernels(op("aten::native_dropout_backward", {{128, 128, 768}, {128, 128, 768}, {}}, {"c10::Half", "bool", "Scalar"},
                             {}, {{98304, 768, 1}, {98304, 768, 1}, {}}), none))
            .strided_dims == 0);
  CHECK(memory(op_kernels(op("aten::mul", {{1, 32, 1, 128}, {1, 1, 1, 128}}, {"c10::Half", "c10::Half"}, {},
                             {{4096, 128, 4096, 1}, {128, 128, 128, 1}}), none))
            .strided_dims > 0);
}

TEST_CASE("op kernels: a strided copy counts the 128-byte lines one warp access of each operand touches") {
  const std::vector<KernelNameClass> none;
  const auto memory = only_memory;
  // A channels-last fp16 tensor copied to NCHW (validation/measured/H100/conv_deepbench, fp16 NHWC):
  // the walk follows the NCHW destination, so a warp's 32 consecutive w read elements C x 2 bytes
  // apart. Rows of 64 w (a multiple of 32) keep every warp in one row: C = 64 puts each lane in its
  // own line (32) beside the destination's one 64-byte run (1); C = 32 two lanes per line (16 + 1);
  // C = 16 four (8 + 1).
  for (const auto& [channels, lines] : std::vector<std::pair<std::int64_t, double>>{{64, 33}, {32, 17}, {16, 9}}) {
    const std::int64_t c = channels, hw = 8 * 64;
    const double expected = lines;  // (a named copy: clang 14 cannot capture a structured binding)
    const auto m = memory(op_kernels(op("aten::copy_", {{4, c, 8, 64}, {4, c, 8, 64}}, {"c10::Half", "c10::Half"}, {},
                                        {{c * hw, hw, 64, 1}, {c * hw, 1, 64 * c, c}}),
                                     none));
    CHECK(m.strided_dims > 0);
    CHECK(m.lines_per_warp == doctest::Approx(expected));
  }
  // A heads permute ([B, S, H, D] -> [B, H, S, D], D = 64 fp16): a warp's 32 lanes read one 64-byte
  // run of D and write another, one line each
  const auto heads = memory(op_kernels(op("aten::copy_", {{2, 12, 128, 64}, {2, 12, 128, 64}}, {"c10::Half", "c10::Half"}, {},
                                          {{98304, 8192, 64, 1}, {98304, 64, 768, 1}}),
                                       none));
  CHECK(heads.strided_dims == 4);
  CHECK(heads.lines_per_warp == doctest::Approx(2.0));
  // a contiguous copy is one stream: no lines counted
  CHECK(memory(op_kernels(op("aten::copy_", {{8, 64, 56, 56}, {8, 64, 56, 56}}, {"float", "float"}, {},
                             {{200704, 3136, 56, 1}, {200704, 3136, 56, 1}}), none))
            .lines_per_warp == 0);
}

TEST_CASE("op kernels: dropout moves its 1-byte mask (written forward, read backward)") {
  const std::vector<KernelNameClass> none;
  // BERT-base's dropout after the FFN: [128, 128, 3072] fp16, p = 0.1, train
  const OpKernels fwd = op_kernels(op("aten::native_dropout", {{128, 128, 3072}, {}, {}}, {"c10::Half", "double", "bool"}), none);
  REQUIRE(fwd.mapped);
  REQUIRE(fwd.kernels.size() == 1);
  const double n = 128.0 * 128 * 3072;
  CHECK(double(fwd.kernels[0].bytes_read) == doctest::Approx(2 * n));
  CHECK(double(fwd.kernels[0].bytes_written) == doctest::Approx(3 * n));  // output + mask
  const OpKernels bwd = op_kernels(
      op("aten::native_dropout_backward", {{128, 128, 3072}, {128, 128, 3072}, {}}, {"c10::Half", "bool", "double"}), none);
  REQUIRE(bwd.mapped);
  CHECK(double(bwd.kernels[0].bytes_read) == doctest::Approx(3 * n));  // dY + mask
  CHECK(double(bwd.kernels[0].bytes_written) == doctest::Approx(2 * n));
}

TEST_CASE("op kernels: the out= tensor of clamp (hardtanh) is written, not read") {
  const std::vector<KernelNameClass> none;
  // MobileNet-v2's ReLU6 in the H200 trace: aten::clamp (self, 0., 6., out), channels-last fp16
  const Dims x{256, 32, 112, 112}, cl{401408, 1, 3584, 32};
  const OpKernels k = op_kernels(op("aten::clamp", {x, {}, {}, x}, {"c10::Half", "Scalar", "Scalar", "c10::Half"},
                                    {"", "0.", "6.", ""}, {cl, {}, {}, cl}),
                                 none);
  REQUIRE(k.mapped);
  REQUIRE(k.kernels.size() == 1);
  const double n = 256.0 * 32 * 112 * 112;
  CHECK(double(k.kernels[0].bytes_read) == doctest::Approx(2 * n));  // self only
  CHECK(double(k.kernels[0].bytes_written) == doctest::Approx(2 * n));
  CHECK(k.kernels[0].memory.strided_dims == 0);
  // hardtanh_backward (grad, self, min, max): both tensors come before the scalars and are read
  const OpKernels b = op_kernels(op("aten::hardtanh_backward", {x, x, {}, {}}, {"c10::Half", "c10::Half", "Scalar", "Scalar"}), none);
  REQUIRE(b.mapped);
  CHECK(double(b.kernels[0].bytes_read) == doctest::Approx(4 * n));
}

TEST_CASE("op kernels: a strided op over mixed dtypes keeps both marks (dynamic casts on the strided path)") {
  const std::vector<KernelNameClass> none;
  // BERT-base AMP's residual add: fp32 [128, 128, 768] + a fp16 view with batch and sequence swapped
  const OpKernels k = op_kernels(op("aten::add", {{128, 128, 768}, {128, 128, 768}}, {"float", "c10::Half"}, {},
                                    {{98304, 768, 1}, {768, 98304, 1}}),
                                 none);
  REQUIRE(k.mapped);
  CHECK(k.kernels[0].memory.strided_dims > 0);
  CHECK(k.kernels[0].memory.cast);
}

TEST_CASE("op kernels: cuDNN's FFMA kernels of the XMMA family run FP32 convolutions on the CUDA cores") {
  // The H100's FP32 convolutions with TF32 off (validation/measured/H100/conv_deepbench, fp32_nchw).
  const char* ffma = "sm80_xmma_fprop_implicit_gemm_f32f32_f32f32_f32_nchwkcrs_nchw_tilesize256x64x8_stage3_warpsize2x2x1_g1_ffma_aligna4";
  CHECK(classify_kernel_name(ffma).path == MathPath::cuda_core);
  CHECK(classify_kernel_name("sm80_xmma_gemm_cf32cf32_f32f32_cf32_nt_n_tilesize32x32x8_stage3_warpsize2x2x1_ffma_aligna8").path ==
        MathPath::cuda_core);
  CHECK(classify_kernel_name("sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16").path ==
        MathPath::tensor_core);
  const std::vector<Dims> dims = {{8, 512, 14, 14}, {512, 512, 3, 3}, {}};
  const std::vector<std::string> concrete = {"", "", "[1, 1]", "[1, 1]", "[1, 1]", "1"};
  OpKernels fp32 = op_kernels(op("aten::cudnn_convolution", dims, {"float", "float", ""}, concrete), named({ffma}));
  REQUIRE(fp32.mapped);
  CHECK(fp32.kernels[0].a_format == FormatId::fp32);  // not TF32
  OpKernels tf32 = op_kernels(op("aten::cudnn_convolution", dims, {"float", "float", ""}, concrete),
                              named({"sm90_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x32"}));
  CHECK(tf32.kernels[0].a_format == FormatId::tf32);
}

TEST_CASE("op kernels: a convolution_backward call names the gradients it computes") {
  // (grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed, output_padding, groups, output_mask)
  const std::vector<Dims> dims = {{8, 64, 56, 56}, {8, 64, 56, 56}, {64, 64, 3, 3}};
  const std::vector<std::string> types = {"c10::Half", "c10::Half", "c10::Half"};
  auto call = [&](const char* mask) {
    return op_kernels(op("aten::convolution_backward", dims, types,
                         {"", "", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", mask}),
                      named({"sm90_xmma_dgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize64x64x64"}));
  };
  const OpKernels dgrad = call("[True, False, False]"), wgrad = call("[False, True, False]"), both = call("[True, True, False]");
  REQUIRE(dgrad.mapped);
  REQUIRE(wgrad.mapped);
  REQUIRE(both.mapped);
  CHECK(dgrad.kernels.size() == 1);
  CHECK(dgrad.kernels[0].pass == Pass::data_grad);
  CHECK(wgrad.kernels[0].pass == Pass::weight_grad);
  CHECK(both.kernels.size() == 2);
  auto ends_with = [](const std::string& s, const std::string& t) { return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0; };
  CHECK(ends_with(dgrad.shape, " fp16 dgrad"));
  CHECK(ends_with(wgrad.shape, " fp16 wgrad"));
  CHECK(ends_with(both.shape, " fp16 dgrad+wgrad"));
}

TEST_CASE("op kernels: max pooling carries its window and memory format (the H100 ResNet-50 traces' calls)") {
  // aten::max_pool2d_with_indices (self, kernel_size, stride, padding, dilation, ceil_mode), as the
  // channels-last AMP trace records it, and its backward (grad_output, self, ..., indices).
  const Dims x = {256, 64, 112, 112}, y = {256, 64, 56, 56};
  const Dims cl_x = {802816, 1, 7168, 64}, cl_y = {200704, 1, 3584, 64};
  OpKernels f = op_kernels(op("aten::max_pool2d_with_indices", {x, {}, {}, {}, {}, {}},
                              {"c10::Half", "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar"},
                              {"", "[3, 3]", "[2, 2]", "[1, 1]", "[1, 1]", "False"}, {cl_x, {}, {}, {}, {}, {}}),
                           named({"void at::native::(anonymous namespace)::max_pool_forward_nhwc<c10::Half, int>(int)"}));
  REQUIRE(f.mapped);
  REQUIRE(f.kernels.size() == 1);
  PoolShape want;
  want.n = 256, want.c = 64, want.h = want.w = 112, want.p = want.q = 56;
  want.kernel_h = want.kernel_w = 3, want.stride_h = want.stride_w = 2, want.pad_h = want.pad_w = 1;
  want.channels_last = true;
  CHECK(f.kernels[0].memory.pool == want);
  CHECK(f.kernels[0].bytes_written == 256 * 64 * 56 * 56 * (2 + 8));  // values and int64 indices
  OpKernels b = op_kernels(op("aten::max_pool2d_with_indices_backward", {y, x, {}, {}, {}, {}, {}, y},
                              {"c10::Half", "c10::Half", "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar", "long int"},
                              {"", "", "[3, 3]", "[2, 2]", "[1, 1]", "[1, 1]", "False", ""}, {cl_y, cl_x, {}, {}, {}, {}, {}, cl_y}),
                           named({"void at::native::(anonymous namespace)::max_pool_backward_nhwc<c10::Half, float>(int)"}));
  REQUIRE(b.mapped);
  want.backward = true;
  CHECK(b.kernels[0].memory.pool == want);
  CHECK(b.kernels[0].memory.elements == 256 * 64 * 112 * 112);
  // Channels first: contiguous strides.
  OpKernels nchw = op_kernels(op("aten::max_pool2d_with_indices", {x, {}, {}, {}, {}, {}},
                                 {"float", "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar"},
                                 {"", "[3, 3]", "[2, 2]", "[1, 1]", "[1, 1]", "False"}, {{802816, 12544, 112, 1}, {}, {}, {}, {}, {}}),
                              named({"void at::native::(anonymous namespace)::max_pool_forward_nchw<float, int>(int)"}));
  REQUIRE(nchw.mapped);
  CHECK_FALSE(nchw.kernels[0].memory.pool.channels_last);
  // Dilated windows are not modelled: listed with the reason, not mapped to a wrong kernel.
  OpKernels dil = op_kernels(op("aten::max_pool2d_with_indices", {x, {}, {}, {}, {}, {}},
                                {"float", "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar"},
                                {"", "[3, 3]", "[2, 2]", "[1, 1]", "[2, 2]", "False"}),
                             named({}));
  CHECK_FALSE(dil.mapped);
  // PyTorch refuses padding above half the kernel; a window beyond the padded input is refused too.
  const std::pair<std::string, std::string> refused[] = {{"[3, 3]", "[2, 2]"}, {"[300, 3]", "[1, 1]"}};
  for (const auto& window : refused) {
    OpKernels o = op_kernels(op("aten::max_pool2d_with_indices", {x, {}, {}, {}, {}, {}},
                                {"float", "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar"},
                                {"", window.first, "[2, 2]", window.second, "[1, 1]", "False"}),
                             named({}));
    CHECK_MESSAGE(!o.mapped, window.first << " " << window.second);
  }
}

TEST_CASE("op kernels: torch.cat reads and writes every element once; the kernel's name says which path and element size") {
  // Hugging Face's DynamicCache appending one token to 512 cached keys (the H200 Llama decode trace):
  // a TensorList of [1, 32, 512, 128] and [1, 32, 1, 128], dim -2.
  ProfiledOp cat = op("aten::cat", {{}, {}}, {"TensorList", "Scalar"}, {"", "-2"});
  cat.input_lists[0] = {{1, 32, 512, 128}, {1, 32, 1, 128}};
  const std::int64_t n = 32 * 513 * 128;
  const OpKernels general = op_kernels(
      cat, named({"void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)::"
                  "OpaqueType<2u>, unsigned int, 4, 64, 64>(at::native::(anonymous namespace)::OpaqueType<2u>*)"}));
  REQUIRE(general.mapped);
  REQUIRE(general.kernels.size() == 1);
  CHECK(general.kernels[0].memory.op == "cat");
  CHECK(general.kernels[0].memory.elements == n);
  CHECK(general.kernels[0].bytes_read == 2 * n);
  CHECK(general.kernels[0].bytes_written == 2 * n);
  // The vectorized variant streams like a copy; a 4-byte OpaqueType is fp32's size.
  const OpKernels vectorized = op_kernels(
      cat, named({"void at::native::(anonymous namespace)::CatArrayBatchedCopy_vectorized<at::native::(anonymous "
                  "namespace)::OpaqueType<4u>, unsigned int, 3, 128, 1, 16, 4>(char*)"}));
  REQUIRE(vectorized.mapped);
  CHECK(vectorized.kernels[0].memory.op == "copy");
  CHECK(vectorized.kernels[0].bytes_read == 4 * n);
  // No kernel naming the element size: not mapped (kept at its measured time), with the reason.
  const OpKernels unnamed = op_kernels(cat, named({}));
  CHECK_FALSE(unnamed.mapped);
}
