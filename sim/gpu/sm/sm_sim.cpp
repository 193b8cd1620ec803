#include "gpu/sm/sm_sim.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace tcsim::gpu {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// How far ahead of the data a unit's queue may run before the issuing warp stalls (cycles).
constexpr double kSmemQueue = 32;
constexpr double kGlobalQueue = 256;
// The widest warp access (LDS.128, ldmatrix.x4: 32 lanes x 16 B): a group given only as bytes
// counts at least bytes / 512 instructions.
constexpr double kWidestWarpAccessBytes = 512;

// Rounds up to the next cycle. The integer conversion is std::ceil for the cycle counts the
// simulation sees (non-negative, far below 2^53) at a fraction of its cost without SSE4.1's roundsd;
// anything else takes std::ceil.
double up(double x) {
  const double y = x - 1e-9;
  if (!(y >= 0 && y < 4e15)) return std::ceil(y);
  const double r = double(std::int64_t(y));
  return r < y ? r + 1 : r;
}

// A pipe that keeps its fractional phase while busy back to back, so that a measured average
// interval (2.139 cycles) is reproduced on integer issue cycles.
struct Pipe {
  double next_free = 0;
  bool can_issue(double t) const { return next_free <= t + 0.5; }
  double earliest() const { return std::max(0.0, up(next_free - 0.5)); }
  double start(double t) const { return next_free >= t - 0.5 ? next_free : t; }
};

struct Warp {
  int cta = 0, local = 0, subcore = 0;
  int section = 0;  // 0 prologue, 1 body, 2 epilogue, 3 done
  std::size_t pc = 0;
  const Instr* instr = nullptr;  // the instruction at pc (set by skip_inactive)
  std::int64_t iter = 0;
  double stall_until = 0;
  double wake = 0;
  double finish = 0;
  bool at_bar = false;
  std::vector<double> slot;
  std::vector<double> cp_groups;
  double cp_open = -1;
  std::vector<double> wg_groups;
  double wg_open = -1;
};

struct Cta {
  int arrived = 0;
  int warps = 0;
  int done = 0;         // warps of the running CTA that have exited
  int successors = 0;   // CTAs still to run in this slot after the running one
};

class Sim {
 public:
  Sim(const GpuConfig& g, const WarpProgram& p, int warps_per_cta, int ctas, int total_ctas, const SmEnvironment& env)
      : g_(g), p_(p), env_(env), tensor_(g.subcores_per_sm), fma_(g.subcores_per_sm), sfu_(g.subcores_per_sm), rf_(g.subcores_per_sm),
        ctas_(ctas) {
    if (warps_per_cta <= 0 || ctas <= 0 || total_ctas < ctas) throw std::logic_error("simulate_sm: no warps");
    const int total = warps_per_cta * ctas;
    warps_.resize(total);
    // Slot c runs CTAs c, c + ctas, c + 2 ctas, ... below total_ctas.
    for (int c = 0; c < ctas; ++c) ctas_[c].warps = warps_per_cta, ctas_[c].successors = (total_ctas - 1 - c) / ctas;
    for (int w = 0; w < total; ++w) {
      Warp& wp = warps_[w];
      wp.cta = w / warps_per_cta;
      wp.local = w % warps_per_cta;
      // A warp's sub-core is its SM-wide warp slot mod the sub-cores (GPGPU-Sim's dynamic warp id):
      // the two warps of a 64-thread CTA share two sub-cores, the next CTA takes the other two.
      wp.subcore = w % g.subcores_per_sm;
      wp.slot.assign(std::max(1, p.slots), 0.0);
    }
    by_subcore_.resize(g.subcores_per_sm);
    for (int w = 0; w < total; ++w) by_subcore_[warps_[w].subcore].push_back(w);
    last_.assign(g.subcores_per_sm, -1);
    subcore_wake_.assign(g.subcores_per_sm, 0.0);
    global_bpc_ = std::min(env.global_bytes_per_clk, g.l1_bytes_per_clk);
    for (auto& w : warps_) skip_inactive(w);
  }

