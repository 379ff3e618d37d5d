// scaled_dot_product_attention's fused CPU kernel, flash-attention style:
// the scores q k^T are made one block of keys at a time and folded into the
// output with an online softmax, so the [L, S] attention matrix never
// exists; the causal mask skips the blocks above the diagonal. The
// backward makes each block's probabilities again from the saved
// log-sum-exp. Float and double (the GEMMs are OpenBLAS's); other dtypes,
// dropout and masks that need a gradient take the composite path in
// ember.nn.functional.

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/cpu/Blas.h>
#include <aten/native/cpu/VecMath.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

namespace ember::native {

namespace {

constexpr const char* kForward = "_scaled_dot_product_flash_attention_for_cpu";
constexpr const char* kBackward = "_scaled_dot_product_flash_attention_for_cpu_backward";

// Rows of queries and of keys per block: a block's scores ([64, 256]
// floats, 64 KiB) and its operands stay in L2.
constexpr int64_t kQueryBlock = 64, kKeyBlock = 256;

struct Dims {
  int64_t B, H, L, S, E, Ev;
};

Dims check_operands(const char* op, const Tensor& q, const Tensor& k, const Tensor& v, double dropout_p) {
  EMBER_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4,
              "{}: expected query, key and value to be 4-D [batch, heads, length, features], got {}, {} and {}", op,
              c10::str_sizes(q.sizes()), c10::str_sizes(k.sizes()), c10::str_sizes(v.sizes()));
  EMBER_CHECK(q.dtype() == k.dtype() && q.dtype() == v.dtype(),
              "{}: expected query, key and value to have the same dtype, but got {}, {} and {}", op,
              c10::toString(q.dtype()), c10::toString(k.dtype()), c10::toString(v.dtype()));
  EMBER_CHECK_NOT_IMPLEMENTED(q.dtype() == ScalarType::Float || q.dtype() == ScalarType::Double,
                              "\"{}\" not implemented for '{}'", op, c10::toString(q.dtype()));
  EMBER_CHECK(q.device() == k.device() && q.device() == v.device(),
              "{}: expected query, key and value on one device, got {}, {} and {}", op, q.device().str(),
              k.device().str(), v.device().str());
  const Dims d{q.size(0), q.size(1), q.size(2), k.size(2), q.size(3), v.size(3)};
  EMBER_CHECK(k.size(0) == d.B && v.size(0) == d.B && k.size(1) == d.H && v.size(1) == d.H,
              "{}: expected key and value to have the batch and head sizes of query {}, got {} and {}", op,
              c10::str_sizes(q.sizes()), c10::str_sizes(k.sizes()), c10::str_sizes(v.sizes()));
  EMBER_CHECK(k.size(3) == d.E, "{}: expected key's last dim ({}) to equal query's ({})", op, k.size(3), d.E);
  EMBER_CHECK(v.size(2) == d.S, "{}: expected key and value of one length, got {} and {}", op, d.S, v.size(2));
  EMBER_CHECK_NOT_IMPLEMENTED(dropout_p == 0.0, "{}: dropout is not supported by the fused kernel (dropout_p={})",
                              op, dropout_p);
  return d;
}

// The mask as additive scores of the query's dtype (a bool mask's false
// entries become -inf), broadcast to [B, H, L, S] by strides; undefined when
// there is none.
Tensor additive_mask(const char* op, const std::optional<Tensor>& attn_mask, const Tensor& q, const Dims& d) {
  if (!attn_mask || !attn_mask->defined()) return {};
  const Tensor& mask = *attn_mask;
  EMBER_CHECK(mask.dtype() == ScalarType::Bool || mask.dtype() == q.dtype(),
              "{}: expected attn_mask of dtype bool or {}, got {}", op, c10::toString(q.dtype()),
              c10::toString(mask.dtype()));
  EMBER_CHECK(mask.device() == q.device(), "{}: expected attn_mask on {}, got {}", op, q.device().str(),
              mask.device().str());
  const std::vector<int64_t> full{d.B, d.H, d.L, d.S};
  bool fits = mask.dim() <= 4;
  for (int64_t i = 1; fits && i <= mask.dim(); ++i) {
    const int64_t size = mask.size(-i);
    fits = size == 1 || size == full[4 - i];
  }
  EMBER_CHECK(fits, "{}: attn_mask of shape {} cannot be broadcast to the attention's shape {}", op,
              c10::str_sizes(mask.sizes()), c10::str_sizes(full));
  Tensor additive = mask;
  if (mask.dtype() == ScalarType::Bool) {
    additive = ember::zeros(mask.sizes(), q.dtype(), q.device())
                   .masked_fill_(mask.logical_not(), -std::numeric_limits<double>::infinity());
  }
  if (additive.dim() > 0 && additive.size(-1) != 1 && additive.stride(-1) != 1) additive = additive.contiguous();
  return additive.expand(full);
}

// BLAS reads rows of unit stride at least as far apart as they are long.
Tensor blas_rows(const Tensor& t) {
  const bool usable = t.stride(3) == 1 && t.stride(2) >= std::max<int64_t>(t.size(3), 1);
  return usable ? t : t.contiguous();
}

// One head's [rows, cols] matrix of a 4-D tensor, with its row stride.
template <typename T>
struct HeadRows {
  T* base;
  int64_t batch_stride, head_stride, row_stride;

