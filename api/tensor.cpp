#include <api/tensor.h>

#include <aten/Functions.h>

#include <vector>

namespace ember {

Tensor tensor(std::initializer_list<double> values, ScalarType dtype) {
  Tensor doubles = ember::empty({static_cast<int64_t>(values.size())}, ScalarType::Double);
  double* out = doubles.data_ptr<double>();
  for (double v : values) *out++ = v;
  return doubles.to(dtype);
}

}  // namespace ember