  SmRunStats run() {
    double t = 0;
    const int width = g_.issue_per_scheduler_per_clk * g_.warp_schedulers_per_subcore;
    int done = 0;
    for (const auto& w : warps_) done += w.section == 3;
    while (done < int(warps_.size())) {
      bool any = false;
      double next = kInf;
      for (int sc = 0; sc < g_.subcores_per_sm; ++sc) {
        // No warp of this sub-core can issue before its earliest wake: skip the scan (the same
        // cycles are simulated; only the visits that would find nothing are left out).
        if (subcore_wake_[sc] > t) {
          next = std::min(next, subcore_wake_[sc]);
          continue;
        }
        // The scan recomputes the sub-core's wake; a barrier released or a CTA started during it
        // (wake_at) lowers it meanwhile.
        subcore_wake_[sc] = kInf;
        double soonest = kInf;
        int issued = 0;
        bool complete = true;
        // Visits the warp; false once the sub-core has issued its width this cycle.
        auto visit = [&](int wi) {
          if (issued == width) {
            complete = false;
            return false;
          }
          Warp& w = warps_[wi];
          if (w.section == 3 || w.at_bar) return true;
          if (w.wake > t) {
            soonest = std::min(soonest, w.wake);
            return true;
          }
          const double e = earliest(w, t);
          if (e > t) {
            w.wake = e;
            soonest = std::min(soonest, e);
            return true;
          }
          issue(w, t);
          ++issued;
          any = true;
          last_[sc] = wi;
          if (w.section == 3) done += retire(w, t);
          else soonest = std::min(soonest, w.wake);
          return true;
        };
        // The scheduler's order: greedy-then-oldest (the last warp issued first, then the others
        // in age order) or loose round robin (from the warp after the last one issued).
        const auto& mine = by_subcore_[sc];
        const int last = last_[sc];
        const std::size_t n = mine.size();
        if (g_.scheduler_policy == SchedulerPolicy::gto) {
          if (last < 0 || visit(last))
            for (std::size_t i = 0; i < n; ++i)
              if (mine[i] != last && !visit(mine[i])) break;
        } else {
          std::size_t start = 0;
          for (std::size_t i = 0; i < n; ++i)
            if (mine[i] == last) start = i + 1;
          for (std::size_t i = 0; i < n; ++i)
            if (!visit(mine[(start + i) % n])) break;
        }
        const double wake = complete ? std::min(subcore_wake_[sc], soonest) : t + 1;
        subcore_wake_[sc] = std::max(wake, t + 1);
        next = std::min(next, subcore_wake_[sc]);
      }
      if (any) t += 1;
      else if (next == kInf) throw std::logic_error("simulate_sm: deadlock (barrier or wait never satisfied)");
      else t = std::max(t + 1, up(next));
    }
    double end = 0;
    for (const auto& w : warps_) end = std::max(end, w.finish);
    end = std::max({end, up(gmem_.next_free), up(stores_.next_free)});
    stats_.cycles = end;
    return stats_;
  }

 private:
  // The warp's next instruction (skip_inactive keeps it).
  static const Instr& current(const Warp& w) { return *w.instr; }

  bool executes(const Warp& w, const Instr& in) const {
    if (in.leader_only && w.local != 0) return false;
    if (in.distance > 0 && w.section == 1 && w.iter + in.distance >= p_.iterations) return false;
    return true;
  }

  // Moves pc to the next instruction this warp executes (or to done).
  void skip_inactive(Warp& w) {
    for (;;) {
      const auto* code = w.section == 0 ? &p_.prologue : w.section == 1 ? &p_.body : &p_.epilogue;
      if (w.section == 3) return;
      if (w.section == 1 && p_.iterations <= 0) {
        w.section = 2, w.pc = 0;
        continue;
      }
      if (w.pc >= code->size()) {
        if (w.section == 1) {
          ++w.iter;
          if (w.iter < p_.iterations) {
            w.pc = 0;
            note_iteration(w);
            continue;
          }
        }
        ++w.section;
        w.pc = 0;
        if (w.section == 1) note_iteration(w);
        continue;
      }
      if (executes(w, (*code)[w.pc])) {
        w.instr = &(*code)[w.pc];
        return;
      }
      ++w.pc;
    }
  }

  // A warp exited. When it is its CTA's last, the CTA retires and, if the slot has a successor, the
  // CTA scheduler starts it in the freed slot on the next cycle: its loads queue behind the stores
  // the retired CTA left in flight. Returns the warps that will not run again.
  int retire(const Warp& exited, double t) {
    Cta& c = ctas_[exited.cta];
    if (++c.done < c.warps) return 0;
    if (c.successors == 0) return c.warps;
    --c.successors;
    c.done = 0;
    c.arrived = 0;
    now_ = t + 1;
    for (auto& w : warps_) {
      if (w.cta != exited.cta) continue;
      w.section = 0, w.pc = 0, w.iter = 0;
      w.stall_until = t + 1;
      wake_at(w, t + 1);
      w.at_bar = false;
      std::fill(w.slot.begin(), w.slot.end(), 0.0);
      w.cp_groups.clear(), w.cp_open = -1;
      w.wg_groups.clear(), w.wg_open = -1;
      skip_inactive(w);
    }
    return 0;
  }

