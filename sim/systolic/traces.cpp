#include "systolic/traces.h"

#include <cstdio>
#include <memory>
#include <vector>

#include "common/atomic_file.h"
#include "common/error.h"
#include "systolic/demand_streams.h"
#include "systolic/dram_traces.h"
#include "systolic/fold_schedule.h"

namespace tcsim::systolic {

std::int64_t trace_cells(const Layer& layer, const SystolicConfig& c) {
  const FoldSchedule s = make_schedule(layer, c.rows, c.cols, c.dataflow);
  return s.total_rows() * (c.rows + 2 * c.cols + 3);
}

namespace {

// Address at each port of demand row t of fold f (-1 idle), in SCALE-Sim's port order.
struct RowGen {
  const Layer& l;
  const FoldSchedule& s;
  const Im2col& A;
  const SystolicConfig& c;
  std::int64_t K, N;

  std::int64_t B(std::int64_t k, std::int64_t n) const { return c.filter_offset + n * K + k; }
  std::int64_t Aoff(std::int64_t m, std::int64_t k) const {
    const std::int64_t a = A(m, k);
    return a < 0 ? -1 : a + c.ifmap_offset;
  }
  std::int64_t O(std::int64_t m, std::int64_t n) const { return c.ofmap_offset + n + N * m; }

  void ifmap(std::int64_t fr, std::int64_t fc, std::int64_t t, std::vector<std::int64_t>& out) const {
    const std::int64_t ru = s.rows_used(fr), cu = s.cols_used(fc);
    switch (s.dataflow) {
      case Dataflow::os:
        out.assign(static_cast<std::size_t>(s.R), -1);
        for (std::int64_t r = 0; r < ru; ++r)
          if (t - r >= 0 && t - r < s.T) out[r] = Aoff(fr * s.R + r, t - r);
        break;
      case Dataflow::ws:
        out.assign(static_cast<std::size_t>(s.R), -1);
        for (std::int64_t r = 0; r < ru; ++r) {
          const std::int64_t m = t - s.R - r;
          if (m >= 0 && m < s.T) out[r] = Aoff(m, fr * s.R + r);
        }
        break;
      case Dataflow::is:
        out.assign(static_cast<std::size_t>(s.C), -1);
        if (t < s.R && s.R - 1 - t < ru)
          for (std::int64_t p = 0; p < cu; ++p) out[p] = Aoff(fc * s.C + p, fr * s.R + (s.R - 1 - t));
        break;
    }
  }
  void filter(std::int64_t fr, std::int64_t fc, std::int64_t t, std::vector<std::int64_t>& out) const {
    const std::int64_t ru = s.rows_used(fr), cu = s.cols_used(fc);
    switch (s.dataflow) {
      case Dataflow::os:
        out.assign(static_cast<std::size_t>(s.C), -1);
        for (std::int64_t p = 0; p < cu; ++p)
          if (t - p >= 0 && t - p < s.T) out[p] = B(t - p, fc * s.C + p);
        break;
      case Dataflow::ws:
        out.assign(static_cast<std::size_t>(s.C), -1);
        if (t < s.R && s.R - 1 - t < ru)
          for (std::int64_t p = 0; p < cu; ++p) out[p] = B(fr * s.R + (s.R - 1 - t), fc * s.C + p);
        break;
      case Dataflow::is:
        out.assign(static_cast<std::size_t>(s.R), -1);
        for (std::int64_t r = 0; r < ru; ++r) {
          const std::int64_t n = t - s.R - r;
          if (n >= 0 && n < s.T) out[r] = B(fr * s.R + r, n);
        }
        break;
    }
  }
  void ofmap(std::int64_t fr, std::int64_t fc, std::int64_t t, std::vector<std::int64_t>& out) const {
    const std::int64_t cu = s.cols_used(fc);
    out.assign(static_cast<std::size_t>(s.C), -1);
    for (std::int64_t p = 0; p < cu; ++p) {
      if (s.dataflow == Dataflow::os) {
        const std::int64_t i = t - (s.T - 1) - p;  // row of the flipped tile
        if (i >= s.R - s.rows_used(fr) && i < s.R) out[p] = O(fr * s.R + (s.R - 1 - i), fc * s.C + p);
      } else {
        const std::int64_t x = t - (2 * s.R - 1) - p;
        if (x >= 0 && x < s.T) out[p] = s.dataflow == Dataflow::ws ? O(x, fc * s.C + p) : O(fc * s.C + p, x);
      }
    }
  }
};

struct File {
  std::FILE* f = nullptr;
  explicit File(const std::filesystem::path& p) : f(std::fopen(p.string().c_str(), "w")) {
    if (!f) throw InputError(p.string(), "cannot write the trace file");
  }
  ~File() {
    if (f) std::fclose(f);
  }
  void row(std::int64_t cycle, const std::vector<std::int64_t>& v) {
    std::fprintf(f, "%lld", static_cast<long long>(cycle));
    for (std::int64_t a : v) std::fprintf(f, ",%lld", static_cast<long long>(a));
    std::fputc('\n', f);
  }
};

}  // namespace

void write_sram_traces(const std::filesystem::path& dir, const Layer& layer, const SystolicConfig& c,
                       const std::string& layer_label) {
  const std::int64_t cells = trace_cells(layer, c);
  if (cells > kMaxTraceCells)
    throw InputError("--traces", layer_label + " is too large for per-cycle traces: " + std::to_string(cells) +
                                     " trace cells (cycles x ports); the limit is " + std::to_string(kMaxTraceCells) +
                                     " per layer. Leave out --traces or simulate smaller layers.");
  std::filesystem::create_directories(dir);
  const FoldSchedule s = make_schedule(layer, c.rows, c.cols, c.dataflow);
  const Im2col A(layer);
  const RowGen g{layer, s, A, c, layer.k(), layer.n()};
  // Written to temporary names and renamed when complete, so no half-written trace is left.
  const char* names[3] = {"IFMAP_SRAM_TRACE.csv", "FILTER_SRAM_TRACE.csv", "OFMAP_SRAM_TRACE.csv"};
  for (int which = 0; which < 3; ++which) {
    AtomicOutput out(dir / names[which]);
    {
      File f(out.temp_path());
      std::vector<std::int64_t> v;
      for (std::int64_t fold = 0; fold < s.folds(); ++fold) {
        const std::int64_t fc = fold / s.Fr, fr = fold % s.Fr;
        for (std::int64_t t = 0; t < s.fold_rows; ++t) {
          const std::int64_t row = fold * s.fold_rows + t;
          if (which == 0) g.ifmap(fr, fc, t, v);
          else if (which == 1) g.filter(fr, fc, t, v);
          else g.ofmap(fr, fc, t, v);
          f.row(which == 2 ? row : row + 1, v);
        }
      }
    }
    out.commit();
  }
  if (dram_traces_supported(c)) write_dram_read_traces(dir, layer, c);
}

}  // namespace tcsim::systolic
