#include <api/nn/modules/transformer.h>

#include <api/nn/init.h>
#include <aten/Functions.h>
#include <c10/util/Exception.h>

#include <cmath>

namespace ember::nn {

namespace {

// A bool mask as the additive float mask it stands for (-inf where true).
Tensor additive_mask(const Tensor& mask, ScalarType dtype, const char* name) {
  if (!mask.defined()) return mask;
  EMBER_CHECK(mask.scalar_type() == ScalarType::Bool || mask.is_floating_point(),
              "only bool and floating types of {} are supported", name);
  if (mask.is_floating_point()) return mask;
  return ember::zeros(mask.sizes(), dtype, mask.device()).masked_fill(mask, -INFINITY);
}

std::optional<Tensor> maybe(const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; }
Tensor part(const Tensor& t, int64_t i, int64_t e) { return t.defined() ? t.narrow(0, i * e, e) : Tensor(); }

}  // namespace

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options)
    : Cloneable("MultiheadAttention"), options(options) {
  EMBER_CHECK_VALUE(options.embed_dim() > 0 && options.num_heads() > 0,
                    "embed_dim and num_heads must be greater than 0, got embed_dim={} and num_heads={} instead",
                    options.embed_dim(), options.num_heads());
  EMBER_CHECK_VALUE(options.embed_dim() % options.num_heads() == 0, "embed_dim must be divisible by num_heads");
  reset();
}

bool MultiheadAttentionImpl::qkv_same_embed_dim() const {
  return options.kdim() == options.embed_dim() && options.vdim() == options.embed_dim();
}

