#pragma once
// TensorIterator: the shared front half of every elementwise kernel. From a
// list of outputs and inputs it computes the broadcast shape and the common
// dtype (PyTorch's type promotion), allocates missing outputs in the inputs'
// memory layout, casts where asked, and reduces the geometry to as few,
// as long dimensions as possible (fastest first) so that kernels only write
// an inner loop. for_each() runs that loop, in parallel for large tensors.

#include <c10/util/SmallVector.h>
#include <aten/core/Tensor.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ember {

class TensorIterator;

class TensorIteratorConfig {
 public:
  // Outputs first, then inputs. An undefined output is allocated.
  TensorIteratorConfig& add_output(const Tensor& t);
  TensorIteratorConfig& add_input(const Tensor& t);

  // Inputs of another dtype are converted to the common dtype.
  TensorIteratorConfig& promote_inputs_to_common_dtype(bool v = true);
  // Integer and bool inputs promote to the default float dtype (sqrt, exp...).
  TensorIteratorConfig& promote_integer_inputs_to_float(bool v = true);
  // Defined outputs of another dtype get the result cast into them.
  TensorIteratorConfig& cast_common_dtype_to_outputs(bool v = true);
  // Refuse casts PyTorch refuses (float -> int, complex -> real) into outputs.
  TensorIteratorConfig& enforce_safe_casting_to_output(bool v = true);
  // Outputs have this dtype whatever the inputs are (e.g. bool for comparisons).
  TensorIteratorConfig& declare_static_output_dtype(ScalarType t);
  // Outputs have this shape; inputs broadcast to it (reductions).
  TensorIteratorConfig& declare_static_shape(IntArrayRef shape);
  // Names the operation in error messages.
  TensorIteratorConfig& name(std::string op_name);

  TensorIterator build();

 private:
  friend class TensorIterator;
  // Inline room for the usual one output and up to three inputs: no heap
  // allocation per call for them.
  c10::SmallVector<Tensor, 4> outputs_, inputs_;
  bool promote_inputs_ = false, promote_int_to_float_ = false, cast_outputs_ = false, safe_cast_ = false;
  std::optional<ScalarType> static_dtype_;
  std::optional<c10::DimVector> static_shape_;
  std::string name_ = "operation";
};

class TensorIterator {
 public:
  // data[k] points at operand k's first element of the run, strides[k] is its
  // byte stride along the run, n the run's length.
  using Loop = std::function<void(char** data, const int64_t* strides, int64_t n)>;

  static TensorIterator binary_op(const Tensor& out, const Tensor& a, const Tensor& b, std::string name);
  static TensorIterator binary_float_op(const Tensor& out, const Tensor& a, const Tensor& b, std::string name);
  static TensorIterator comparison_op(const Tensor& out, const Tensor& a, const Tensor& b, std::string name);
  static TensorIterator unary_op(const Tensor& out, const Tensor& a, std::string name);
  static TensorIterator unary_float_op(const Tensor& out, const Tensor& a, std::string name);
  // where(condition, a, b): a bool condition (uint8 accepted) and a, b in their common dtype.
  static TensorIterator where_op(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b);

  int ntensors() const { return static_cast<int>(operands_.size()); }
  int noutputs() const { return noutputs_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  // The iteration shape after reordering and coalescing (fastest dim first).
  IntArrayRef shape() const { return shape_; }
  int64_t numel() const { return numel_; }
  ScalarType common_dtype() const { return common_dtype_; }
  ScalarType dtype(int i) const { return operands_[i].tensor.dtype(); }
  ScalarType input_dtype(int i = 0) const { return dtype(noutputs_ + i); }
  // The tensor handed back to the caller (the user's out= tensor if given).
  const Tensor& output(int i = 0) const {
    return operands_[i].original.defined() ? operands_[i].original : operands_[i].tensor;
  }
  const Tensor& input(int i = 0) const { return operands_[noutputs_ + i].tensor; }
  bool is_meta() const { return is_meta_; }
  // True when every operand is contiguous along the single iteration dim.
  bool is_contiguous() const;
  // A 0-d or broadcast input is constant across the inner loop.
  bool is_scalar(int i) const;
  // Input i's value as the caller gave it (before any cast to the common
  // dtype), when it is 0-d: what half and bfloat16 arithmetic uses at float
  // precision instead of the value rounded to the tensor's dtype, as torch.
  std::optional<Scalar> uncast_scalar(int i) const;

  // Runs `loop` over every element: in parallel chunks when numel() is at
  // least grain_size. Afterwards, outputs computed in a temporary dtype are
  // cast into the caller's tensors.
  void for_each(const Loop& loop, int64_t grain_size = 32768);
  void serial_for_each(const Loop& loop, int64_t begin, int64_t end) const;

  // For kernels that run their own loop on a device (for_each runs on the
  // host): operand k's first element and its byte strides per iteration dim.
  void* data_ptr(int k) const { return operands_[k].tensor.data_ptr(); }
  IntArrayRef strides(int k) const { return operands_[k].strides; }
  const Tensor& operand(int k) const { return operands_[k].tensor; }
  // Bumps versions and casts temporaries back, as for_each does at its end.
  void finish();

 private:
  friend class TensorIteratorConfig;
  struct Operand {
    Tensor tensor;    // what the loop reads or writes
    Tensor original;  // the caller's out= tensor when `tensor` is a cast temporary
    Tensor uncast;    // a 0-d input as the caller gave it, before the cast to the common dtype
    c10::DimVector strides;  // bytes, per iteration dim
    bool is_output = false;
    // Allocated by the iterator: nobody else has seen it, so writing it is
    // not a modification (a fresh result starts at version 0).
    bool is_new = false;
  };

  void build(TensorIteratorConfig& config);
  void compute_shape(TensorIteratorConfig& config);
  void compute_types(TensorIteratorConfig& config);
  void resize_outputs();
  bool fast_setup(TensorIteratorConfig& config);
  Device output_device() const;
  void allocate_outputs(TensorIteratorConfig& config);
  void compute_strides();
  void reorder_dimensions();
  void coalesce_dimensions();

  c10::SmallVector<Operand, 4> operands_;
  int noutputs_ = 0;
  c10::DimVector shape_;
  c10::DimVector perm_;  // iteration dim i is tensor dim perm_[i]
  int64_t numel_ = 0;
  ScalarType common_dtype_ = ScalarType::Undefined;
  bool is_meta_ = false;
  std::string name_;
};

// torch.result_type over tensors, with PyTorch's priorities: dimensioned
// tensors, then 0-d tensors, then wrapped numbers, each only able to raise
// the category (bool < integer < floating < complex) of those above it.
ScalarType result_type(c10::ArrayRef<Tensor> tensors);
// Whether a value of `from` may be stored in `to` by an out= or in-place op.
bool can_cast(ScalarType from, ScalarType to);
// A 0-d tensor holding `s`, marked as a wrapped number.
Tensor wrapped_scalar_tensor(const Scalar& s);

}  // namespace ember