  HeadRows(const Tensor& t)  // NOLINT: made from the tensors it reads
      : base(static_cast<T*>(t.data_ptr())), batch_stride(t.stride(0)), head_stride(t.stride(1)),
        row_stride(t.stride(2)) {}
  T* at(int64_t b, int64_t h, int64_t row) const { return base + b * batch_stride + h * head_stride + row * row_stride; }
};

// The mask's entries for one row of scores, added to a block of them.
template <typename T>
struct MaskRows {
  const T* base = nullptr;
  int64_t sb = 0, sh = 0, sl = 0, ss = 0;

  explicit MaskRows(const Tensor& mask) {
    if (!mask.defined()) return;
    base = static_cast<const T*>(mask.data_ptr());
    sb = mask.stride(0), sh = mask.stride(1), sl = mask.stride(2), ss = mask.stride(3);
  }
  void add_to(T* scores, int64_t b, int64_t h, int64_t row, int64_t col0, int64_t n) const {
    if (!base) return;
    const T* m = base + b * sb + h * sh + row * sl + col0 * ss;
    if (ss == 1) {
      for (int64_t j = 0; j < n; ++j) scores[j] += m[j];
    } else {
      for (int64_t j = 0; j < n; ++j) scores[j] += m[j * ss];
    }
  }
};

// scores[rows, n] = scale * q_rows k_rows^T, then the mask and, for a causal
// attention, -inf right of the diagonal (query i sees keys j <= i).
template <typename T>
void block_scores(T* scores, const T* q, int64_t q_stride, const T* k, int64_t k_stride, int64_t rows, int64_t n,
                  int64_t features, T scale, const MaskRows<T>& mask, int64_t b, int64_t h, int64_t row0,
                  int64_t col0, bool causal) {
  if (features == 0) {
    std::fill(scores, scores + rows * n, T(0));
  } else {
    cpu::blas_gemm<T>(false, true, rows, n, features, scale, q, q_stride, k, k_stride, T(0), scores, n);
  }
  for (int64_t r = 0; r < rows; ++r) {
    T* row = scores + r * n;
    mask.add_to(row, b, h, row0 + r, col0, n);
    if (causal) {
      const int64_t first_hidden = std::max<int64_t>(row0 + r + 1 - col0, 0);
      for (int64_t j = first_hidden; j < n; ++j) row[j] = -std::numeric_limits<T>::infinity();
    }
  }
}

template <typename T>
void online_softmax_rows(T* s, int64_t rows, int64_t n, T* m, T* l, T* alpha) {
  if constexpr (std::is_same_v<T, float>) {
    cpu::online_softmax_rows_floats(s, rows, n, m, l, alpha);
  } else {
    for (int64_t r = 0; r < rows; ++r, s += n) {
      T m_new = m[r];
      for (int64_t i = 0; i < n; ++i) m_new = s[i] > m_new ? s[i] : m_new;
      if (m_new == -std::numeric_limits<T>::infinity()) {
        std::fill(s, s + n, T(0));
        alpha[r] = T(1);
        continue;
      }
      alpha[r] = std::exp(m[r] - m_new);
      T total = 0;
      for (int64_t i = 0; i < n; ++i) total += (s[i] = std::exp(s[i] - m_new));
      l[r] = l[r] * alpha[r] + total;
      m[r] = m_new;
    }
  }
}

template <typename T>
void exp_minus_rows(T* s, const T* lse, int64_t rows, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    cpu::exp_minus_rows_floats(s, lse, rows, n);
  } else {
    for (int64_t r = 0; r < rows; ++r, s += n) {
      const bool masked = lse[r] == -std::numeric_limits<T>::infinity();
      for (int64_t i = 0; i < n; ++i) s[i] = masked ? T(0) : std::exp(s[i] - lse[r]);
    }
  }
}

