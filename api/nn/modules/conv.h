#pragma once
// Conv2d and the 2-d pooling layers.

#include <api/nn/ModuleHolder.h>
#include <api/nn/options.h>

namespace ember::nn {

struct Conv2dOptions {
  Conv2dOptions(int64_t in_channels, int64_t out_channels, IntPair kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(IntPair, kernel_size);
  EMBER_ARG(IntPair, stride) = 1;
  EMBER_ARG(IntPair, padding) = 0;
  EMBER_ARG(IntPair, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
};

class Conv2dImpl : public Cloneable<Conv2dImpl> {
 public:
  Conv2dImpl(int64_t in_channels, int64_t out_channels, IntPair kernel_size)
      : Conv2dImpl(Conv2dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv2dImpl(const Conv2dOptions& options);
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;

  Conv2dOptions options;
  Tensor weight;  // [out, in / groups, kh, kw]
  Tensor bias;
};
EMBER_MODULE(Conv2d);

struct ConvTranspose2dOptions {
  ConvTranspose2dOptions(int64_t in_channels, int64_t out_channels, IntPair kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(IntPair, kernel_size);
  EMBER_ARG(IntPair, stride) = 1;
  EMBER_ARG(IntPair, padding) = 0;
  EMBER_ARG(IntPair, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(IntPair, dilation) = 1;
};

// conv2d's adjoint (upsampling by stride); weight [in, out / groups, kh, kw].
class ConvTranspose2dImpl : public Cloneable<ConvTranspose2dImpl> {
 public:
  ConvTranspose2dImpl(int64_t in_channels, int64_t out_channels, IntPair kernel_size)
      : ConvTranspose2dImpl(ConvTranspose2dOptions(in_channels, out_channels, kernel_size)) {}
  explicit ConvTranspose2dImpl(const ConvTranspose2dOptions& options);
  void reset() override;
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;

  ConvTranspose2dOptions options;
  Tensor weight;
  Tensor bias;
};
EMBER_MODULE(ConvTranspose2d);

struct Conv1dOptions {
  Conv1dOptions(int64_t in_channels, int64_t out_channels, int64_t kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(int64_t, kernel_size);
  EMBER_ARG(int64_t, stride) = 1;
  EMBER_ARG(int64_t, padding) = 0;
  EMBER_ARG(int64_t, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
};

// Over [N, C, L] (or [C, L]) sequences.
class Conv1dImpl : public Cloneable<Conv1dImpl> {
 public:
  Conv1dImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size)
      : Conv1dImpl(Conv1dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv1dImpl(const Conv1dOptions& options);
  void reset() override;
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;

  Conv1dOptions options;
  Tensor weight;  // [out, in / groups, k]
  Tensor bias;
};
EMBER_MODULE(Conv1d);

struct MaxPool2dOptions {
  MaxPool2dOptions(IntPair kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(IntPair, kernel_size);
  EMBER_ARG(IntPair, stride);  // the kernel size unless given
  EMBER_ARG(IntPair, padding) = 0;
  EMBER_ARG(IntPair, dilation) = 1;
  EMBER_ARG(bool, ceil_mode) = false;
};

class MaxPool2dImpl : public Cloneable<MaxPool2dImpl> {
 public:
  MaxPool2dImpl(IntPair kernel_size) : MaxPool2dImpl(MaxPool2dOptions(kernel_size)) {}
  explicit MaxPool2dImpl(const MaxPool2dOptions& options) : Cloneable("MaxPool2d"), options(options) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;

  MaxPool2dOptions options;
};
EMBER_MODULE(MaxPool2d);

// Averages over an even split of the last two dims into output_size cells.
class AdaptiveAvgPool2dImpl : public Cloneable<AdaptiveAvgPool2dImpl> {
 public:
  AdaptiveAvgPool2dImpl(IntPair output_size) : Cloneable("AdaptiveAvgPool2d"), output_size(output_size) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override { return "output_size=" + py_repr(output_size); }
  IntPair output_size;
};
EMBER_MODULE(AdaptiveAvgPool2d);

}  // namespace ember::nn
