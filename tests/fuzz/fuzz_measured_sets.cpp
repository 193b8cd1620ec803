// The published measured sets tcsim validates against, each through its own reader. Byte 0 picks:
//   0: NeuSight kernel CSV;  1: Vidur operator CSV (<model>/mlp.csv);
//   2: NVIDIA DeepLearningExamples throughput CSV;  3: NeuSight model JSON (bert_large-train-512-8.json);
//   4: torch_profile.py step CSV (training or inference; written as resnet50_amp-fp16_cl_b256_steps.csv);
//   5: DeepBench recurrent-layer CSV (v100_train_fp16_recurrent_layers_gru.csv), each row's one-layer
//      network parsed as tcsim validate parses it;  6: a best-of-sizes matmul leaderboard
//      (validation/published/torch_matmul/best_of_sizes.csv).
// Every kernel read is also sized (kernel_size_problem) and every network row's GPU compared with a
// config's name (same_gpu), as tcsim validate does before it simulates anything.
#include "fuzz_support.h"
#include "workload/kernel.h"
#include "workload/network/measured_networks.h"
#include "workload/network/reader/network_reader.h"
#include "workload/measured/best_of_sizes.h"
#include "workload/measured/neusight.h"
#include "workload/measured/vidur.h"

namespace {

void size_kernels(const tcsim::workload::MeasuredSet& set) {
  for (const auto& row : set.rows) (void)tcsim::kernel_size_problem(row.kernel);
}

void match_gpus(const std::vector<tcsim::workload::MeasuredNetworkRow>& rows) {
  for (const auto& r : rows) (void)tcsim::workload::same_gpu(r.gpu, "A100-SXM4-80GB");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tcsim::workload;
  if (size == 0) return 0;
  const std::string body = tcsim::fuzz::text_of(data + 1, size - 1);
  switch (data[0] % 7) {
    case 0: return tcsim::fuzz::run([&] { size_kernels(parse_neusight(body, "V100-PCIE-32GB/bmm.csv")); });
    case 1: return tcsim::fuzz::run([&] { size_kernels(parse_vidur(body, "a100/Llama-2-7b-hf/mlp.csv")); });
    case 2: {
      const auto f = tcsim::fuzz::write_scratch("dle_single_gpu.csv", body);
      return tcsim::fuzz::run([&] { match_gpus(read_dle_throughput_csv(f)); });
    }
    case 3: {
      const auto f = tcsim::fuzz::write_scratch("A100-80GB-PCIe/bert_large-train-512-8.json", body);
      return tcsim::fuzz::run([&] { match_gpus(read_neusight_model_json(f)); });
    }
    case 5: {
      const auto f = tcsim::fuzz::write_scratch("v100_train_fp16_recurrent_layers_gru.csv", body);
      return tcsim::fuzz::run([&] {
        if (!is_deepbench_rnn_csv(f)) return;  // as tcsim validate picks it
        const auto rows = read_deepbench_rnn_csv(f);
        match_gpus(rows);
        for (const auto& r : rows) (void)parse_network(r.model_yaml, r.origin, {r.batch, r.seq, std::nullopt});
      });
    }
    case 6: {
      const auto f = tcsim::fuzz::write_scratch("best_of_sizes.csv", body);
      return tcsim::fuzz::run([&] {
        if (!is_best_of_sizes_csv(f)) return;  // as tcsim validate picks it
        for (const auto& r : read_best_of_sizes(f)) (void)same_gpu(r.device, "H100-SXM5");
      });
    }
    default: {
      const auto f = tcsim::fuzz::write_scratch("resnet50_amp-fp16_cl_b256_steps.csv", body);
      return tcsim::fuzz::run([&] {
        if (is_torch_steps_csv(f)) match_gpus(read_torch_steps_csv(f));  // as tcsim validate picks it
      });
    }
  }
}