// Keys a block of queries [row0, row0 + rows) attends to: all, or up to the
// diagonal.
int64_t visible_keys(const Dims& d, int64_t row0, int64_t rows, bool causal) {
  return causal ? std::min(d.S, row0 + rows) : d.S;
}

template <typename T>
void attention_forward(const Dims& d, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                       bool causal, T scale, const Tensor& out, const Tensor& lse) {
  const HeadRows<const T> Q(q), K(k), V(v);
  const HeadRows<T> O(out), LSE(lse);
  const MaskRows<T> M(mask);
  const int64_t blocks = (d.L + kQueryBlock - 1) / kQueryBlock;
  const int64_t work_per_task = kQueryBlock * std::max<int64_t>(d.S, 1) * (d.E + d.Ev + 1);
  parallel_for(0, d.B * d.H * blocks, std::max<int64_t>(1, (int64_t{1} << 20) / work_per_task),
               [&](int64_t begin, int64_t end) {
    std::vector<T> scores(kQueryBlock * kKeyBlock), m(kQueryBlock), l(kQueryBlock), alpha(kQueryBlock);
    for (int64_t task = begin; task < end; ++task) {
      const int64_t bh = task / blocks, b = bh / d.H, h = bh % d.H;
      const int64_t row0 = (task % blocks) * kQueryBlock, rows = std::min(kQueryBlock, d.L - row0);
      T* o = O.at(b, h, row0);  // the block's output accumulates in place
      for (int64_t r = 0; r < rows; ++r) std::fill(o + r * O.row_stride, o + r * O.row_stride + d.Ev, T(0));
      std::fill(m.begin(), m.end(), -std::numeric_limits<T>::infinity());
      std::fill(l.begin(), l.end(), T(0));
      const int64_t keys = visible_keys(d, row0, rows, causal);
      for (int64_t col0 = 0; col0 < keys; col0 += kKeyBlock) {
        const int64_t n = std::min(kKeyBlock, keys - col0);
        block_scores<T>(scores.data(), Q.at(b, h, row0), Q.row_stride, K.at(b, h, col0), K.row_stride, rows, n, d.E,
                        scale, M, b, h, row0, col0, causal);
        online_softmax_rows<T>(scores.data(), rows, n, m.data(), l.data(), alpha.data());
        for (int64_t r = 0; r < rows; ++r) {
          if (alpha[r] == T(1)) continue;
          T* orow = o + r * O.row_stride;
          for (int64_t j = 0; j < d.Ev; ++j) orow[j] *= alpha[r];
        }
        if (d.Ev > 0) {
          cpu::blas_gemm<T>(false, false, rows, d.Ev, n, T(1), scores.data(), n, V.at(b, h, col0), V.row_stride,
                            T(1), o, O.row_stride);
        }
      }
      // Rows that saw no unmasked key give zeros (torch's safe softmax).
      T* lse_row = LSE.at(b, h, 0) + row0;
      for (int64_t r = 0; r < rows; ++r) {
        const bool seen = l[r] > T(0);
        const T inv = seen ? T(1) / l[r] : T(0);
        T* orow = o + r * O.row_stride;
        for (int64_t j = 0; j < d.Ev; ++j) orow[j] *= inv;
        lse_row[r] = seen ? m[r] + std::log(l[r]) : -std::numeric_limits<T>::infinity();
      }
    }
  });
}