// Python's order of draws: out_proj's own initialization, then the input
// projections, then bias_k and bias_v.
void MultiheadAttentionImpl::reset() {
  const int64_t e = options.embed_dim();
  const bool packed = qkv_same_embed_dim();
  const auto weight = [&](const char* name, bool used, IntArrayRef shape) {
    return register_parameter(name, used ? ember::empty(shape) : Tensor());
  };
  q_proj_weight = weight("q_proj_weight", !packed, {e, e});
  k_proj_weight = weight("k_proj_weight", !packed, {e, options.kdim()});
  v_proj_weight = weight("v_proj_weight", !packed, {e, options.vdim()});
  in_proj_weight = weight("in_proj_weight", packed, {3 * e, e});
  in_proj_bias = weight("in_proj_bias", options.bias(), {3 * e});
  out_proj = register_module(
      "out_proj", Linear(std::make_shared<LinearImpl>(LinearOptions(e, e).bias(options.bias()),
                                                       "NonDynamicallyQuantizableLinear")));
  bias_k = weight("bias_k", options.add_bias_kv(), {1, 1, e});
  bias_v = weight("bias_v", options.add_bias_kv(), {1, 1, e});
  for (Tensor* w : {&in_proj_weight, &q_proj_weight, &k_proj_weight, &v_proj_weight})
    if (w->defined()) init::xavier_uniform_(*w);
  if (in_proj_bias.defined()) {
    init::zeros_(in_proj_bias);
    init::zeros_(out_proj->bias);
  }
  if (bias_k.defined()) {
    init::xavier_normal_(bias_k);
    init::xavier_normal_(bias_v);
  }
}

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(const Tensor& query_in, const Tensor& key_in,
                                                           const Tensor& value_in, const Tensor& key_padding_mask_in,
                                                           bool need_weights, const Tensor& attn_mask_in,
                                                           bool average_attn_weights) {
  const bool batched = query_in.dim() == 3;
  EMBER_CHECK(batched || query_in.dim() == 2, "query should be unbatched 2D or batched 3D tensor but received {}-D",
              query_in.dim());
  EMBER_CHECK(key_in.dim() == query_in.dim() && value_in.dim() == query_in.dim(),
              "MultiheadAttention: key and value must have query's number of dims ({})", query_in.dim());
  const bool self_attention = query_in.is_same(key_in) && key_in.is_same(value_in);
  // Sequence first, with a batch dim: [L, N, E].
  const auto layout = [&](const Tensor& t) {
    if (!batched) return t.unsqueeze(1);
    return options.batch_first() ? t.transpose(0, 1) : t;
  };
  const Tensor query = layout(query_in);
  const Tensor key = self_attention ? query : layout(key_in);
  const Tensor value = self_attention ? query : layout(value_in);
  Tensor key_padding_mask = additive_mask(key_padding_mask_in, query.scalar_type(), "key_padding_mask");
  if (key_padding_mask.defined() && !batched) key_padding_mask = key_padding_mask.unsqueeze(0);
  Tensor attn_mask = additive_mask(attn_mask_in, query.scalar_type(), "attn_mask");

  const int64_t length = query.size(0), batch = query.size(1), e = query.size(2), heads = options.num_heads();
  const int64_t head_dim = e / heads;
  int64_t source = key.size(0);
  EMBER_CHECK(e == options.embed_dim(), "was expecting embedding dimension of {}, but got {}", options.embed_dim(), e);
  const bool packed = qkv_same_embed_dim();
  if (packed) {
    EMBER_CHECK(key.sizes() == value.sizes(), "key shape {} does not match value shape {}",
                c10::str_sizes(key.sizes()), c10::str_sizes(value.sizes()));
  } else {
    EMBER_CHECK(key.size(0) == value.size(0) && key.size(1) == value.size(1),
                "key's sequence and batch dims ({}, {}) do not match value's ({}, {})", key.size(0), key.size(1),
                value.size(0), value.size(1));
  }

  Tensor q, k, v;
  if (packed && self_attention) {  // one product for all three, as Python's packed projection
    const auto qkv = ember::linear(query, in_proj_weight, maybe(in_proj_bias)).chunk(3, -1);
    q = qkv[0].contiguous(), k = qkv[1].contiguous(), v = qkv[2].contiguous();
  } else {
    const auto w = [&](const Tensor& separate, int64_t i) { return packed ? part(in_proj_weight, i, e) : separate; };
    q = ember::linear(query, w(q_proj_weight, 0), maybe(part(in_proj_bias, 0, e)));
    k = ember::linear(key, w(k_proj_weight, 1), maybe(part(in_proj_bias, 1, e)));
    v = ember::linear(value, w(v_proj_weight, 2), maybe(part(in_proj_bias, 2, e)));
  }

  if (attn_mask.defined()) {
    if (attn_mask.dim() == 2) {
      EMBER_CHECK(attn_mask.size(0) == length && attn_mask.size(1) == source,
                  "The shape of the 2D attn_mask is {}, but should be ({}, {}).", c10::str_sizes(attn_mask.sizes()),
                  length, source);
      attn_mask = attn_mask.unsqueeze(0);
    } else {
      EMBER_CHECK(attn_mask.dim() == 3 && attn_mask.size(0) == batch * heads && attn_mask.size(1) == length &&
                      attn_mask.size(2) == source,
                  "The shape of the 3D attn_mask is {}, but should be ({}, {}, {}).",
                  c10::str_sizes(attn_mask.sizes()), batch * heads, length, source);
    }
  }
  if (key_padding_mask.defined()) {
    EMBER_CHECK(key_padding_mask.dim() == 2 && key_padding_mask.size(0) == batch &&
                    key_padding_mask.size(1) == source,
                "key_padding_mask should be of shape ({}, {}), got {}", batch, source,
                c10::str_sizes(key_padding_mask.sizes()));
  }
  // Extra key positions every query may attend to: masks gain a column of 0.
  const auto attend_extra_key = [&] {
    if (attn_mask.defined()) attn_mask = ember::constant_pad_nd(attn_mask, {0, 1});
    if (key_padding_mask.defined()) key_padding_mask = ember::constant_pad_nd(key_padding_mask, {0, 1});
  };
  if (bias_k.defined()) {
    k = ember::cat({k, bias_k.expand({1, batch, e})});
    v = ember::cat({v, bias_v.expand({1, batch, e})});
    attend_extra_key();
  }
  q = q.reshape({length, batch * heads, head_dim}).transpose(0, 1);
  k = k.reshape({k.size(0), batch * heads, head_dim}).transpose(0, 1);
  v = v.reshape({v.size(0), batch * heads, head_dim}).transpose(0, 1);
  if (options.add_zero_attn()) {
    const Tensor zero = ember::zeros({batch * heads, 1, head_dim}, k.scalar_type(), k.device());
    k = ember::cat({k, zero}, 1);
    v = ember::cat({v, zero}, 1);
    attend_extra_key();
  }
  source = k.size(1);
  if (key_padding_mask.defined()) {
    const Tensor per_head =
        key_padding_mask.view({batch, 1, 1, source}).expand({batch, heads, 1, source}).reshape({batch * heads, 1, source});
    attn_mask = attn_mask.defined() ? attn_mask + per_head : per_head;
  }

  Tensor weights = ember::bmm(q * std::sqrt(1.0 / double(head_dim)), k.transpose(-2, -1));
  if (attn_mask.defined()) weights = attn_mask + weights;
  weights = ember::softmax(weights, -1);
  if (is_training() && options.dropout() > 0) weights = ember::dropout(weights, options.dropout(), true);
  Tensor out = ember::bmm(weights, v).transpose(0, 1).reshape({length * batch, e});
  out = out_proj(out).view({length, batch, e});
  out = !batched ? out.squeeze(1) : (options.batch_first() ? out.transpose(0, 1) : out);
  if (!need_weights) return {out, Tensor()};
  weights = weights.view({batch, heads, length, source});
  if (average_attn_weights) weights = weights.mean(IntArrayRef({1}));
  return {out, batched ? weights : weights.squeeze(0)};
}

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options)
    : Cloneable("TransformerEncoderLayer"), options(options) {
  EMBER_CHECK(options.activation() == "relu" || options.activation() == "gelu",
              "activation should be relu/gelu, not {}", options.activation());
  reset();
}

