// searchsorted and bucketize: a binary search of each value in the innermost
// dim of a sorted sequence (one sequence for all values, or one per row).
// NaN compares as larger than everything, as in torch.

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/SameDevice.h>
#include <aten/native/TensorIterator.h>
#include <c10/util/TypeCast.h>

namespace ember::native {

namespace {

constexpr const char* kSearch = "torch.searchsorted()";

// A resolved side; "right" and right=True say the same, opposites are an error.
bool search_right(bool right, std::optional<std::string_view> side) {
  if (!side) return right;
  EMBER_CHECK(*side == "left" || *side == "right", "{}: side can only be 'left' or 'right' but got {}", kSearch,
              *side);
  EMBER_CHECK(!(right && *side == "left"), "{}: side and right can't be set to opposites, got side of left while "
              "right was True", kSearch);
  return *side == "right";
}

void check_sequence(const Tensor& sequence, const Tensor& values, const std::optional<Tensor>& sorter) {
  EMBER_CHECK(sequence.dim() >= 1, "{}: boundaries tensor should have positive dimension, but got 0 dimension",
              kSearch);
  const bool per_row = sequence.dim() > 1;
  EMBER_CHECK(!per_row || (values.dim() == sequence.dim() &&
                           values.sizes().slice(0, values.dim() - 1) == sequence.sizes().slice(0, sequence.dim() - 1)),
              "{}: boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input "
              "value tensor must match, but we got boundaries tensor {} and input value tensor {}", kSearch,
              c10::str_sizes(sequence.sizes()), c10::str_sizes(values.sizes()));
  EMBER_CHECK(!sequence.is_complex() && !values.is_complex(), "{}: complex tensors are not supported", kSearch);
  EMBER_CHECK(sequence.device() == values.device(), "{}: expected the sequence and the values on the same device, "
              "got {} and {}", kSearch, sequence.device().str(), values.device().str());
  if (!sorter || !sorter->defined()) return;
  EMBER_CHECK(sorter->scalar_type() == ScalarType::Long, "{}: sorter must be a tensor of long dtype but got {}",
              kSearch, c10::toString(sorter->scalar_type()));
  EMBER_CHECK(sorter->sizes() == sequence.sizes(), "{}: boundary and sorter must have the same size, but got boundary "
              "tensor {} and got sorter tensor {}", kSearch, c10::str_sizes(sequence.sizes()),
              c10::str_sizes(sorter->sizes()));
  const int64_t n = sequence.size(-1);
  const bool in_range = sorter->numel() == 0 || sorter->is_meta() ||
                        (ember::min(*sorter).item().toLong() >= 0 && ember::max(*sorter).item().toLong() < n);
  EMBER_CHECK(in_range, "{}: sorter index out of range", kSearch);
}

}  // namespace

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  right = search_right(right, side);
  check_sequence(sorted_sequence, self, sorter);
  const ScalarType common = result_type({sorted_sequence, self});
  if (self.is_meta()) return ember::empty(self.sizes(), out_int32 ? ScalarType::Int : ScalarType::Long, self.device());
  const Tensor ordered = sorter && sorter->defined() ? sorted_sequence.gather(-1, *sorter) : sorted_sequence;
  const Tensor sequence = ordered.to(common).contiguous(), values = self.to(common).contiguous();
  Tensor result = ember::empty(self.sizes(), out_int32 ? ScalarType::Int : ScalarType::Long, self.device());
  const int64_t n = sequence.size(-1), count = values.numel();
  const int64_t row_length = sequence.dim() > 1 && values.dim() > 0 ? values.size(-1) : count;
  c10::visit_scalar_type(common, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!c10::is_complex_v<T>) {
      const T* seq = static_cast<const T*>(sequence.data_ptr());
      const T* val = static_cast<const T*>(values.data_ptr());
      auto write = [&](int64_t i, int64_t position) {
        if (out_int32) {
          result.data_ptr<int32_t>()[i] = static_cast<int32_t>(position);
        } else {
          result.data_ptr<int64_t>()[i] = position;
        }
      };
      parallel_for(0, count, 2048, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          const T* row = seq + (sequence.dim() > 1 ? (i / std::max<int64_t>(row_length, 1)) * n : 0);
          const T v = val[i];
          int64_t lo = 0, hi = n;
          while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            // Written so that NaN (in the row or as v) sorts last.
            const bool before = right ? !(row[mid] > v) : !(row[mid] >= v);
            if (before) {
              lo = mid + 1;
            } else {
              hi = mid;
            }
          }
          write(i, lo);
        }
      });
    }
  });
  return result;
}

Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& self, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  const Tensor value = wrapped_scalar_tensor(self).to(sorted_sequence.device());
  return ember::searchsorted(sorted_sequence, value, out_int32, right, side, sorter);
}

Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "bucketize: boundaries tensor must be 1 dimension, but got dim({})",
              boundaries.dim());
  return ember::searchsorted(boundaries, self, out_int32, right, std::nullopt, std::nullopt);
}

Tensor bucketize(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  return ember::bucketize(wrapped_scalar_tensor(self).to(boundaries.device()), boundaries, out_int32, right);
}

// Whether each element occurs in test_elements: a binary search in their
// sorted values (n log m rather than an n x m comparison).
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique, bool invert) {
  EMBER_CHECK(!elements.is_complex() && !test_elements.is_complex(), "isin: complex inputs are not supported");
  check_same_device("isin", elements, test_elements);
  const ScalarType common = c10::promoteTypes(elements.scalar_type(), test_elements.scalar_type());
  const Tensor values = elements.to(common);
  if (test_elements.numel() == 0) return ember::full(elements.sizes(), invert, ScalarType::Bool, elements.device());
  const Tensor sorted = std::get<0>(ember::sort(test_elements.to(common).reshape({-1}), 0, false));
  const Tensor position = ember::searchsorted(sorted, values.reshape({-1})).clamp_max(sorted.numel() - 1);
  const Tensor found = sorted.index_select(0, position).eq(values.reshape({-1})).reshape(elements.sizes());
  return invert ? found.logical_not() : found;
}
Tensor isin(const Tensor& elements, const Scalar& test_element, bool assume_unique, bool invert) {
  return ember::isin(elements, wrapped_scalar_tensor(test_element).to(elements.device()), assume_unique, invert);
}
Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique, bool invert) {
  return ember::isin(wrapped_scalar_tensor(element).to(test_elements.device()), test_elements, assume_unique, invert);
}

}  // namespace ember::native
