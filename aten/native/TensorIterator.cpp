#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/core/ExpandUtils.h>
#include <aten/native/TensorIterator.h>

#include <c10/core/LocalDispatchKeySet.h>

#include <algorithm>
#include <numeric>

namespace ember {

using c10::str_sizes;

// ---- type promotion ---------------------------------------------------------

namespace {

ScalarType promote_skip_undefined(ScalarType a, ScalarType b) {
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  return c10::promoteTypes(a, b);
}

// A lower-priority group can raise the category but never the width within it.
ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (higher != ScalarType::Undefined && c10::isComplexType(higher)) return higher;
  if (lower != ScalarType::Undefined && c10::isComplexType(lower)) {
    if (higher != ScalarType::Undefined && c10::isFloatingType(higher)) return c10::toComplexType(higher);
    return lower;
  }
  if (higher != ScalarType::Undefined && c10::isFloatingType(higher)) return higher;
  if (higher == ScalarType::Bool || (lower != ScalarType::Undefined && c10::isFloatingType(lower))) {
    return promote_skip_undefined(higher, lower);
  }
  return higher != ScalarType::Undefined ? higher : lower;
}

}  // namespace

namespace {
// result_type's three priority groups, filled one tensor at a time (so a
// caller with its tensors elsewhere needs no list of them).
struct ResultTypeGroups {
  ScalarType dim = ScalarType::Undefined, zero_dim = ScalarType::Undefined, wrapped = ScalarType::Undefined;

  void add(const Tensor& t) {
    if (!t.defined()) return;
    ScalarType current = t.dtype();
    if (t.unsafeGetTensorImpl()->is_wrapped_number()) {
      // A Python float counts as the default dtype, a complex as the default complex.
      if (c10::isComplexType(current)) {
        current = c10::get_default_complex_dtype();
      } else if (c10::isFloatingType(current)) {
        current = c10::get_default_dtype();
      }
      wrapped = promote_skip_undefined(wrapped, current);
    } else if (t.dim() == 0) {
      zero_dim = promote_skip_undefined(zero_dim, current);
    } else {
      this->dim = promote_skip_undefined(this->dim, current);
    }
  }
  ScalarType result() const { return combine_categories(dim, combine_categories(zero_dim, wrapped)); }
};
}  // namespace

ScalarType result_type(c10::ArrayRef<Tensor> tensors) {
  ResultTypeGroups groups;
  for (const Tensor& t : tensors) groups.add(t);
  return groups.result();
}