  // Sets a warp's wake from outside its sub-core's scan (a barrier's release, a CTA's start).
  void wake_at(Warp& w, double when) {
    w.wake = when;
    subcore_wake_[w.subcore] = std::min(subcore_wake_[w.subcore], when);
  }

  void note_iteration(const Warp& w) {
    if (w.local != 0 || w.section != 1 || w.iter >= p_.iterations) return;
    if (stats_.cta_iteration_start.size() <= std::size_t(w.cta)) stats_.cta_iteration_start.resize(w.cta + 1);
    stats_.cta_iteration_start[w.cta].push_back(now_);
  }

  int slot_of(const Warp& w, const Instr& in, int s) const {
    if (s < 0) return -1;
    if (in.rot > 0) return s + int((w.iter + in.shift) % in.rot);
    return s;
  }

  static double groups_ready(std::vector<double>& groups, int allowed, double t) {
    // Completed groups at the front no longer count.
    while (!groups.empty() && groups.front() <= t && int(groups.size()) > allowed) groups.erase(groups.begin());
    double need = 0;
    const int n = int(groups.size()) - allowed;
    for (int i = 0; i < n; ++i) need = std::max(need, groups[i]);
    return need;
  }

  // The first cycle >= t at which the warp's next instruction may issue (> t: not now).
  double earliest(Warp& w, double t) {
    double e = std::max(t, w.stall_until);
    const Instr& in = current(w);
    for (int s : in.src) {
      const int k = slot_of(w, in, s);
      if (k >= 0) e = std::max(e, w.slot[k]);
    }
    switch (in.op) {
      case Op::mma: {
        const MmaInstr& row = g_.mma[in.mma];
        if (row.kind == MmaKind::wgmma && in.bytes > 0 && smem_.next_free > t + kSmemQueue)
          e = std::max(e, smem_.next_free - kSmemQueue);
        if (!tensor_[w.subcore].can_issue(e)) e = std::max(e, tensor_[w.subcore].earliest());
        if (in.rf_bank_reads > 0 && !rf_[w.subcore].can_issue(e)) e = std::max(e, rf_[w.subcore].earliest());
        break;
      }
      case Op::ffma:
        if (!fma_[w.subcore].can_issue(e)) e = std::max(e, fma_[w.subcore].earliest());
        if (in.rf_bank_reads > 0 && !rf_[w.subcore].can_issue(e)) e = std::max(e, rf_[w.subcore].earliest());
        break;
      case Op::mufu:
        if (!sfu_[w.subcore].can_issue(e)) e = std::max(e, sfu_[w.subcore].earliest());
        break;
      case Op::lds:
      case Op::sts:
        if (smem_.next_free > e + kSmemQueue) e = std::max(e, smem_.next_free - kSmemQueue);
        break;
      case Op::ldg:
      case Op::cp_async:
      case Op::tma:
        if (gmem_.next_free > e + kGlobalQueue) e = std::max(e, gmem_.next_free - kGlobalQueue);
        break;
      case Op::stg:
        if (stores_.next_free > e + kGlobalQueue) e = std::max(e, stores_.next_free - kGlobalQueue);
        break;
      case Op::cp_wait: e = std::max(e, groups_ready(w.cp_groups, in.arg, t)); break;
      case Op::wgmma_wait: e = std::max(e, groups_ready(w.wg_groups, in.arg, t)); break;
      default: break;
    }
    return up(e);
  }

  // Returns when the last byte arrives. The SM's bandwidth share is a queue (the other SMs use the
  // rest); the latency overlaps with waiting in it, so the data arrives after the later of the two:
  // the unloaded trip (latency + bytes over the SM's own link) or the queue.
  // Loads and stores queue apart: read data comes back on the crossbar's response path, store data
  // goes out on its request path (the whole GPU's DRAM limit on both together is applied above the
  // SM, gemm_estimate.cpp).
  // `access` (bytes per lane, 0: 16) below 16: the copy's requests carry 32 x access bytes, at most
  // 128, one per l1.narrow_request_interval cycles.
  double global_transfer(double t, double bytes, double latency, Pipe& queue, int access = 0) {
    const double s = std::max(t, queue.next_free);
    double bpc = global_bpc_;
    if (const double narrow = g_.narrow_copy_bytes_per_clk(access); narrow > 0) bpc = std::min(bpc, narrow);
    const double d = bytes / bpc;
    queue.next_free = s + d;
    stats_.global_busy += d;
    return std::max(t + latency + bytes / g_.l1_bytes_per_clk, s + d);
  }

