#pragma once
// MultiheadAttention and TransformerEncoderLayer, with Python's parameter
// layout (in_proj_weight / in_proj_bias / out_proj), initialization order
// and mask conventions (bool masks: true = not attended; float masks are
// added to the scores).

#include <api/nn/ModuleHolder.h>
#include <api/nn/modules/activation.h>
#include <api/nn/modules/linear.h>
#include <api/nn/modules/normalization.h>
#include <api/nn/options.h>

#include <tuple>

namespace ember::nn {

struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  EMBER_ARG(int64_t, embed_dim);
  EMBER_ARG(int64_t, num_heads);
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bias) = true;
  // Learned key and value rows appended to every sequence.
  EMBER_ARG(bool, add_bias_kv) = false;
  // A zero key and value appended after the projection (and after bias_kv).
  EMBER_ARG(bool, add_zero_attn) = false;
  // Feature sizes of key and value; when either differs from embed_dim the
  // projections are separate weights (q/k/v_proj_weight), as in Python.
  EMBER_ARG(int64_t, kdim);
  EMBER_ARG(int64_t, vdim);
  EMBER_ARG(bool, batch_first) = false;
};

class MultiheadAttentionImpl : public Cloneable<MultiheadAttentionImpl> {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);
  void reset() override;
  // The attention output, and (need_weights) the attention weights averaged
  // over heads (average_attn_weights) or per head; undefined otherwise.
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {}, bool need_weights = true,
                                     const Tensor& attn_mask = {}, bool average_attn_weights = true);

  // Whether query, key and value share one packed in_proj_weight.
  bool qkv_same_embed_dim() const;

  MultiheadAttentionOptions options;
  Tensor in_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight, in_proj_bias;
  Linear out_proj = nullptr;
  Tensor bias_k, bias_v;
};
EMBER_MODULE(MultiheadAttention);

struct TransformerEncoderLayerOptions {
  TransformerEncoderLayerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  EMBER_ARG(int64_t, d_model);
  EMBER_ARG(int64_t, nhead);
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(std::string, activation) = "relu";  // or "gelu"
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(bool, norm_first) = false;
  EMBER_ARG(bool, bias) = true;
};

// Self-attention then a feed-forward block, each with a residual and a
// LayerNorm (after each block, or before with norm_first).
class TransformerEncoderLayerImpl : public Cloneable<TransformerEncoderLayerImpl> {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  explicit TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options);
  void reset() override;
  Tensor forward(const Tensor& src) override { return forward(src, Tensor(), Tensor()); }
  Tensor forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask);

  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn = nullptr;
  Linear linear1 = nullptr, linear2 = nullptr;
  Dropout dropout = nullptr, dropout1 = nullptr, dropout2 = nullptr;
  LayerNorm norm1 = nullptr, norm2 = nullptr;
};
EMBER_MODULE(TransformerEncoderLayer);

}  // namespace ember::nn
