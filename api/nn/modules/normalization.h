#pragma once
// BatchNorm2d, LayerNorm and Embedding: modules with buffers or lookup
// tables beside their weights.

#include <api/nn/ModuleHolder.h>
#include <api/nn/options.h>

#include <optional>
#include <vector>

namespace ember::nn {

struct BatchNormOptions {
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(bool, affine) = true;
  EMBER_ARG(bool, track_running_stats) = true;
};

// Normalizes each channel by the batch's statistics while training
// (updating running_mean/var), by the running ones in eval: BatchNorm1d
// over [N, C] or [N, C, L], BatchNorm2d over [N, C, H, W].
class BatchNormState {
 public:
  BatchNormOptions options;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;

 protected:
  explicit BatchNormState(const BatchNormOptions& options) : options(options) {}
  void register_state(Module& self);
  Tensor normalize(const Module& self, const Tensor& input);
  std::string describe() const;
};

class BatchNorm1dImpl : public Cloneable<BatchNorm1dImpl>, public BatchNormState {
 public:
  BatchNorm1dImpl(int64_t num_features) : BatchNorm1dImpl(BatchNormOptions(num_features)) {}
  explicit BatchNorm1dImpl(const BatchNormOptions& options);
  void reset() override { register_state(*this); }
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override { return describe(); }
};
EMBER_MODULE(BatchNorm1d);

class BatchNorm2dImpl : public Cloneable<BatchNorm2dImpl>, public BatchNormState {
 public:
  BatchNorm2dImpl(int64_t num_features) : BatchNorm2dImpl(BatchNormOptions(num_features)) {}
  explicit BatchNorm2dImpl(const BatchNormOptions& options);
  void reset() override { register_state(*this); }
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override { return describe(); }
};
EMBER_MODULE(BatchNorm2d);

struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels) : num_groups_(num_groups), num_channels_(num_channels) {}
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(int64_t, num_channels);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, affine) = true;
  EMBER_ARG(bool, bias) = true;
};

class GroupNormImpl : public Cloneable<GroupNormImpl> {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels) : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options);
  void reset() override;
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;

  GroupNormOptions options;
  Tensor weight, bias;
};
EMBER_MODULE(GroupNorm);

struct LayerNormOptions {
  LayerNormOptions(std::vector<int64_t> normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, elementwise_affine) = true;
  EMBER_ARG(bool, bias) = true;
};

class LayerNormImpl : public Cloneable<LayerNormImpl> {
 public:
  LayerNormImpl(std::vector<int64_t> normalized_shape) : LayerNormImpl(LayerNormOptions(std::move(normalized_shape))) {}
  explicit LayerNormImpl(const LayerNormOptions& options);
  void reset() override;
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;

  LayerNormOptions options;
  Tensor weight, bias;
};
EMBER_MODULE(LayerNorm);

struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EMBER_ARG(int64_t, num_embeddings);
  EMBER_ARG(int64_t, embedding_dim);
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

// Rows of a [num_embeddings, embedding_dim] table, N(0, 1) at first (the
// padding row zero and without gradient).
class EmbeddingImpl : public Cloneable<EmbeddingImpl> {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(const EmbeddingOptions& options);
  void reset() override;
  Tensor forward(const Tensor& indices) override;
  std::string extra_repr() const override;

  EmbeddingOptions options;
  Tensor weight;
};
EMBER_MODULE(Embedding);

}  // namespace ember::nn