  // The banks serve one wavefront per `banks x bank_width` bytes of bandwidth: the pipe is busy for
  // max(bytes, wavefronts x banks x bank_width) / bandwidth cycles (= max(bytes / bandwidth,
  // wavefronts) when the bandwidth is the banks' 128 B/clk). Without wavefronts: conflict-free.
  // `instructions` > 0: a group of that many warp instructions (at least bytes /
  // kWidestWarpAccessBytes), which the SM's shared structures take one per
  // shared_memory.instruction_interval cycles (2 on Ampere and Turing: a warp-wide LDS.32, one bank
  // cycle, then runs at half the banks' rate; configs/gpu/a100.yaml).
  double smem_transfer(double t, double bytes, double wavefronts, double instructions = 0) {
    const double s = std::max(t, smem_.next_free);
    const double phase = double(g_.smem_banks) * g_.smem_bank_bytes;
    double d = std::max(bytes, wavefronts * phase) / g_.smem_bytes_per_clk;
    if (instructions > 0 && g_.smem_instruction_interval > 0)
      d = std::max(d, std::ceil(std::max(instructions, bytes / kWidestWarpAccessBytes)) * g_.smem_instruction_interval);
    smem_.next_free = s + d;
    stats_.smem_busy += d;
    stats_.smem_bytes += bytes;
    stats_.smem_wavefronts += wavefronts > 0 ? wavefronts : std::ceil(bytes / phase);
    return s + d;
  }

  // The sub-core's register-file read ports: the group's busiest bank needs its reads / ports cycles.
  void rf_read(const Warp& w, const Instr& in, double t) {
    if (in.rf_bank_reads <= 0) return;
    Pipe& rf = rf_[w.subcore];
    const double d = in.rf_bank_reads / g_.rf_read_ports_per_bank;
    rf.next_free = rf.start(t) + d;
    stats_.rf_busy += d;
    stats_.rf_reads += in.rf_reads;
  }

  void set_slot(Warp& w, const Instr& in, int s, double ready) {
    const int k = slot_of(w, in, s);
    if (k >= 0) w.slot[k] = up(ready);
    w.finish = std::max(w.finish, up(ready));
  }

