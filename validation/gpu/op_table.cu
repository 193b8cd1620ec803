// The MMA instruction variants known to mma_probe and ubench (see mma_runner.h).
#include "mma_runner.h"

namespace tcv {
namespace {

using F = Fmt;
const std::vector<OpInfo> kOps = {
    // key, instruction, ptx, in, acc, m, n, k, min_cc, wgmma, satfinite, tiles/warp[, sparse_meta]
    {"mma_m8n8k4_f16_f16", "mma.m8n8k4", "mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16", F::f16, F::f16, 8, 8, 4, 70, false, false, 4},
    {"mma_m8n8k4_f16_f32", "mma.m8n8k4", "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", F::f16, F::f32, 8, 8, 4, 70, false, false, 4},
    {"mma_m16n8k8_f16_f16", "mma.m16n8k8", "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16", F::f16, F::f16, 16, 8, 8, 75, false, false, 1},
    {"mma_m16n8k8_f16_f32", "mma.m16n8k8", "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", F::f16, F::f32, 16, 8, 8, 75, false, false, 1},
    {"mma_m8n8k16_s8_s32", "mma.m8n8k16", "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32", F::s8, F::s32, 8, 8, 16, 75, false, false, 1},
    {"mma_m8n8k16_s8_s32_satfinite", "mma.m8n8k16", "mma.sync.aligned.m8n8k16.row.col.satfinite.s32.s8.s8.s32", F::s8, F::s32, 8, 8, 16, 75, false, true, 1},
    {"mma_m8n8k16_u8_s32", "mma.m8n8k16", "mma.sync.aligned.m8n8k16.row.col.s32.u8.u8.s32", F::u8, F::s32, 8, 8, 16, 75, false, false, 1},
    {"mma_m8n8k32_s4_s32", "mma.m8n8k32", "mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32", F::s4, F::s32, 8, 8, 32, 75, false, false, 1},
    {"mma_m8n8k32_s4_s32_satfinite", "mma.m8n8k32", "mma.sync.aligned.m8n8k32.row.col.satfinite.s32.s4.s4.s32", F::s4, F::s32, 8, 8, 32, 75, false, true, 1},
    {"mma_m8n8k32_u4_s32", "mma.m8n8k32", "mma.sync.aligned.m8n8k32.row.col.s32.u4.u4.s32", F::u4, F::s32, 8, 8, 32, 75, false, false, 1},
    {"mma_m16n8k16_f16_f16", "mma.m16n8k16", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", F::f16, F::f16, 16, 8, 16, 80, false, false, 1},
    {"mma_m16n8k16_f16_f32", "mma.m16n8k16", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", F::f16, F::f32, 16, 8, 16, 80, false, false, 1},
    {"mma_m16n8k16_bf16_f32", "mma.m16n8k16", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", F::bf16, F::f32, 16, 8, 16, 80, false, false, 1},
    {"mma_m16n8k8_bf16_f32", "mma.m16n8k8", "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", F::bf16, F::f32, 16, 8, 8, 80, false, false, 1},
    {"mma_m16n8k8_tf32_f32", "mma.m16n8k8", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", F::tf32, F::f32, 16, 8, 8, 80, false, false, 1},
    {"mma_m16n8k32_s8_s32", "mma.m16n8k32", "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", F::s8, F::s32, 16, 8, 32, 80, false, false, 1},
    {"mma_m16n8k32_s8_s32_satfinite", "mma.m16n8k32", "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32", F::s8, F::s32, 16, 8, 32, 80, false, true, 1},
    {"mma_m8n8k4_f64_f64", "mma.m8n8k4", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", F::f64, F::f64, 8, 8, 4, 80, false, false, 1},
    {"mma_m16n8k32_e4m3_f32", "mma.m16n8k32", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", F::e4m3, F::f32, 16, 8, 32, 89, false, false, 1},
    {"mma_m16n8k32_e5m2_f32", "mma.m16n8k32", "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32", F::e5m2, F::f32, 16, 8, 32, 89, false, false, 1},
    {"mma_m16n8k32_e4m3_f16", "mma.m16n8k32", "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16", F::e4m3, F::f16, 16, 8, 32, 89, false, false, 1},
    {"mma_m16n8k32_e5m2_f16", "mma.m16n8k32", "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16", F::e5m2, F::f16, 16, 8, 32, 89, false, false, 1},
    // 2:4 sparse (sparse_meta != 0: the metadata nibble of every group, mma_ops.h kSparseNibble)
    {"mma_sp_m16n8k16_f16_f32", "mma.sp.m16n8k16", "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", F::f16, F::f32, 16, 8, 16, 80, false, false, 1, 0xD},
    {"mma_sp_m16n8k32_f16_f32", "mma.sp.m16n8k32", "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", F::f16, F::f32, 16, 8, 32, 80, false, false, 1, 0xD},
    {"mma_sp_m16n8k32_bf16_f32", "mma.sp.m16n8k32", "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32", F::bf16, F::f32, 16, 8, 32, 80, false, false, 1, 0xD},
    {"mma_sp_m16n8k64_s8_s32", "mma.sp.m16n8k64", "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32", F::s8, F::s32, 16, 8, 64, 80, false, false, 1, 0xD},
    {"mma_sp_m16n8k64_e4m3_f32", "mma.sp.m16n8k64", "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32", F::e4m3, F::f32, 16, 8, 64, 89, false, false, 1, 0xD},
    {"mma_sp_m16n8k64_e5m2_f32", "mma.sp.m16n8k64", "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e5m2.e5m2.f32", F::e5m2, F::f32, 16, 8, 64, 89, false, false, 1, 0xD},
    {"wgmma_m64n8k16_f16_f32", "wgmma.m64nNk16", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", F::f16, F::f32, 64, 8, 16, 90, true, false, 1},
    {"wgmma_m64n8k16_f16_f16", "wgmma.m64nNk16", "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16", F::f16, F::f16, 64, 8, 16, 90, true, false, 1},
    {"wgmma_m64n8k16_bf16_f32", "wgmma.m64nNk16", "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16", F::bf16, F::f32, 64, 8, 16, 90, true, false, 1},
    {"wgmma_m64n8k8_tf32_f32", "wgmma.m64nNk8", "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32", F::tf32, F::f32, 64, 8, 8, 90, true, false, 1},
    {"wgmma_m64n8k32_e4m3_f32", "wgmma.m64nNk32", "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3", F::e4m3, F::f32, 64, 8, 32, 90, true, false, 1},
    {"wgmma_m64n8k32_e5m2_f32", "wgmma.m64nNk32", "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2", F::e5m2, F::f32, 64, 8, 32, 90, true, false, 1},
    {"wgmma_m64n8k32_e4m3_f16", "wgmma.m64nNk32", "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3", F::e4m3, F::f16, 64, 8, 32, 90, true, false, 1},
    {"wgmma_m64n8k32_e5m2_f16", "wgmma.m64nNk32", "wgmma.mma_async.sync.aligned.m64n8k32.f16.e5m2.e5m2", F::e5m2, F::f16, 64, 8, 32, 90, true, false, 1},
    {"wgmma_m64n8k32_s8_s32", "wgmma.m64nNk32", "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8", F::s8, F::s32, 64, 8, 32, 90, true, false, 1},
    {"wgmma_m64n8k32_s8_s32_satfinite", "wgmma.m64nNk32", "wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.s8.s8", F::s8, F::s32, 64, 8, 32, 90, true, true, 1},
};

}  // namespace

const std::vector<OpInfo>& all_ops() { return kOps; }

const OpInfo* find_op(const std::string& key) {
  for (const auto& op : kOps)
    if (key == op.key) return &op;
  return nullptr;
}

bool op_runs_on(const OpInfo& op, int cc) { return op.wgmma ? cc == 90 : cc >= op.min_cc; }

}  // namespace tcv