// dV += P^T dO, dP = dO V^T, dS = P (dP - D) with D = rowsum(dO * O),
// dQ += scale dS K, dK += scale dS^T Q, one block at a time; one task per
// (batch, head) so that dK and dV have one writer.
template <typename T>
void attention_backward(const Dims& d, const Tensor& grad, const Tensor& q, const Tensor& k, const Tensor& v,
                        const Tensor& out, const Tensor& lse, const Tensor& mask, bool causal, T scale,
                        const Tensor& dq, const Tensor& dk, const Tensor& dv) {
  const HeadRows<const T> dO(grad), Q(q), K(k), V(v), O(out), LSE(lse);
  const HeadRows<T> dQ(dq), dK(dk), dV(dv);
  const MaskRows<T> M(mask);
  const int64_t work_per_task = std::max<int64_t>(d.L, 1) * std::max<int64_t>(d.S, 1) * (2 * d.E + 2 * d.Ev + 1);
  parallel_for(0, d.B * d.H, std::max<int64_t>(1, (int64_t{1} << 20) / work_per_task), [&](int64_t begin,
                                                                                         int64_t end) {
    std::vector<T> p(kQueryBlock * kKeyBlock), dp(kQueryBlock * kKeyBlock), rowdot(kQueryBlock);
    for (int64_t bh = begin; bh < end; ++bh) {
      const int64_t b = bh / d.H, h = bh % d.H;
      for (int64_t row0 = 0; row0 < d.L; row0 += kQueryBlock) {
        const int64_t rows = std::min(kQueryBlock, d.L - row0);
        const T* go = dO.at(b, h, row0);
        const T* o = O.at(b, h, row0);
        for (int64_t r = 0; r < rows; ++r) {
          T acc = 0;
          for (int64_t j = 0; j < d.Ev; ++j) acc += go[r * dO.row_stride + j] * o[r * O.row_stride + j];
          rowdot[r] = acc;
        }
        const int64_t keys = visible_keys(d, row0, rows, causal);
        for (int64_t col0 = 0; col0 < keys; col0 += kKeyBlock) {
          const int64_t n = std::min(kKeyBlock, keys - col0);
          block_scores<T>(p.data(), Q.at(b, h, row0), Q.row_stride, K.at(b, h, col0), K.row_stride, rows, n, d.E,
                          scale, M, b, h, row0, col0, causal);
          exp_minus_rows<T>(p.data(), LSE.at(b, h, 0) + row0, rows, n);
          if (d.Ev > 0) {
            cpu::blas_gemm<T>(true, false, n, d.Ev, rows, T(1), p.data(), n, go, dO.row_stride, T(1),
                              dV.at(b, h, col0), dV.row_stride);
            cpu::blas_gemm<T>(false, true, rows, n, d.Ev, T(1), go, dO.row_stride, V.at(b, h, col0), V.row_stride,
                              T(0), dp.data(), n);
          } else {
            std::fill(dp.begin(), dp.begin() + rows * n, T(0));
          }
          for (int64_t r = 0; r < rows; ++r) {
            T* ds = dp.data() + r * n;
            const T* pr = p.data() + r * n;
            for (int64_t j = 0; j < n; ++j) ds[j] = pr[j] * (ds[j] - rowdot[r]);
          }
          if (d.E > 0) {
            cpu::blas_gemm<T>(false, false, rows, d.E, n, scale, dp.data(), n, K.at(b, h, col0), K.row_stride, T(1),
                              dQ.at(b, h, row0), dQ.row_stride);
            cpu::blas_gemm<T>(true, false, n, d.E, rows, scale, dp.data(), n, Q.at(b, h, row0), Q.row_stride, T(1),
                              dK.at(b, h, col0), dK.row_stride);
          }
        }
      }
    }
  });
}

