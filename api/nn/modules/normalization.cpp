#include <api/nn/modules/normalization.h>

#include <api/nn/init.h>
#include <aten/Functions.h>
#include <c10/core/GradMode.h>
#include <c10/util/Exception.h>

namespace ember::nn {

namespace {
std::optional<Tensor> maybe(const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; }
}  // namespace

void BatchNormState::register_state(Module& self) {
  const int64_t c = options.num_features();
  const bool track = options.track_running_stats();
  weight = self.register_parameter("weight", options.affine() ? ember::ones({c}) : Tensor());
  bias = self.register_parameter("bias", options.affine() ? ember::zeros({c}) : Tensor());
  running_mean = self.register_buffer("running_mean", track ? ember::zeros({c}) : Tensor());
  running_var = self.register_buffer("running_var", track ? ember::ones({c}) : Tensor());
  num_batches_tracked =
      self.register_buffer("num_batches_tracked", track ? ember::zeros({}, ScalarType::Long) : Tensor());
}

Tensor BatchNormState::normalize(const Module& self, const Tensor& input) {
  if (self.is_training() && options.track_running_stats()) {
    c10::NoGradGuard no_grad;
    num_batches_tracked.add_(1);
  }
  const bool use_stats = !self.is_training() || options.track_running_stats();
  const bool batch_stats = self.is_training() || !running_mean.defined();
  return ember::batch_norm(input, maybe(weight), maybe(bias), use_stats ? maybe(running_mean) : std::nullopt,
                           use_stats ? maybe(running_var) : std::nullopt, batch_stats, options.momentum(),
                           options.eps(), false);
}

std::string BatchNormState::describe() const {
  return std::to_string(options.num_features()) + ", eps=" + py_repr(options.eps()) +
         ", momentum=" + py_repr(options.momentum()) + ", affine=" + py_repr(options.affine()) +
         ", bias=" + py_repr(options.affine()) + ", track_running_stats=" + py_repr(options.track_running_stats());
}

BatchNorm1dImpl::BatchNorm1dImpl(const BatchNormOptions& options)
    : Cloneable("BatchNorm1d"), BatchNormState(options) {
  reset();
}

Tensor BatchNorm1dImpl::forward(const Tensor& input) {
  EMBER_CHECK_VALUE(input.dim() == 2 || input.dim() == 3, "expected 2D or 3D input (got {}D input)", input.dim());
  return normalize(*this, input);
}

BatchNorm2dImpl::BatchNorm2dImpl(const BatchNormOptions& options)
    : Cloneable("BatchNorm2d"), BatchNormState(options) {
  reset();
}

Tensor BatchNorm2dImpl::forward(const Tensor& input) {
  EMBER_CHECK_VALUE(input.dim() == 4, "expected 4D input (got {}D input)", input.dim());
  return normalize(*this, input);
}

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options) : Cloneable("GroupNorm"), options(options) {
  EMBER_CHECK_VALUE(options.num_groups() > 0 && options.num_channels() % options.num_groups() == 0,
                    "num_channels must be divisible by num_groups");
  reset();
}

void GroupNormImpl::reset() {
  const int64_t c = options.num_channels();
  weight = register_parameter("weight", options.affine() ? ember::ones({c}) : Tensor());
  bias = register_parameter("bias", options.affine() && options.bias() ? ember::zeros({c}) : Tensor());
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  return ember::group_norm(input, options.num_groups(), maybe(weight), maybe(bias), options.eps());
}

std::string GroupNormImpl::extra_repr() const {
  return std::to_string(options.num_groups()) + ", " + std::to_string(options.num_channels()) +
         ", eps=" + py_repr(options.eps()) + ", affine=" + py_repr(options.affine()) + ", bias=" + py_repr(bias.defined());
}

LayerNormImpl::LayerNormImpl(const LayerNormOptions& options) : Cloneable("LayerNorm"), options(options) { reset(); }

void LayerNormImpl::reset() {
  const auto& shape = options.normalized_shape();
  const bool affine = options.elementwise_affine();
  weight = register_parameter("weight", affine ? ember::ones(shape) : Tensor());
  bias = register_parameter("bias", affine && options.bias() ? ember::zeros(shape) : Tensor());
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return ember::layer_norm(input, options.normalized_shape(), maybe(weight), maybe(bias), options.eps());
}

std::string LayerNormImpl::extra_repr() const {
  std::string shape = "(";
  for (size_t i = 0; i < options.normalized_shape().size(); ++i) {
    shape += (i ? ", " : "") + std::to_string(options.normalized_shape()[i]);
  }
  shape += options.normalized_shape().size() == 1 ? ",)" : ")";
  return shape + ", eps=" + py_repr(options.eps()) + ", elementwise_affine=" + py_repr(options.elementwise_affine()) +
         ", bias=" + py_repr(bias.defined());
}

EmbeddingImpl::EmbeddingImpl(const EmbeddingOptions& options) : Cloneable("Embedding"), options(options) {
  if (auto p = options.padding_idx()) {
    EMBER_CHECK_VALUE(*p < options.num_embeddings() && *p >= -options.num_embeddings(),
                      "Padding_idx must be within num_embeddings");
    if (*p < 0) this->options.padding_idx(*p + options.num_embeddings());
  }
  reset();
}

void EmbeddingImpl::reset() {
  weight = register_parameter("weight", ember::empty({options.num_embeddings(), options.embedding_dim()}));
  init::normal_(weight);
  if (auto p = options.padding_idx()) {
    c10::NoGradGuard no_grad;
    weight[*p].fill_(0);
  }
}

Tensor EmbeddingImpl::forward(const Tensor& indices) {
  return ember::embedding(weight, indices, options.padding_idx().value_or(-1));
}

std::string EmbeddingImpl::extra_repr() const {
  std::string s = std::to_string(options.num_embeddings()) + ", " + std::to_string(options.embedding_dim());
  if (auto p = options.padding_idx()) s += ", padding_idx=" + std::to_string(*p);
  return s;
}

}  // namespace ember::nn
