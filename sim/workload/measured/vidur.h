#pragma once
// Vidur's measured operator times of LLM decoder layers (../shared/data/vidur/<gpu>/<model>/mlp.csv;
// microsoft/vidur, MLSys 2024): each operator's GPU time (torch.profiler, kernels only, no host
// time), FP16, in ms. Columns time_stats.<op>.{min,max,mean,median,std} per op, then n_head,
// n_kv_head, n_embd, n_expanded_embd, vocab_size, use_gated_mlp, num_tokens,
// num_tensor_parallel_workers. Every row and op column (its median) is one kernel:
//  - GEMMs (nn.Linear: the weight read transposed, layout NT; fp16 operands, fp32 accumulation),
//    M = num_tokens, split Megatron-style over tp = num_tensor_parallel_workers GPUs:
//    attn_pre_proj  N = (n_head + 2 n_kv_head) x head_dim / tp, K = n_embd
//    attn_post_proj N = n_embd, K = n_head x head_dim / tp
//    mlp_up_proj    N = (gated ? 2 : 1) x n_expanded_embd / tp, K = n_embd
//    mlp_down_proj  N = n_embd, K = n_expanded_embd / tp
//  - memory kernels: emb (embedding gather of num_tokens rows of n_embd), input_layernorm and
//    post_attention_layernorm (RMSNorm for gated-MLP models, i.e. Llama; LayerNorm otherwise,
//    phi-2), attn_rope (q and k heads of this GPU rotated in place), mlp_act (gated: SiLU(gate) x
//    up; else GELU), add (the residual). head_dim = n_embd / n_head.
// Group: "vidur <op>". The model's name is the CSV's folder name.
#include <string>
#include <string_view>
#include <vector>

#include "workload/measured/measured.h"

namespace tcsim::workload {

bool is_vidur_header(const std::vector<std::string>& header);

MeasuredSet read_vidur(const std::filesystem::path& file);
MeasuredSet parse_vidur(std::string_view text, const std::string& file_name);
MeasuredSet vidur_from_table(const CsvText& csv);

}  // namespace tcsim::workload