  void issue(Warp& w, double t) {
    now_ = t;
    const Instr& in = current(w);
    ++stats_.issued;
    // Warp instructions other than MMAs the group stands for (an MMA's issue and operand delivery
    // are part of the energy per MAC, see power/activity.h).
    if (in.op != Op::mma) stats_.warp_instructions += double(in.count);
    if (env_.record_issues)
      stats_.issues.push_back({t, w.cta, w.local, w.subcore, w.section, w.iter, w.pc, in.op});
    double stall = t + 1;
    switch (in.op) {
      case Op::mma: {
        const MmaInstr& row = g_.mma[in.mma];
        const int n = in.mma_n > 0 ? in.mma_n : row.n;
        Pipe& pipe = tensor_[w.subcore];
        const double per = row.pipe_cycles(n) * in.stretch;
        const double s = pipe.start(t);
        pipe.next_free = s + per * in.count;
        const double tail = (row.sass_count - 1) * row.issue_interval + row.latency_at(n);
        const double first = s + tail;
        const double all = s + per * (in.count - 1) + tail;
        const bool wg = row.kind == MmaKind::wgmma;
        rf_read(w, in, t);
        stats_.tensor_fma += in.count * row.fma() * (double(n) / row.n) / (wg ? g_.subcores_per_sm : 1);
        stats_.tensor_busy += per * in.count;
        if (wg) {
          if (in.bytes > 0) smem_transfer(t, in.bytes, in.smem_wavefronts);
          w.wg_open = std::max(w.wg_open, up(all));
          stall = t + row.issue_cycles * in.count;
        } else {
          // In-order issue: the warp's next instruction follows the group's last SASS MMA.
          stall = std::max(t + row.issue_cycles * in.count, up(s + per * in.count - row.issue_interval) + 1);
        }
        set_slot(w, in, in.dst, first);
        set_slot(w, in, in.dst2, all);
        break;
      }
      case Op::ffma: {
        Pipe& pipe = fma_[w.subcore];
        rf_read(w, in, t);
        const double per = 32.0 / g_.fp32_lanes_per_subcore * in.stretch;
        const double s = pipe.start(t);
        pipe.next_free = s + per * in.count;
        stats_.ffma += 32.0 * in.count;
        stats_.ffma_busy += per * in.count;
        stall = std::max(t + in.count, up(s + per * (in.count - 1)) + 1);
        set_slot(w, in, in.dst, s + per + g_.ffma_latency);
        set_slot(w, in, in.dst2, s + per * in.count + g_.ffma_latency);
        break;
      }
      case Op::mufu: {
        Pipe& pipe = sfu_[w.subcore];
        const double per = 32.0 / g_.sfu_lanes_per_subcore;
        const double s = pipe.start(t);
        pipe.next_free = s + per * in.count;
        stats_.mufu += 32.0 * in.count;
        stats_.sfu_busy += per * in.count;
        stall = std::max(t + in.count, up(s + per * (in.count - 1)) + 1);
        set_slot(w, in, in.dst, s + per + g_.ffma_latency);
        set_slot(w, in, in.dst2, s + per * in.count + g_.ffma_latency);
        break;
      }
      case Op::lds: {
        stall = t + in.count;  // a group of `count` load instructions takes as many issue slots
        const double done = smem_transfer(t, in.bytes, in.smem_wavefronts, in.count);
        set_slot(w, in, in.dst, done + g_.smem_latency);
        break;
      }
      case Op::sts: {
        smem_transfer(t, in.bytes, in.smem_wavefronts, in.count);
        break;
      }
      case Op::ldg: {
        const double latency = in.l2_hit ? std::round(g_.l2_hit_latency()) : env_.global_latency;
        const double done = global_transfer(t, in.bytes, latency, gmem_, in.access_bytes);
        stats_.global_read_bytes += in.bytes;
        set_slot(w, in, in.dst, done);
        break;
      }
      case Op::cp_async: {
        const double done = global_transfer(t, in.bytes, env_.global_latency, gmem_, in.access_bytes);
        stats_.global_read_bytes += in.bytes;
        // The copy's shared-memory writes take the banks too; booked at issue (a throughput model:
        // the write happens on arrival, but only the pipe's occupancy matters here).
        smem_transfer(t, in.bytes, in.smem_wavefronts);
        w.cp_open = std::max(w.cp_open, up(done));
        w.finish = std::max(w.finish, up(done));
        break;
      }
      case Op::tma: {
        const double done = global_transfer(t, in.bytes, env_.global_latency, gmem_);
        stats_.global_read_bytes += in.bytes;
        stats_.smem_bytes += in.bytes;
        set_slot(w, in, in.dst, done);
        // The mbarrier is visible to every warp of the CTA: copy the arrival to them.
        const int k = slot_of(w, in, in.dst);
        if (k >= 0)
          for (auto& o : warps_)
            if (o.cta == w.cta) o.slot[k] = up(done);
        break;
      }
      case Op::stg: {
        const double done = global_transfer(t, in.bytes, 0, stores_);
        stats_.global_write_bytes += in.bytes;
        w.finish = std::max(w.finish, up(done));
        break;
      }
      case Op::cp_commit:
        w.cp_groups.push_back(w.cp_open < 0 ? t : w.cp_open);
        w.cp_open = -1;
        break;
      case Op::wgmma_commit:
        w.wg_groups.push_back(w.wg_open < 0 ? t : w.wg_open);
        w.wg_open = -1;
        break;
      case Op::cp_wait:
      case Op::wgmma_wait:
      case Op::wait:
        break;
      case Op::bar: {
        Cta& c = ctas_[w.cta];
        w.at_bar = true;
        if (++c.arrived == c.warps) {
          c.arrived = 0;
          for (auto& o : warps_)
            if (o.cta == w.cta && o.at_bar) {
              o.at_bar = false;
              wake_at(o, t + 1);
            }
        }
        break;
      }
    }
    w.stall_until = stall;
    w.wake = stall;
    w.finish = std::max(w.finish, t + 1);
    ++w.pc;
    now_ = t + 1;
    skip_inactive(w);
  }

  const GpuConfig& g_;
  const WarpProgram& p_;
  SmEnvironment env_;
  std::vector<Pipe> tensor_, fma_, sfu_, rf_;
  Pipe smem_, gmem_, stores_;
  double global_bpc_ = 1;
  std::vector<Warp> warps_;
  std::vector<Cta> ctas_;
  std::vector<std::vector<int>> by_subcore_;
  std::vector<int> last_;
  std::vector<double> subcore_wake_;  // no warp of the sub-core issues before this cycle
  SmRunStats stats_;
  double now_ = 0;
};

}  // namespace

SmRunStats simulate_sm(const GpuConfig& gpu, const WarpProgram& program, int warps_per_cta, int ctas,
                       const SmEnvironment& env, int total_ctas) {
  Sim sim(gpu, program, warps_per_cta, ctas, std::max(total_ctas, ctas), env);
  return sim.run();
}

}  // namespace tcsim::gpu
