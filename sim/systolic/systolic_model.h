#pragma once
// The systolic-array model. `run_layer` gives every SCALE-Sim counter of one layer (batch 1);
// `run` implements the Accelerator interface for networks and sweeps (batch and count multiply).
// Cycles, utilisations and SRAM counts are closed forms; the CALC-mode DRAM counts replay the
// demand order (no matrices are built) and fall back to an estimate for layers too large to replay.
#include <cstdint>
#include <string_view>
#include <vector>

#include "systolic/schedule/layer.h"
#include "systolic/reports/layer_report.h"
#include "systolic/config/systolic_config.h"
#include "workload/accelerator.h"

namespace tcsim::systolic {

// A layer may take at most this many folds (times its depthwise copies); more is refused with the
// estimated time in the message (README "Bounds").
inline constexpr double kMaxFoldsPerLayer = 4194304.0;  // 2^22

class SystolicModel : public Accelerator {
 public:
  explicit SystolicModel(SystolicConfig config);  // validates the config (InputError)

  std::string name() const override;
  double clock_hz() const override { return config_.clock_hz; }
  KernelResult run(const Kernel& kernel) const override;
  double memory_bytes() const override { return static_cast<double>(config_.dram_size_bytes); }

  // One layer, all SCALE-Sim counters. `where` names the layer in error messages.
  LayerReport run_layer(const Layer& layer) const;
  // A kernel as SCALE-Sim layers (a depthwise conv becomes one layer per channel). The work limit
  // counts every layer when the caller simulates each (`tcsim run`'s reports), one when it simulates
  // the first of identical copies and scales it (run()).
  std::vector<Layer> layers_of(const Kernel& kernel, const std::string& where, bool simulate_each = true) const;

  const SystolicConfig& config() const { return config_; }

  // Replay limits: larger operands get estimated DRAM counts (bounded memory and time).
  static constexpr std::int64_t kMaxReplayAccesses = std::int64_t{1} << 27;
  static constexpr std::int64_t kMaxReplayAddresses = std::int64_t{1} << 26;

 private:
  SystolicConfig config_;
};

// Mapping efficiency below which a kernel is noted as filling the array poorly (tcsim network flags
// its layer, as it flags GPU layers whose sizes are not multiples of 8).
inline constexpr double kUnderfilledPct = 50;
// How that note starts (tcsim network finds it by this prefix).
inline constexpr std::string_view kUnderfilledNote = "under-filled array: ";
// Adds that note to `r` (the dimensions each array side holds and what would fill it) when the
// layer's mapping efficiency is below kUnderfilledPct.
void note_underfill(const Layer& layer, const SystolicConfig& config, LayerReport& r);

// The KernelResult view of a layer report (metrics with units in their names).
KernelResult to_kernel_result(const LayerReport& r, const SystolicConfig& config, double repeat);

}  // namespace tcsim::systolic
