// workload::same_gpu: which measured board a shipped config stands for (tcsim validate skips the rest).
#include <doctest/doctest.h>

#include "workload/network/measured_networks.h"

using tcsim::workload::same_gpu;

namespace {

struct Pair {
  const char* measured;
  const char* config;
};

}  // namespace

TEST_CASE("same_gpu: the sets' spellings of a board match its config's name") {
  for (const Pair p : {Pair{"A100-80GB (DGX A100)", "A100-SXM4-80GB"}, Pair{"Tesla V100-PCIE-32GB", "V100-PCIe-32GB"},
                       Pair{"NVIDIA L40S", "L40S"}, Pair{"NVIDIA GeForce RTX 3090 24GB", "RTX-3090-24GB"},
                       Pair{"NVIDIA GeForce RTX 3090", "RTX-3090-24GB"}, Pair{"NVIDIA RTX 4090 24GB", "RTX-4090-24GB"},
                       Pair{"NVIDIA RTX A6000", "RTX-A6000-48GB"},
                       Pair{"NVIDIA RTX 6000 Ada Generation 48GB", "RTX-6000-Ada-48GB"},
                       Pair{"GeForce RTX4090", "RTX-4090-24GB"},  // a number after letters is still the board's
                       Pair{"Quadro RTX 8000 48GB", "Quadro-RTX-8000-48GB"}, Pair{"NVIDIA H200", "H200-SXM"},
                       Pair{"NVIDIA RTX 5090 32GB", "RTX-5090-32GB"}, Pair{"NVIDIA GeForce RTX 5090", "RTX-5090-32GB"},
                       Pair{"NVIDIA RTX PRO 6000 Workstation 96G", "RTX-PRO-6000-Blackwell-96GB"},
                       Pair{"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "RTX-PRO-6000-Blackwell-96GB"}}) {
    INFO(p.measured << " ~ " << p.config);
    CHECK(same_gpu(p.measured, p.config));
  }
}

TEST_CASE("same_gpu: another board of the same name is not the config's") {
  for (const Pair p : {
           // Other memory sizes, form factors and chips of a family.
           Pair{"A100-PCIE-40GB", "A100-SXM4-80GB"}, Pair{"NVIDIA RTX 4090 48GB", "RTX-4090-24GB"},
           Pair{"NVIDIA RTX 4090 Laptop", "RTX-4090-24GB"},
           // Variants that name another board: a suffix letter or word, a longer number.
           Pair{"NVIDIA RTX 4090D 24GB", "RTX-4090-24GB"}, Pair{"NVIDIA GeForce RTX 3090 Ti", "RTX-3090-24GB"},
           Pair{"NVIDIA A10G", "A10"}, Pair{"NVIDIA A1000", "A100-SXM4-40GB"}, Pair{"NVIDIA L40", "L40S"},
           Pair{"NVIDIA Tesla V100S 32GB", "V100-SXM2-32GB"}, Pair{"Quadro RTX 6000 24GB", "Quadro-RTX-8000-48GB"},
           // Workstation boards of one chip: the RTX A6000 (GA102) is not the RTX 6000 Ada (AD102), and
           // neither is the RTX PRO 6000 Blackwell.
           Pair{"NVIDIA RTX 6000 Ada Generation", "RTX-A6000-48GB"}, Pair{"NVIDIA RTX A6000", "RTX-6000-Ada-48GB"},
           Pair{"NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTX-6000-Ada-48GB"},
           Pair{"NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTX-A6000-48GB"}, Pair{"Unknown board", "RTX-4090-24GB"},
           // A name inside another: the GH200 superchip is not an H200 board.
           Pair{"NVIDIA GH200 480GB", "H200-SXM"},
           // Blackwell: the RTX 5090 D (v2: 24 GB) and the laptop part; the 300 W RTX PRO 6000 Max-Q, the
           // Server Edition (1597 GB/s) and the RTX 6000 Ada are not the 600 W RTX PRO 6000 Workstation.
           Pair{"NVIDIA GeForce RTX 5090 D v2", "RTX-5090-32GB"}, Pair{"NVIDIA RTX 5090 Laptop 24GB", "RTX-5090-32GB"},
           Pair{"NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "RTX-PRO-6000-Blackwell-96GB"},
           Pair{"NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTX-PRO-6000-Blackwell-96GB"},
           Pair{"NVIDIA RTX 6000 Ada Generation 48GB", "RTX-PRO-6000-Blackwell-96GB"},
           Pair{"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "RTX-6000-Ada-48GB"}}) {
    INFO(p.measured << " ~ " << p.config);
    CHECK_FALSE(same_gpu(p.measured, p.config));
  }
}

TEST_CASE("named_memory_gib: the memory a measured board's name gives, 0 when it gives none") {
  using tcsim::workload::named_memory_gib;
  CHECK(named_memory_gib("A100-80GB (DGX A100)") == 80);
  CHECK(named_memory_gib("V100-32GB (DGX-1)") == 32);
  CHECK(named_memory_gib("RTX 4090 24GB") == 24);
  CHECK(named_memory_gib("Tesla V100-PCIE-32GB") == 32);
  CHECK(named_memory_gib("rtx a6000 48gb") == 48);
  CHECK(named_memory_gib("H100 SXM5") == 0);
  CHECK(named_memory_gib("NVIDIA H200") == 0);
  CHECK(named_memory_gib("") == 0);
}