bool can_cast(ScalarType from, ScalarType to) {
  if (c10::isComplexType(from) && !c10::isComplexType(to)) return false;
  if (c10::isFloatingType(from) && c10::isIntegralType(to, true)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

Tensor wrapped_scalar_tensor(const Scalar& s) {
  // A Python number is a value, not a computation: a trace records the
  // number where the tensor is read (jit/tracer.cpp), not this call.
  c10::ExcludeDispatchKeyGuard not_traced(c10::DispatchKey::Tracer);
  Tensor t = ember::scalar_tensor(s, s.type());
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

// ---- configuration ----------------------------------------------------------

TensorIteratorConfig& TensorIteratorConfig::add_output(const Tensor& t) {
  EMBER_INTERNAL_ASSERT(inputs_.empty());
  outputs_.push_back(t);
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::add_input(const Tensor& t) {
  EMBER_CHECK(t.defined(), "{}: expected a defined tensor as input {}", name_, inputs_.size());
  inputs_.push_back(t);
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::promote_inputs_to_common_dtype(bool v) {
  promote_inputs_ = v;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::promote_integer_inputs_to_float(bool v) {
  promote_int_to_float_ = v;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::cast_common_dtype_to_outputs(bool v) {
  cast_outputs_ = v;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::enforce_safe_casting_to_output(bool v) {
  safe_cast_ = v;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::declare_static_output_dtype(ScalarType t) {
  static_dtype_ = t;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::declare_static_shape(IntArrayRef shape) {
  static_shape_ = c10::DimVector(shape);
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::name(std::string op_name) {
  name_ = std::move(op_name);
  return *this;
}

TensorIterator TensorIteratorConfig::build() {
  TensorIterator iter;
  iter.build(*this);
  return iter;
}

// ---- the common configurations -----------------------------------------------

namespace {
// The configuration arithmetic shares: promote inputs, cast into out=
// tensors that can hold the result. `b` is undefined for unary ops.
TensorIterator arithmetic(const Tensor& out, const Tensor& a, const Tensor& b, std::string name, bool int_to_float) {
  TensorIteratorConfig config;
  config.name(std::move(name)).add_output(out).add_input(a);
  if (b.defined()) config.add_input(b);
  return config.promote_inputs_to_common_dtype()
      .promote_integer_inputs_to_float(int_to_float)
      .cast_common_dtype_to_outputs()
      .enforce_safe_casting_to_output()
      .build();
}
}  // namespace

TensorIterator TensorIterator::binary_op(const Tensor& out, const Tensor& a, const Tensor& b, std::string name) {
  return arithmetic(out, a, b, std::move(name), false);
}

TensorIterator TensorIterator::binary_float_op(const Tensor& out, const Tensor& a, const Tensor& b,
                                               std::string name) {
  return arithmetic(out, a, b, std::move(name), true);
}

TensorIterator TensorIterator::comparison_op(const Tensor& out, const Tensor& a, const Tensor& b, std::string name) {
  // Results are bool; an out= tensor of another dtype receives them cast.
  return TensorIteratorConfig()
      .name(std::move(name))
      .add_output(out)
      .add_input(a)
      .add_input(b)
      .promote_inputs_to_common_dtype()
      .declare_static_output_dtype(ScalarType::Bool)
      .cast_common_dtype_to_outputs()
      .build();
}

TensorIterator TensorIterator::unary_op(const Tensor& out, const Tensor& a, std::string name) {
  return arithmetic(out, a, Tensor(), std::move(name), false);
}

TensorIterator TensorIterator::unary_float_op(const Tensor& out, const Tensor& a, std::string name) {
  return arithmetic(out, a, Tensor(), std::move(name), true);
}

TensorIterator TensorIterator::where_op(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(condition.dtype() == ScalarType::Bool || condition.dtype() == ScalarType::Byte,
              "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
              c10::toString(condition.dtype()));
  const ScalarType common = result_type({a, b});
  return TensorIteratorConfig()
      .name("where")
      .add_output(out)
      .add_input(condition.to(ScalarType::Bool))
      .add_input(a.to(common))
      .add_input(b.to(common))
      .declare_static_output_dtype(common)
      .cast_common_dtype_to_outputs()
      .enforce_safe_casting_to_output()
      .build();
}

// ---- building ---------------------------------------------------------------

void TensorIterator::build(TensorIteratorConfig& config) {
  name_ = config.name_;
  noutputs_ = static_cast<int>(config.outputs_.size());
  operands_.reserve(config.outputs_.size() + config.inputs_.size());
  for (const Tensor& t : config.outputs_) {
    Operand op;
    op.tensor = t;
    op.is_output = true;
    operands_.push_back(std::move(op));
  }
  for (const Tensor& t : config.inputs_) {
    Operand op;
    op.tensor = t;
    operands_.push_back(std::move(op));
  }
  // Devices: all on one device type; 0-d CPU tensors (wrapped numbers) may join any.
  std::optional<Device> device;
  for (const Operand& op : operands_) {
    if (!op.tensor.defined()) continue;
    if (op.tensor.is_cpu() && op.tensor.dim() == 0 && !op.is_output) continue;
    if (!device) {
      device = op.tensor.device();
    } else {
      EMBER_CHECK(op.tensor.device().type == device->type,
                  "Expected all tensors to be on the same device, but found at least two devices, {} and {}! ({})",
                  device->str(), op.tensor.device().str(), name_);
    }
  }
  is_meta_ = device && device->is_meta();

  compute_shape(config);
  compute_types(config);
  // The iteration order comes from the operands that exist; new outputs are
  // then laid out in that order (so they follow the inputs' memory layout
  // as in PyTorch) before dims are merged.
  resize_outputs();
  if (fast_setup(config)) return;
  compute_strides();
  reorder_dimensions();
  allocate_outputs(config);
  if (is_meta_) return;
  coalesce_dimensions();
  numel_ = c10::checked_numel(shape_);
}

// The common case (operands of the result's shape, all contiguous, maybe
// with 0-d inputs) needs no reordering or merging of dims: it is one run
// over numel elements, and new outputs are contiguous too.
bool TensorIterator::fast_setup(TensorIteratorConfig& config) {
  if (is_meta_) return false;
  for (const Operand& op : operands_) {
    if (!op.tensor.defined()) continue;
    const bool broadcast_scalar = !op.is_output && op.tensor.dim() == 0;
    if (!broadcast_scalar && (op.tensor.sizes() != IntArrayRef(shape_) || !op.tensor.is_contiguous())) return false;
  }
  const ScalarType output_dtype = config.static_dtype_.value_or(common_dtype_);
  const Device device = output_device();
  for (Operand& op : operands_) {
    if (!op.is_output || (op.tensor.defined() && op.tensor.dtype() == output_dtype)) continue;
    if (op.tensor.defined()) op.original = op.tensor;  // computed in the common dtype, cast back by finish()
    op.tensor = ember::empty(shape_, output_dtype, device);
    op.is_new = true;
  }
  numel_ = c10::checked_numel(shape_);
  const size_t nd = shape_.empty() ? 0 : 1;
  if (nd == 1) shape_.assign(1, numel_);
  perm_.assign(nd, 0);
  for (Operand& op : operands_) {
    const int64_t step = op.tensor.dim() == 0 ? 0 : static_cast<int64_t>(op.tensor.element_size());
    op.strides.assign(nd, step);
  }
  return true;
}

Device TensorIterator::output_device() const {
  // The inputs' device; a 0-d CPU input (a wrapped number) joins any device.
  for (const Operand& op : operands_)
    if (!op.is_output && op.tensor.defined() && !(op.tensor.dim() == 0 && op.tensor.is_cpu())) return op.tensor.device();
  for (const Operand& op : operands_)
    if (op.tensor.defined()) return op.tensor.device();
  return Device(DeviceType::CPU);
}

void TensorIterator::compute_shape(TensorIteratorConfig& config) {
  if (config.static_shape_) {
    shape_ = *config.static_shape_;
  } else {
    bool first = true;
    for (const Operand& op : operands_) {
      if (op.is_output || !op.tensor.defined()) continue;
      if (first) {
        shape_ = c10::DimVector(op.tensor.sizes());
      } else if (op.tensor.sizes() != IntArrayRef(shape_)) {
        shape_ = infer_size_dimvector(shape_, op.tensor.sizes(), name_);
      }
      first = false;
    }
  }
  // out= tensors are resized to the result; an output that is the first
  // input is an in-place op's self and keeps its shape (PyTorch semantics).
  for (const Operand& op : operands_) {
    if (!op.is_output || !op.tensor.defined()) continue;
    if (op.tensor.sizes() == IntArrayRef(shape_)) continue;
    const bool in_place = !config.inputs_.empty() && config.inputs_.front().is_same(op.tensor);
    EMBER_CHECK(!in_place, "{}: output with shape {} doesn't match the broadcast shape {}", name_,
                str_sizes(op.tensor.sizes()), str_sizes(shape_));
  }
}

void TensorIterator::compute_types(TensorIteratorConfig& config) {
  ResultTypeGroups groups;
  for (const Operand& op : operands_)
    if (!op.is_output) groups.add(op.tensor);
  common_dtype_ = groups.result();
  if (common_dtype_ == ScalarType::Undefined) common_dtype_ = c10::get_default_dtype();
  if (config.promote_int_to_float_ && c10::isIntegralType(common_dtype_, true)) {
    common_dtype_ = c10::get_default_dtype();
  }
  const ScalarType output_dtype = config.static_dtype_.value_or(common_dtype_);
  for (Operand& op : operands_) {
    if (op.is_output) {
      if (!op.tensor.defined()) continue;
      if (op.tensor.dtype() == output_dtype) continue;
      EMBER_CHECK(config.cast_outputs_, "{}: expected the output to have dtype {} but got {}", name_,
                  c10::python_name(output_dtype), c10::python_name(op.tensor.dtype()));
      EMBER_CHECK(!config.safe_cast_ || can_cast(output_dtype, op.tensor.dtype()),
                  "{}{}result type {} can't be cast to the desired output type {}", name_, name_.empty() ? "" : ": ",
                  c10::toString(output_dtype),
                  c10::toString(op.tensor.dtype()));
    } else if (config.promote_inputs_ && op.tensor.dtype() != common_dtype_ && !is_meta_) {
      if (op.tensor.dim() == 0 && op.tensor.device().is_cpu()) op.uncast = op.tensor;
      op.tensor = op.tensor.to(common_dtype_);
    }
  }
}

void TensorIterator::resize_outputs() {
  for (Operand& op : operands_) {
    if (op.is_output && op.tensor.defined() && op.tensor.sizes() != IntArrayRef(shape_)) op.tensor.resize_(shape_);
  }
}

void TensorIterator::allocate_outputs(TensorIteratorConfig& config) {
  const ScalarType output_dtype = config.static_dtype_.value_or(common_dtype_);
  const Device device = output_device();
  // perm_[0] is the fastest tensor dim: it gets stride 1, and so on outward.
  const int64_t nd = static_cast<int64_t>(shape_.size());
  c10::DimVector tensor_shape(nd), tensor_strides(nd);
  int64_t running = 1;
  for (int64_t i = 0; i < nd; ++i) {
    tensor_shape[perm_[i]] = shape_[i];
    tensor_strides[perm_[i]] = running;
    running *= std::max<int64_t>(shape_[i], 1);
  }
  auto allocate = [&](Operand& op) {
    op.tensor = ember::empty_strided(tensor_shape, tensor_strides, output_dtype, device);
    op.is_new = true;
    const int64_t itemsize = static_cast<int64_t>(op.tensor.element_size());
    op.strides.resize(nd);
    for (int64_t i = 0; i < nd; ++i) op.strides[i] = shape_[i] == 1 ? 0 : tensor_strides[perm_[i]] * itemsize;
  };
  for (Operand& op : operands_) {
    if (!op.is_output) continue;
    if (!op.tensor.defined()) {
      allocate(op);
    } else if (op.tensor.dtype() != output_dtype) {
      // Compute in the common dtype, cast into the caller's tensor at the end.
      op.original = op.tensor;
      allocate(op);
    }
  }
}

void TensorIterator::compute_strides() {
  const size_t nd = shape_.size();
  for (Operand& op : operands_) {
    const Tensor& t = op.tensor;
    op.strides.assign(nd, 0);
    if (!t.defined()) continue;  // allocated later, in the iteration order
    const size_t offset = nd - static_cast<size_t>(t.dim());
    const int64_t itemsize = static_cast<int64_t>(t.element_size());
    for (size_t i = 0; i < static_cast<size_t>(t.dim()); ++i) {
      // Broadcast dims (size 1 against a larger shape) read the same element.
      op.strides[offset + i] = t.size(static_cast<int64_t>(i)) == 1 ? 0 : t.stride(static_cast<int64_t>(i)) * itemsize;
    }
  }
}

// Iteration order: dim 0 is the one with the smallest strides (fastest in
// memory). Outputs decide first; inputs break ties.
void TensorIterator::reorder_dimensions() {
  const int64_t nd = static_cast<int64_t>(shape_.size());
  perm_.resize(nd);
  std::iota(perm_.rbegin(), perm_.rend(), 0);  // start from row-major: last dim fastest
  auto should_swap = [&](int64_t dim0, int64_t dim1) {
    for (const Operand& op : operands_) {
      if (!op.tensor.defined()) continue;
      const int64_t s0 = op.strides[dim0], s1 = op.strides[dim1];
      if (s0 == 0 || s1 == 0) continue;
      if (s0 != s1) return s0 > s1;
    }
    return false;
  };
  // Insertion sort keeps the default order among ties.
  for (int64_t i = 1; i < nd; ++i) {
    for (int64_t j = i; j > 0 && should_swap(perm_[j - 1], perm_[j]); --j) std::swap(perm_[j - 1], perm_[j]);
  }
  c10::DimVector shape(nd);
  for (int64_t i = 0; i < nd; ++i) shape[i] = shape_[perm_[i]];
  shape_ = std::move(shape);
  for (Operand& op : operands_) {
    c10::DimVector strides(nd);
    for (int64_t i = 0; i < nd; ++i) strides[i] = op.strides[perm_[i]];
    op.strides = std::move(strides);
  }
}

void TensorIterator::coalesce_dimensions() {
  if (shape_.empty()) return;
  size_t prev = 0;
  for (size_t d = 1; d < shape_.size(); ++d) {
    bool can_merge = shape_[prev] == 1 || shape_[d] == 1;
    if (!can_merge) {
      can_merge = true;
      for (const Operand& op : operands_) can_merge = can_merge && op.strides[d] == op.strides[prev] * shape_[prev];
    }
    if (can_merge) {
      if (shape_[prev] == 1) {
        for (Operand& op : operands_) op.strides[prev] = op.strides[d];
      }
      shape_[prev] *= shape_[d];
    } else {
      ++prev;
      shape_[prev] = shape_[d];
      for (Operand& op : operands_) op.strides[prev] = op.strides[d];
    }
  }
  shape_.resize(prev + 1);
  for (Operand& op : operands_) op.strides.resize(prev + 1);
}

// ---- running ----------------------------------------------------------------

bool TensorIterator::is_contiguous() const {
  if (numel_ <= 1) return true;
  if (shape_.size() != 1) return false;
  for (const Operand& op : operands_)
    if (op.strides[0] != static_cast<int64_t>(op.tensor.element_size())) return false;
  return true;
}

std::optional<Scalar> TensorIterator::uncast_scalar(int i) const {
  const Operand& op = operands_[noutputs_ + i];
  if (op.uncast.defined()) return op.uncast.item();
  if (op.tensor.dim() == 0 && op.tensor.device().is_cpu() && !is_meta_) return op.tensor.item();
  return std::nullopt;
}

bool TensorIterator::is_scalar(int i) const {
  for (int64_t s : operands_[i].strides)
    if (s != 0) return false;
  return true;
}

void TensorIterator::serial_for_each(const Loop& loop, int64_t begin, int64_t end) const {
  if (begin >= end) return;
  const size_t nd = shape_.size();
  const int nt = ntensors();
  c10::SmallVector<char*, 8> base(nt);
  for (int k = 0; k < nt; ++k) base[k] = static_cast<char*>(operands_[k].tensor.data_ptr());
  if (nd == 0) {
    c10::SmallVector<int64_t, 8> zero(nt, 0);
    loop(base.data(), zero.data(), 1);
    return;
  }
  if (nd == 1) {  // one run (every contiguous case): no counters
    c10::SmallVector<int64_t, 8> inner(nt);
    for (int k = 0; k < nt; ++k) {
      inner[k] = operands_[k].strides[0];
      base[k] += begin * inner[k];
    }
    loop(base.data(), inner.data(), end - begin);
    return;
  }
  // Position of `begin` as a counter over the dims (dim 0 fastest).
  c10::DimVector counter(nd);
  int64_t rest = begin;
  for (size_t d = 0; d < nd; ++d) {
    counter[d] = rest % shape_[d];
    rest /= shape_[d];
  }
  c10::SmallVector<char*, 8> ptrs(nt);
  c10::SmallVector<int64_t, 8> inner(nt);
  for (int k = 0; k < nt; ++k) inner[k] = operands_[k].strides[0];
  int64_t index = begin;
  while (index < end) {
    for (int k = 0; k < nt; ++k) {
      char* p = base[k];
      for (size_t d = 0; d < nd; ++d) p += counter[d] * operands_[k].strides[d];
      ptrs[k] = p;
    }
    const int64_t n = std::min(shape_[0] - counter[0], end - index);
    loop(ptrs.data(), inner.data(), n);
    index += n;
    counter[0] += n;
    for (size_t d = 0; d + 1 < nd && counter[d] == shape_[d]; ++d) {
      counter[d] = 0;
      ++counter[d + 1];
    }
  }
}

void TensorIterator::for_each(const Loop& loop, int64_t grain_size) {
  if (!is_meta_ && numel_ > 0) {
    if (numel_ < grain_size) {
      serial_for_each(loop, 0, numel_);
    } else {
      parallel_for(0, numel_, grain_size, [&](int64_t b, int64_t e) { serial_for_each(loop, b, e); });
    }
  }
  finish();
}

void TensorIterator::finish() {
  for (Operand& op : operands_) {
    if (op.is_output && !op.is_new) op.tensor.unsafeGetTensorImpl()->bump_version();
    if (op.original.defined()) {
      op.original.copy_(op.tensor);
      op.tensor = op.original;
      op.original = Tensor();
    }
  }
}

}  // namespace ember