// Python's order (the seed's draws land on the same parameters).
void TransformerEncoderLayerImpl::reset() {
  const auto& o = options;
  self_attn = register_module("self_attn", MultiheadAttention(MultiheadAttentionOptions(o.d_model(), o.nhead())
                                                                  .dropout(o.dropout())
                                                                  .bias(o.bias())
                                                                  .batch_first(o.batch_first())));
  linear1 = register_module("linear1", Linear(LinearOptions(o.d_model(), o.dim_feedforward()).bias(o.bias())));
  dropout = register_module("dropout", Dropout(o.dropout()));
  linear2 = register_module("linear2", Linear(LinearOptions(o.dim_feedforward(), o.d_model()).bias(o.bias())));
  const auto norm = [&] { return LayerNorm(LayerNormOptions({o.d_model()}).eps(o.layer_norm_eps()).bias(o.bias())); };
  norm1 = register_module("norm1", norm());
  norm2 = register_module("norm2", norm());
  dropout1 = register_module("dropout1", Dropout(o.dropout()));
  dropout2 = register_module("dropout2", Dropout(o.dropout()));
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask) {
  const auto attend = [&](const Tensor& x) {
    return dropout1(std::get<0>(self_attn->forward(x, x, x, src_key_padding_mask, false, src_mask)));
  };
  const auto feed_forward = [&](const Tensor& x) {
    const Tensor hidden = linear1(x);
    return dropout2(linear2(dropout(options.activation() == "gelu" ? ember::gelu(hidden) : ember::relu(hidden))));
  };
  if (options.norm_first()) {
    const Tensor x = src + attend(norm1(src));
    return x + feed_forward(norm2(x));
  }
  const Tensor x = norm1(src + attend(src));
  return norm2(x + feed_forward(x));
}

}  // namespace ember::nn
