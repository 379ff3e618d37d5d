#pragma once
// The public C++ operator API. Until the code generator (tools/codegen)
// produces this from native_functions.yaml, the functions are written by hand
// and call the native kernels directly.

#include <aten/core/Generator.h>
#include <aten/core/Tensor.h>

#include <optional>

namespace ember {

// Factories.
Tensor empty(IntArrayRef sizes, TensorOptions options = {});
Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, TensorOptions options = {});
Tensor zeros(IntArrayRef sizes, TensorOptions options = {});
Tensor ones(IntArrayRef sizes, TensorOptions options = {});
// Without an explicit dtype, the dtype follows the value: bool, int64, the
// default float dtype or the default complex dtype.
Tensor full(IntArrayRef sizes, const Scalar& fill_value, TensorOptions options = {});
// Without an explicit dtype: the default float dtype (complex for a complex value).
Tensor scalar_tensor(const Scalar& value, TensorOptions options = {});
Tensor empty_like(const Tensor& self, TensorOptions options = {});
Tensor zeros_like(const Tensor& self, TensorOptions options = {});
Tensor ones_like(const Tensor& self, TensorOptions options = {});
Tensor full_like(const Tensor& self, const Scalar& fill_value, TensorOptions options = {});
Tensor arange(const Scalar& end, TensorOptions options = {});
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1, TensorOptions options = {});
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions options = {});
Tensor eye(int64_t n, std::optional<int64_t> m = {}, TensorOptions options = {});

// Random factories; `generator` defaults to the global CPU generator.
Tensor rand(IntArrayRef sizes, std::optional<Generator> generator = {}, TensorOptions options = {});
Tensor randn(IntArrayRef sizes, std::optional<Generator> generator = {}, TensorOptions options = {});
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, std::optional<Generator> generator = {},
               TensorOptions options = {});
Tensor rand_like(const Tensor& self, TensorOptions options = {});
Tensor randn_like(const Tensor& self, TensorOptions options = {});
Tensor& uniform_(Tensor& self, double from = 0, double to = 1, std::optional<Generator> generator = {});
Tensor& normal_(Tensor& self, double mean = 0, double std = 1, std::optional<Generator> generator = {});
Tensor& random_(Tensor& self, int64_t from, int64_t to, std::optional<Generator> generator = {});

// Views: results share storage and version counter with `self`.
Tensor view(const Tensor& self, IntArrayRef sizes);
Tensor reshape(const Tensor& self, IntArrayRef sizes);
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1);
Tensor t(const Tensor& self);
Tensor permute(const Tensor& self, IntArrayRef dims);
Tensor expand(const Tensor& self, IntArrayRef sizes);
Tensor squeeze(const Tensor& self);
Tensor squeeze(const Tensor& self, int64_t dim);
Tensor unsqueeze(const Tensor& self, int64_t dim);
Tensor flatten(const Tensor& self, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor as_strided(const Tensor& self, IntArrayRef sizes, IntArrayRef strides,
                  std::optional<int64_t> storage_offset = {});
Tensor select(const Tensor& self, int64_t dim, int64_t index);
Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
             int64_t step = 1);
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length);
Tensor unfold(const Tensor& self, int64_t dim, int64_t size, int64_t step);
Tensor alias(const Tensor& self);
Tensor detach(const Tensor& self);
Tensor conj(const Tensor& self);

// Copies and conversions.
Tensor& copy_(Tensor& self, const Tensor& src);
Tensor contiguous(const Tensor& self);
Tensor clone(const Tensor& self);
Tensor resolve_conj(const Tensor& self);
Tensor resolve_neg(const Tensor& self);
Tensor to(const Tensor& self, std::optional<Device> device, std::optional<ScalarType> dtype, bool copy = false);
Tensor& fill_(Tensor& self, const Scalar& value);
Tensor& zero_(Tensor& self);
// Makes `self` contiguous with `sizes`, growing its storage if needed; keeps
// existing bytes (so values are unspecified where the layout changed).
Tensor& resize_(Tensor& self, IntArrayRef sizes);
Scalar item(const Tensor& self);
// True when both have the same sizes and elements (dtypes may differ).
bool equal(const Tensor& a, const Tensor& b);

}  // namespace ember
