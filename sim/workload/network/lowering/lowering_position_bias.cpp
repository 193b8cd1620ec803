// Lowering of T5's relative position bias (Hugging Face's T5Attention.compute_bias and
// _relative_position_bucket, run eagerly once per stack in its first layer) and the attention mask
// added to it (get_extended_attention_mask / invert_attention_mask, then position_bias + mask): the
// [batch, heads, q, kv] score bias every attention layer of the stack adds to its scores.
#include <algorithm>

#include "workload/network/lowering/lowering_context.h"

namespace tcsim::workload::lowering_detail {

void lower_position_bias(Context& c, int li) {
  const Layer& l = c.layer(li);
  const std::int64_t B = c.batch, H = l.heads, q = l.q_len, kv = l.kv_len;
  const std::int64_t P = q * kv;  // query-key pairs
  const double p = double(P), bp = double(B) * p;
  // The bias table follows the weights (fp32 under autocast), the mask the model's dtype.
  const FormatId fmt = c.f.autocast ? c.f.master : storage_of(c.f.weights);
  const double fb = bytes_of(fmt);
  c.out_format[static_cast<std::size_t>(li)] = fmt;
  auto fwd = [&](const std::string& suffix, const char* op, std::int64_t n, std::int64_t row, double rd, double wr) {
    c.emit_forward(li, bytes_kernel(l.name + suffix, op, FormatId::fp32, n, row, rd, wr, 1, l.count));
  };
  auto bwd = [&](const std::string& suffix, const char* op, std::int64_t n, std::int64_t row, double rd, double wr) {
    c.emit_backward(li, bytes_kernel(l.name + suffix, op, FormatId::fp32, n, row, rd, wr, 1, l.count));
  };

  if (l.buckets > 0) {
    // relative_position = memory_position - context_position (int64), then its bucket.
    fwd(".arange_q", "arange", q, 0, 0, 8.0 * double(q));
    fwd(".arange_kv", "arange", kv, 0, 0, 8.0 * double(kv));
    fwd(".relative", "sub", P, 0, 8.0 * double(q + kv), 8 * p);
    if (!l.causal) {  // bidirectional: half the buckets for keys after the query, then |distance|
      fwd(".bucket.gt", "gt", P, 0, 8 * p, p);
      fwd(".bucket.to_long", "cast", P, 0, p, 8 * p);
      fwd(".bucket.mul", "mul", P, 0, 8 * p, 8 * p);
      fwd(".bucket.add", "add", P, 0, 8 * p, 8 * p);
      fwd(".bucket.abs", "abs", P, 0, 8 * p, 8 * p);
    } else {  // one-directional: -min(distance, 0)
      fwd(".bucket.zeros", "fill", P, 0, 0, 8 * p);
      fwd(".bucket.min", "minimum", P, 0, 16 * p, 8 * p);
      fwd(".bucket.neg", "neg", P, 0, 8 * p, 8 * p);
    }
    // Exact buckets for small distances, logarithmic ones up to max_distance.
    fwd(".bucket.is_small", "lt", P, 0, 8 * p, p);
    fwd(".bucket.float", "cast", P, 0, 8 * p, 4 * p);
    fwd(".bucket.div", "div", P, 0, 4 * p, 4 * p);
    fwd(".bucket.log", "log", P, 0, 4 * p, 4 * p);
    fwd(".bucket.div_1", "div", P, 0, 4 * p, 4 * p);
    fwd(".bucket.mul_1", "mul", P, 0, 4 * p, 4 * p);
    fwd(".bucket.to_long_1", "cast", P, 0, 4 * p, 8 * p);
    fwd(".bucket.add_1", "add", P, 0, 8 * p, 8 * p);
    fwd(".bucket.full", "fill", P, 0, 0, 8 * p);
    fwd(".bucket.min_1", "minimum", P, 0, 16 * p, 8 * p);
    fwd(".bucket.where", "where", P, 0, 17 * p, 8 * p);
    fwd(".bucket.add_2", "add", P, 0, 16 * p, 8 * p);
    // The learned bias of each pair's bucket, per head: an embedding lookup of H-wide rows.
    fwd(".embedding", "embedding", P * H, H, 8 * p + double(l.buckets * H) * fb, p * double(H) * fb);
  } else {
    fwd(".zeros", "fill", P * H, 0, 0, p * double(H) * fb);  // T5's cross-attention: no learned bias
  }
  // The mask, in the model's format: a padding mask over the keys [batch, 1, 1, kv], or a
  // decoder's causal mask [batch, 1, q, kv] built from a repeated arange.
  if (l.causal) {
    fwd(".mask.repeat", "copy", B * P, 0, 8.0 * double(kv), 8 * bp);
    fwd(".mask.le", "le", B * P, 0, 8 * bp, bp);
    fwd(".mask.to_long", "cast", B * P, 0, bp, 8 * bp);
    fwd(".mask.mul", "mul", B * P, 0, 8 * bp + 8.0 * double(B * kv), 8 * bp);
    fwd(".mask.to", "cast", B * P, 0, 8 * bp, fb * bp);
    fwd(".mask.rsub", "rsub", B * P, 0, fb * bp, fb * bp);
    fwd(".mask.mul_min", "mul", B * P, 0, fb * bp, fb * bp);
  } else {
    fwd(".mask.to", "cast", B * kv, 0, 8.0 * double(B * kv), fb * double(B * kv));
    fwd(".mask.rsub", "rsub", B * kv, 0, fb * double(B * kv), fb * double(B * kv));
    fwd(".mask.mul_min", "mul", B * kv, 0, fb * double(B * kv), fb * double(B * kv));
  }
  // position_bias + mask, broadcast to [batch, heads, q, kv].
  Kernel add = bytes_kernel(l.name + ".add_mask", "add", FormatId::fp32, B * H * P, 0,
                            (p * double(H) + (l.causal ? bp : double(B * kv))) * fb, bp * double(H) * fb, 1, l.count);
  add.memory.strided_dims = 2;
  c.emit_forward(li, add);

  if (l.buckets == 0) return;  // no parameters: no gradient
  // The bias's gradient: summed over the batch (the mask's broadcast), then scattered into the
  // bucket table (embedding_dense_backward) through the saved bucket indices.
  if (B > 1) bwd(".add_mask.backward", "reduce", H * P, B, bp * double(H) * fb, p * double(H) * fb);
  bwd(".embedding.grad_zero", "fill", l.buckets * H, 0, 0, double(l.buckets * H) * fb);
  bwd(".embedding.backward", "embedding_backward", P * H, H, p * double(H) * fb + 8 * p, double(l.buckets * H) * fb);
  c.save_extra(li, 8 * p);  // the bucket indices
}

}  // namespace tcsim::workload::lowering_detail
