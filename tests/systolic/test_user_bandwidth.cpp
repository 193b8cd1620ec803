// SCALE-Sim v2 USER bandwidth mode (fixed words per cycle): the read buffer's window/prefetch
// rules on a hand-made prefetch order, and properties of whole layers (ample bandwidth gives the
// stall-free result, less bandwidth never gives fewer stalls, DRAM counts are whole prefetches).
#include <doctest/doctest.h>

#include "systolic/systolic_test_util.h"

#include "systolic/systolic_model.h"
#include "systolic/memory/user_read_buffer.h"
#include "workload/kernel.h"

using namespace tcsim;
using namespace tcsim::systolic;

namespace {

using systolic_test::conv;

SystolicConfig user_array(std::int64_t r, std::int64_t c, Dataflow df, std::uint64_t kib, double bw) {
  SystolicConfig cfg;
  cfg.rows = r;
  cfg.cols = c;
  cfg.dataflow = df;
  cfg.ifmap_sram_bytes = cfg.filter_sram_bytes = cfg.ofmap_sram_bytes = kib * 1024;
  cfg.bandwidth_mode = BandwidthMode::user;
  cfg.user_bandwidth_words = bw;
  return cfg;
}

LayerReport run(const SystolicConfig& cfg, const Kernel& k) {
  const SystolicModel model(cfg);
  return model.run_layer(model.layers_of(k, "test").front());
}

}  // namespace

TEST_CASE("USER read buffer: window, prefetch chain and stalls by hand") {
  // 200 words: sets of ceil(200/100) = 2 entries, active half 100 words = 50 sets, prefetch 50 sets.
  // Prefetch order 0..299 -> 150 full sets + 1 empty one = 151 sets.
  UserReadBuffer b(200, 10, 300);
  for (int a = 0; a < 300; ++a) b.count(a);
  b.start_placing();
  for (int a = 0; a < 300; ++a) b.place(a, a / 100);  // tiles of 100 entries = 50 sets
  b.seal(300);
  CHECK(b.dram_start() == -10);  // ceil(100 / 10) lines before cycle 0, the last at cycle -1
  CHECK(b.dram_stop() == -1);
  CHECK(b.dram_accesses() == 100);
  CHECK(b.covers(0));  // sets 0..49
  CHECK_FALSE(b.covers(1));
  std::int64_t off = 1;
  for (int a = 0; a < 100; ++a) b.serve(a, 5, off);  // sets 0..49: all hits
  CHECK(off == 1);
  CHECK(b.prefetches() == 0);
  b.serve(100, 5, off);  // miss: window -> sets 50..99, a prefetch of 10 lines ends at -1 + 11 = 10
  CHECK(b.prefetches() == 1);
  CHECK(b.dram_stop() == 10);
  CHECK(b.covers(1));
  CHECK_FALSE(b.covers(0));
  CHECK(off == 5);  // the data arrives at 10, needed at 5 + 1: 4 stall cycles
  off = 1;
  b.serve(0, 40, off);  // window 100..149 misses; 150, 0..48 (wrapping) hits: two more prefetches
  CHECK(b.prefetches() == 3);
  CHECK(b.dram_stop() == 32);
  CHECK(off == 1);  // the prefetches completed before cycle 40: no stall
  CHECK(b.dram_accesses() == 100 + 3 * 100);
}

TEST_CASE("USER mode with ample bandwidth is the stall-free result") {
  // Operands fit in half their SRAM: everything is loaded before cycle 0, nothing stalls.
  const Kernel k = conv(12, 12, 3, 3, 4, 20, 1);
  for (Dataflow df : {Dataflow::os, Dataflow::ws, Dataflow::is}) {
    CAPTURE(to_string(df));
    SystolicConfig calc = user_array(8, 8, df, 64, 10);
    calc.bandwidth_mode = BandwidthMode::calc;
    const LayerReport c = run(calc, k);
    const LayerReport u = run(user_array(8, 8, df, 64, 1000), k);
    CHECK(u.stall_cycles == 0);
    CHECK(u.total_cycles == c.total_cycles);
    CHECK(u.overall_util_pct == c.overall_util_pct);
    CHECK(u.sram_ifmap.count == c.sram_ifmap.count);
    CHECK(u.sram_filter.count == c.sram_filter.count);
    CHECK(u.sram_ofmap.count == c.sram_ofmap.count);
    CHECK(u.sram_ifmap.stop == c.sram_ifmap.stop);
    CHECK(u.dram_ifmap.stop == -1);  // only the initial fill
    CHECK(u.dram_filter.stop == -1);
  }
}

TEST_CASE("USER mode: less bandwidth never means fewer stalls") {
  // 2 KiB SRAMs: the operands do not fit in the active half, so prefetches stall the array.
  const Kernel k = conv(20, 20, 3, 3, 16, 40, 1);
  for (Dataflow df : {Dataflow::os, Dataflow::ws, Dataflow::is}) {
    CAPTURE(to_string(df));
    std::int64_t prev = -1;
    for (double bw : {64.0, 16.0, 4.0, 1.0}) {
      CAPTURE(bw);
      const LayerReport r = run(user_array(8, 8, df, 2, bw), k);
      const std::int64_t free_rows = r.total_cycles - r.stall_cycles;  // stall-free cycle index
      SystolicConfig calc = user_array(8, 8, df, 2, bw);
      calc.bandwidth_mode = BandwidthMode::calc;
      CHECK(free_rows == run(calc, k).total_cycles);
      CHECK(r.stall_cycles >= prev);
      if (bw == 1.0) CHECK(r.stall_cycles > 0);
      prev = r.stall_cycles;
      // Whole DRAM lines: the initial fill, then prefetches of ceil(1024 / bw) lines each, every one
      // taking lines + 1 cycles after the previous one.
      const std::int64_t line = static_cast<std::int64_t>(bw), lines = (1024 + line - 1) / line;
      for (const AccessSpan* d : {&r.dram_ifmap, &r.dram_filter}) {
        const std::int64_t init = static_cast<std::int64_t>(-d->start);
        const std::int64_t rest = d->count - init * line;
        CHECK(rest % (lines * line) == 0);
        CHECK(d->stop == -1 + rest / (lines * line) * (lines + 1));
      }
    }
  }
}

TEST_CASE("USER mode: a GEMM too large to index runs in bounded memory, stall-free with a note") {
  // GPT-3's FFN (2048 x 49152 x 12288): the filter's 12288 x 49152 prefetch entries exceed the 2^27 limit.
  const SystolicModel model(user_array(32, 32, Dataflow::os, 64, 10));
  const LayerReport r = model.run_layer(make_layer(make_gemm("gpt3_ffn", 2048, 49152, 12288), Semantics::scalesim_v2, "t"));
  CHECK(r.total_cycles == 64 * 1536 * (12288 + 62) - 1);
  CHECK(r.stall_cycles == 0);
  REQUIRE_FALSE(r.notes.empty());
  CHECK(r.notes.front().find("USER bandwidth mode") != std::string::npos);
}
