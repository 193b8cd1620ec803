#include "gpu/sm/program.h"

#include <cstdio>
#include <sstream>

namespace tcsim::gpu {

const char* op_name(Op op) {
  switch (op) {
    case Op::ldg: return "LDG";
    case Op::sts: return "STS";
    case Op::cp_async: return "CP.ASYNC";
    case Op::cp_commit: return "CP.ASYNC.COMMIT";
    case Op::cp_wait: return "CP.ASYNC.WAIT";
    case Op::tma: return "TMA.LOAD";
    case Op::lds: return "LDS";
    case Op::mma: return "MMA";
    case Op::wgmma_commit: return "WGMMA.COMMIT";
    case Op::wgmma_wait: return "WGMMA.WAIT";
    case Op::ffma: return "FFMA";
    case Op::mufu: return "MUFU";
    case Op::bar: return "BAR.SYNC";
    case Op::stg: return "STG";
    case Op::wait: return "MBARRIER.WAIT";
  }
  return "?";
}

std::string format_instr(const Instr& in) {
  std::ostringstream o;
  o << op_name(in.op);
  if (in.count != 1) o << " x" << in.count;
  if (in.bytes > 0) {
    char b[32];
    std::snprintf(b, sizeof b, " %.0fB", in.bytes);
    o << b;
  }
  if (in.op == Op::cp_wait || in.op == Op::wgmma_wait) o << " " << in.arg;
  if (in.access_bytes > 0) o << " (" << int(in.access_bytes) << "-byte accesses)";
  if (in.smem_wavefronts > 0) {
    char b[48];
    std::snprintf(b, sizeof b, " [%.0f wavefronts]", in.smem_wavefronts);
    o << b;
  }
  if (in.rf_reads > 0) {
    char b[64];
    std::snprintf(b, sizeof b, " [RF %.0f reads, %.0f in busiest bank]", in.rf_reads, in.rf_bank_reads);
    o << b;
  }
  auto slot = [&](int s) {
    std::string t = "s" + std::to_string(s);
    if (in.rot > 0) t += "[(i+" + std::to_string(in.shift) + ")%" + std::to_string(in.rot) + "]";
    return t;
  };
  if (in.dst >= 0) o << " -> " << slot(in.dst);
  if (in.dst2 >= 0) o << "," << slot(in.dst2);
  bool first = true;
  for (int s : in.src)
    if (s >= 0) {
      o << (first ? " <- " : ",") << slot(s);
      first = false;
    }
  if (in.distance > 0) o << " (prefetch +" << in.distance << ")";
  if (in.leader_only) o << " (warp 0 only)";
  if (!in.note.empty()) o << "  ; " << in.note;
  return o.str();
}

std::string format_program(const WarpProgram& p, const std::string& header) {
  std::ostringstream o;
  o << header;
  o << "prologue:\n";
  for (const auto& i : p.prologue) o << "  " << format_instr(i) << "\n";
  o << "loop (" << p.iterations << " iterations, i = 0.." << p.iterations - 1 << "):\n";
  for (const auto& i : p.body) o << "  " << format_instr(i) << "\n";
  o << "epilogue:\n";
  for (const auto& i : p.epilogue) o << "  " << format_instr(i) << "\n";
  return o.str();
}

Instr tensor_map_prefetch(int dst_slot) {
  Instr d;
  d.op = Op::ldg;
  d.bytes = 128;
  d.dst = std::int16_t(dst_slot);
  d.leader_only = true;
  d.l2_hit = true;
  d.note = "tensor-map prefetch (prefetch.tensormap)";
  return d;
}

}  // namespace tcsim::gpu
