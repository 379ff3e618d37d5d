#pragma once
// Linear and Flatten (the layers between feature maps and classifiers).

#include <api/nn/ModuleHolder.h>
#include <api/nn/options.h>

namespace ember::nn {

struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features) : in_features_(in_features), out_features_(out_features) {}
  EMBER_ARG(int64_t, in_features);
  EMBER_ARG(int64_t, out_features);
  EMBER_ARG(bool, bias) = true;
};

// y = x W^T + b; W [out, in] and b [out] start as Python's do:
// U(-1/sqrt(in), 1/sqrt(in)).
class LinearImpl : public Cloneable<LinearImpl> {
 public:
  LinearImpl(int64_t in_features, int64_t out_features) : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);
  // A Linear printed under another type name (attention's out_proj is
  // Python's NonDynamicallyQuantizableLinear, a Linear by another name).
  LinearImpl(const LinearOptions& options, std::string type_name);
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;

  LinearOptions options;
  Tensor weight;
  Tensor bias;
};
EMBER_MODULE(Linear);

struct BilinearOptions {
  BilinearOptions(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : in1_features_(in1_features), in2_features_(in2_features), out_features_(out_features) {}
  EMBER_ARG(int64_t, in1_features);
  EMBER_ARG(int64_t, in2_features);
  EMBER_ARG(int64_t, out_features);
  EMBER_ARG(bool, bias) = true;
};

// y = x1^T A x2 + b, A [out, in1, in2]; U(-1/sqrt(in1), 1/sqrt(in1)) at first.
class BilinearImpl : public Cloneable<BilinearImpl> {
 public:
  BilinearImpl(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : BilinearImpl(BilinearOptions(in1_features, in2_features, out_features)) {}
  explicit BilinearImpl(const BilinearOptions& options);
  void reset() override;
  Tensor forward(const Tensor& input1, const Tensor& input2);
  std::string extra_repr() const override;

  BilinearOptions options;
  Tensor weight;
  Tensor bias;
};
EMBER_MODULE(Bilinear);

struct FlattenOptions {
  EMBER_ARG(int64_t, start_dim) = 1;
  EMBER_ARG(int64_t, end_dim) = -1;
};

class FlattenImpl : public Cloneable<FlattenImpl> {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {}) : Cloneable("Flatten"), options(options) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;

  FlattenOptions options;
};
EMBER_MODULE(Flatten);

}  // namespace ember::nn