template <typename F>
void visit_attention_type(ScalarType t, F&& f) {
  if (t == ScalarType::Double) return f(c10::type_tag<double>{});
  return f(c10::type_tag<float>{});
}

double softmax_scale(const Dims& d, std::optional<double> scale) {
  return scale ? *scale : 1.0 / std::sqrt(static_cast<double>(d.E));
}

}  // namespace

std::tuple<Tensor, Tensor> _scaled_dot_product_flash_attention_for_cpu(const Tensor& query, const Tensor& key,
                                                                       const Tensor& value, double dropout_p,
                                                                       bool is_causal,
                                                                       const std::optional<Tensor>& attn_mask,
                                                                       std::optional<double> scale) {
  const Dims d = check_operands(kForward, query, key, value, dropout_p);
  const Tensor mask = additive_mask(kForward, attn_mask, query, d);
  // The output is laid out [B, L, H, Ev] and returned as its [B, H, L, Ev]
  // view, so that merging the heads back (transpose(1, 2).reshape) copies nothing.
  Tensor out = ember::empty({d.B, d.L, d.H, d.Ev}, query.dtype(), query.device()).transpose(1, 2);
  Tensor lse = ember::empty({d.B, d.H, d.L}, query.dtype(), query.device());
  if (query.is_meta() || d.B * d.H * d.L == 0) return {out, lse};
  const Tensor q = blas_rows(query), k = blas_rows(key), v = blas_rows(value);
  const Tensor lse4 = lse.unsqueeze(2);  // [B, H, 1, L]: HeadRows reads one row per head
  visit_attention_type(query.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    attention_forward<T>(d, q, k, v, mask, is_causal, static_cast<T>(softmax_scale(d, scale)), out, lse4);
  });
  return {out, lse};
}

std::tuple<Tensor, Tensor, Tensor> _scaled_dot_product_flash_attention_for_cpu_backward(
    const Tensor& grad_out, const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& out,
    const Tensor& logsumexp, double dropout_p, bool is_causal, const std::optional<Tensor>& attn_mask,
    std::optional<double> scale) {
  const Dims d = check_operands(kBackward, query, key, value, dropout_p);
  const std::vector<int64_t> out_shape{d.B, d.H, d.L, d.Ev}, lse_shape{d.B, d.H, d.L};
  EMBER_CHECK(grad_out.sizes() == IntArrayRef(out_shape) && out.sizes() == IntArrayRef(out_shape),
              "{}: expected grad_out and out of shape {}, got {} and {}", kBackward, c10::str_sizes(out_shape),
              c10::str_sizes(grad_out.sizes()), c10::str_sizes(out.sizes()));
  EMBER_CHECK(logsumexp.sizes() == IntArrayRef(lse_shape), "{}: expected logsumexp of shape {}, got {}", kBackward,
              c10::str_sizes(lse_shape), c10::str_sizes(logsumexp.sizes()));
  EMBER_CHECK(grad_out.dtype() == query.dtype() && out.dtype() == query.dtype() &&
                  logsumexp.dtype() == query.dtype(),
              "{}: expected grad_out, out and logsumexp of dtype {}", kBackward, c10::toString(query.dtype()));
  const Tensor mask = additive_mask(kBackward, attn_mask, query, d);
  Tensor dq = ember::zeros(query.sizes(), query.dtype(), query.device());
  Tensor dk = ember::zeros(key.sizes(), key.dtype(), key.device());
  Tensor dv = ember::zeros(value.sizes(), value.dtype(), value.device());
  if (query.is_meta() || d.B * d.H * d.L * d.S == 0) return {dq, dk, dv};
  const Tensor q = blas_rows(query), k = blas_rows(key), v = blas_rows(value), go = blas_rows(grad_out),
               o = blas_rows(out);
  const Tensor lse4 = logsumexp.contiguous().unsqueeze(2);
  visit_attention_type(query.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    attention_backward<T>(d, go, q, k, v, o, lse4, mask, is_causal, static_cast<T>(softmax_scale(d, scale)), dq, dk,
                          dv);
  });
  return {dq, dk, dv};
}

}  // namespace ember::native
