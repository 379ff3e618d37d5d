#pragma once
// IValue: one boxed value of any type an operator schema can name. Boxed
// kernels (fallbacks, kernels written in Python) see their arguments as a
// Stack of IValues; unboxed kernels see plain C++ types. KernelFunction
// converts between the two.

#include <aten/core/Generator.h>
#include <aten/core/Tensor.h>
#include <c10/core/MemoryFormat.h>

#include <array>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace ember {

class IValue {
 public:
  using Payload = std::variant<std::monostate, Tensor, double, int64_t, bool, c10::complex<double>,
                               std::vector<int64_t>, std::vector<double>, std::vector<bool>, std::vector<Tensor>,
                               std::vector<std::optional<Tensor>>, std::string, ScalarType, Device, Generator,
                               c10::MemoryFormat>;

  IValue() = default;
  IValue(Tensor t) {
    if (t.defined()) value_ = std::move(t);
  }
  IValue(double v) : value_(v) {}
  IValue(int64_t v) : value_(v) {}
  IValue(int v) : value_(static_cast<int64_t>(v)) {}
  IValue(bool v) : value_(v) {}
  IValue(c10::complex<double> v) : value_(v) {}
  IValue(const Scalar& s);
  IValue(IntArrayRef v) : value_(v.vec()) {}
  IValue(std::vector<int64_t> v) : value_(std::move(v)) {}
  IValue(std::vector<double> v) : value_(std::move(v)) {}
  IValue(c10::ArrayRef<double> v) : value_(v.vec()) {}
  IValue(std::vector<bool> v) : value_(std::move(v)) {}
  template <size_t N>
  IValue(std::array<bool, N> v) : value_(std::vector<bool>(v.begin(), v.end())) {}
  IValue(c10::ArrayRef<Tensor> v) : value_(v.vec()) {}
  IValue(std::vector<Tensor> v) : value_(std::move(v)) {}
  IValue(std::vector<std::optional<Tensor>> v) : value_(std::move(v)) {}
  IValue(std::string v) : value_(std::move(v)) {}
  IValue(std::string_view v) : value_(std::string(v)) {}
  IValue(const char* v) : value_(std::string(v)) {}
  IValue(ScalarType v) : value_(v) {}
  IValue(Device v) : value_(v) {}
  IValue(Generator v) : value_(std::move(v)) {}
  IValue(c10::MemoryFormat v) : value_(v) {}
  template <typename T>
  IValue(std::optional<T> v) {
    if (v) *this = IValue(std::move(*v));
  }
  IValue(std::nullopt_t) {}

  bool isNone() const { return std::holds_alternative<std::monostate>(value_); }
  bool isTensor() const { return std::holds_alternative<Tensor>(value_); }
  bool isDouble() const { return std::holds_alternative<double>(value_); }
  bool isInt() const { return std::holds_alternative<int64_t>(value_); }
  bool isBool() const { return std::holds_alternative<bool>(value_); }
  bool isComplexDouble() const { return std::holds_alternative<c10::complex<double>>(value_); }
  bool isScalar() const { return isDouble() || isInt() || isBool() || isComplexDouble(); }
  bool isIntList() const { return std::holds_alternative<std::vector<int64_t>>(value_); }
  bool isTensorList() const { return std::holds_alternative<std::vector<Tensor>>(value_); }
  bool isString() const { return std::holds_alternative<std::string>(value_); }
  bool isDevice() const { return std::holds_alternative<Device>(value_); }
  bool isOptionalTensorList() const { return std::holds_alternative<std::vector<std::optional<Tensor>>>(value_); }

  // Accessors check the type and name it when it is wrong.
  const Tensor& toTensor() const { return get<Tensor>("Tensor"); }
  double toDouble() const;
  int64_t toInt() const { return get<int64_t>("int"); }
  bool toBool() const { return get<bool>("bool"); }
  Scalar toScalar() const;
  const std::vector<int64_t>& toIntList() const { return get<std::vector<int64_t>>("int[]"); }
  const std::vector<double>& toDoubleList() const { return get<std::vector<double>>("float[]"); }
  const std::vector<bool>& toBoolList() const { return get<std::vector<bool>>("bool[]"); }
  const std::vector<Tensor>& toTensorList() const { return get<std::vector<Tensor>>("Tensor[]"); }
  const std::vector<std::optional<Tensor>>& toOptionalTensorList() const {
    return get<std::vector<std::optional<Tensor>>>("Tensor?[]");
  }
  const std::string& toStringRef() const { return get<std::string>("str"); }
  ScalarType toScalarType() const { return get<ScalarType>("ScalarType"); }
  Device toDevice() const { return get<Device>("Device"); }
  const Generator& toGenerator() const { return get<Generator>("Generator"); }
  c10::MemoryFormat toMemoryFormat() const { return get<c10::MemoryFormat>("MemoryFormat"); }

  const Payload& payload() const { return value_; }
  std::string tagName() const;

 private:
  template <typename T>
  const T& get(const char* expected) const {
    const T* v = std::get_if<T>(&value_);
    EMBER_CHECK(v != nullptr, "expected an IValue of type {} but got {}", expected, tagName());
    return *v;
  }
  Payload value_;
};

using Stack = std::vector<IValue>;

}  // namespace ember
