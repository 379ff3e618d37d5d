// cross_entropy over [N, C] rows with class indices, fused: the forward
// keeps one log-sum-exp per row (not the [N, C] log-probabilities that
// log_softmax + nll_loss write and read back), and the backward writes
// scale * (softmax - one_hot) in one pass from it. cross_entropy_loss takes
// this path where it applies (no class weights, no smoothing).

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/LossTargets.h>
#include <aten/native/cpu/ElementwiseTraits.h>
#include <aten/native/cpu/VecMath.h>

#include <cmath>
#include <limits>
#include <tuple>
#include <type_traits>
#include <vector>

namespace ember::native {

namespace {

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

void check_operands(const char* op, const Tensor& self, const Tensor& target, int64_t reduction) {
  EMBER_CHECK(self.dim() == 2, "{}: expected input of shape [N, C], got {}", op, c10::str_sizes(self.sizes()));
  EMBER_CHECK_NOT_IMPLEMENTED(self.is_floating_point(), "\"{}\" not implemented for '{}'", op,
                              c10::toString(self.dtype()));
  EMBER_CHECK(target.dtype() == ScalarType::Long, "{}: expected target of dtype Long but got {}", op,
              c10::toString(target.dtype()));
  EMBER_CHECK_VALUE(target.dim() == 1 && target.size(0) == self.size(0),
                    "Expected input batch_size ({}) to match target batch_size ({}).", self.size(0), target.numel());
  EMBER_CHECK_VALUE(reduction >= kNone && reduction <= kSum, "{} is not a valid value for reduction", reduction);
}

// Targets are checked before any row is computed: a bad one raises and
// nothing is half-written.
int64_t count_kept(const int64_t* t, int64_t rows, int64_t classes, int64_t ignore_index) {
  int64_t kept = 0;
  for (int64_t i = 0; i < rows; ++i) {
    if (t[i] == ignore_index) continue;
    check_target_class(t[i], classes);
    ++kept;
  }
  return kept;
}

// The operands as the row loops read them, the targets checked and the
// rows that count (not ignore_index) counted.
struct Rows {
  Tensor x, targets;
  const int64_t* t;
  int64_t kept;
};
Rows prepare_rows(const Tensor& self, const Tensor& target, int64_t ignore_index) {
  Rows r{self.contiguous(), target.contiguous(), nullptr, 0};
  r.t = r.targets.data_ptr<int64_t>();
  r.kept = count_kept(r.t, self.size(0), self.size(1), ignore_index);
  return r;
}

// log-sum-exp of rows [begin, end), in the opmath type M.
template <typename T, typename M>
void logsumexp_rows(const T* x, M* lse, int64_t begin, int64_t end, int64_t classes) {
  if constexpr (std::is_same_v<T, float>) {
    cpu::logsumexp_rows_floats(x + begin * classes, lse + begin, end - begin, classes);
  } else {
    for (int64_t r = begin; r < end; ++r) {
      const T* row = x + r * classes;
      M m = -std::numeric_limits<M>::infinity();
      for (int64_t c = 0; c < classes; ++c) m = std::max(m, static_cast<M>(row[c]));
      if (std::isinf(m)) {
        lse[r] = m > 0 ? std::numeric_limits<M>::quiet_NaN() : m;
        continue;
      }
      M total = 0;
      for (int64_t c = 0; c < classes; ++c) total += std::exp(static_cast<M>(row[c]) - m);
      lse[r] = m + std::log(total);
    }
  }
}
}  // namespace

std::tuple<Tensor, Tensor> _cross_entropy_rows(const Tensor& self, const Tensor& target, int64_t reduction,
                                               int64_t ignore_index) {
  check_operands("_cross_entropy_rows", self, target, reduction);
  const int64_t rows = self.size(0), classes = self.size(1);
  Tensor lse = ember::empty({rows}, cpu::opmath_type(self.dtype()), self.device());
  Tensor loss = reduction == kNone ? ember::empty({rows}, self.dtype(), self.device())
                                   : ember::empty({}, self.dtype(), self.device());
  if (self.is_meta()) return {loss, lse};
  EMBER_CHECK_INDEX(classes > 0 || rows == 0, "_cross_entropy_rows: expected at least one class");
  const Rows r = prepare_rows(self, target, ignore_index);
  const Tensor& x = r.x;
  const int64_t* t = r.t;
  const int64_t kept = r.kept;
  cpu::visit_floating(self.scalar_type(), [&](auto t_tag, auto m_tag) {
    using T = decltype(t_tag);
    using M = decltype(m_tag);
    const T* px = x.data_ptr<T>();
    M* plse = lse.data_ptr<M>();
    parallel_for(0, rows, rows_per_task(classes),
                 [&](int64_t b, int64_t e) { logsumexp_rows<T, M>(px, plse, b, e, classes); });
    // Per-row losses, summed in order (in double) so the result does not
    // depend on the thread count.
    double total = 0;
    T* out = loss.data_ptr<T>();
    for (int64_t i = 0; i < rows; ++i) {
      const M li = t[i] == ignore_index ? M(0) : plse[i] - static_cast<M>(px[i * classes + t[i]]);
      if (reduction == kNone) out[i] = static_cast<T>(li);
      total += static_cast<double>(li);
    }
    if (reduction == kSum) out[0] = static_cast<T>(total);
    if (reduction == kMean) out[0] = static_cast<T>(total / static_cast<double>(kept));  // 0 / 0: NaN, as torch
  });
  return {loss, lse};
}

Tensor _cross_entropy_rows_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                    const Tensor& logsumexp, int64_t reduction, int64_t ignore_index) {
  check_operands("_cross_entropy_rows_backward", self, target, reduction);
  const int64_t rows = self.size(0), classes = self.size(1);
  EMBER_CHECK(logsumexp.dim() == 1 && logsumexp.size(0) == rows,
              "_cross_entropy_rows_backward: expected logsumexp of shape [{}], got {}", rows,
              c10::str_sizes(logsumexp.sizes()));
  EMBER_CHECK(reduction == kNone ? grad.numel() == rows : grad.numel() == 1,
              "_cross_entropy_rows_backward: grad of shape {} does not fit reduction {} over {} rows",
              c10::str_sizes(grad.sizes()), reduction, rows);
  Tensor dx = ember::empty({rows, classes}, self.dtype(), self.device());
  if (self.is_meta() || dx.numel() == 0) return dx;
  const Rows r = prepare_rows(self, target, ignore_index);
  const Tensor& x = r.x;
  const int64_t* t = r.t;
  const int64_t kept = r.kept;
  cpu::visit_floating(self.scalar_type(), [&](auto t_tag, auto m_tag) {
    using T = decltype(t_tag);
    using M = decltype(m_tag);
    const Tensor lse = logsumexp.to(c10::cpp_to_scalar_type<M>).contiguous();
    const Tensor g = grad.to(c10::cpp_to_scalar_type<M>).reshape({-1}).contiguous();
    const M* plse = lse.data_ptr<M>();
    const M* pg = g.data_ptr<M>();
    const T* px = x.data_ptr<T>();
    T* pdx = dx.data_ptr<T>();
    // d loss_i / d x_ic = p_ic - [c == t_i], times the gradient each row's
    // loss receives.
    std::vector<M> scale(rows);
    for (int64_t i = 0; i < rows; ++i) {
      const M gi = reduction == kNone ? pg[i] : reduction == kMean ? pg[0] / static_cast<M>(kept) : pg[0];
      scale[i] = t[i] == ignore_index ? M(0) : gi;
    }
    parallel_for(0, rows, rows_per_task(classes), [&](int64_t b, int64_t e) {
      if constexpr (std::is_same_v<T, float>) {
        cpu::scaled_softmax_rows_floats(px + b * classes, plse + b, scale.data() + b, pdx + b * classes, e - b,
                                        classes);
      } else {
        for (int64_t r = b; r < e; ++r) {
          const bool finite = std::isfinite(plse[r]);
          for (int64_t c = 0; c < classes; ++c) {
            const M p = std::exp(static_cast<M>(px[r * classes + c]) - plse[r]);
            pdx[r * classes + c] = static_cast<T>(finite ? scale[r] * p : std::numeric_limits<M>::quiet_NaN());
          }
        }
      }
      for (int64_t r = b; r < e; ++r) {
        if (t[r] == ignore_index) continue;
        T& at_target = pdx[r * classes + t[r]];
        at_target = static_cast<T>(static_cast<M>(at_target) - scale[r]);
      }
    });
  });
  return dx;
}

}  // namespace ember::native
