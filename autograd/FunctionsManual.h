#pragma once
// Gradient formulas too long for a line of derivatives.yaml. Each is
// written in terms of differentiable operators, so the gradients they
// return are themselves differentiable (double backward).

#include <aten/Functions.h>
#include <autograd/Node.h>

#include <array>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

namespace ember::autograd::manual {

// Fills undefined incoming gradients with zeros; false when none is defined
// (then every input gradient is undefined too).
bool materialize_grads(const Node& node, variable_list& grads);
bool any_should_compute(const Node& node, size_t start, size_t count);

// Sums `grad` down to `shape` (the inverse of broadcasting).
Tensor sum_to(const Tensor& grad, IntArrayRef shape);
Tensor maybe_multiply(const Tensor& t, const Scalar& s);
// Reverses `t` along `dim`.
Tensor flip(const Tensor& t, int64_t dim);

std::vector<std::vector<int64_t>> to_args_sizes(c10::ArrayRef<Tensor> tensors);
std::vector<ScalarType> to_args_scalartypes(c10::ArrayRef<Tensor> tensors);

// Views.
Tensor permute_backwards(const Tensor& grad, IntArrayRef dims);
Tensor select_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, int64_t index);
Tensor diagonal_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t offset, int64_t dim1, int64_t dim2);
Tensor running_extreme_backward(const Tensor& grad, const Tensor& self, const Tensor& indices, int64_t dim);
Tensor logcumsumexp_backward(const Tensor& grad, const Tensor& self, int64_t dim);
Tensor slice_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step);
Tensor unfold_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, int64_t size, int64_t step);
Tensor as_strided_backward(const Tensor& grad, IntArrayRef input_sizes, IntArrayRef input_strides,
                           int64_t input_offset, IntArrayRef sizes, IntArrayRef strides,
                           std::optional<int64_t> storage_offset);

// Pointwise.
Tensor gelu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                            std::string_view approximate);
// The second derivatives of the activations with backward kernels of their own.
Tensor elu_double_backward(const Tensor& grad, const Tensor& grad_output, const Scalar& alpha, const Scalar& scale,
                           const Scalar& input_scale, bool is_result, const Tensor& self_or_result);
Tensor hardswish_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self);
Tensor softplus_double_backward(const Tensor& grad, const Tensor& self, const Scalar& beta, const Scalar& threshold);
Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent);
Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Scalar& exponent);
Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result);
Tensor extremum_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool is_max);
Tensor copysign_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
Tensor sinc_backward(const Tensor& grad, const Tensor& self);
Tensor sgn_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
Tensor angle_backward(const Tensor& grad, const Tensor& self);
Tensor fft_r2c_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization, bool onesided,
                        int64_t last_dim_size);
Tensor fft_c2r_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization);
Tensor logit_backward(const Tensor& grad, const Tensor& self, std::optional<double> eps);
Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max);
Tensor clamp_backward(const Tensor& grad, const Tensor& self, const Tensor& min, const Tensor& max);
// clamp(x, min, max) = minimum(maximum(x, min), max): which bound's gradient
// an element carries (max wins where min > max, as in torch).
Tensor clamp_bound_backward(const Tensor& grad, const Tensor& self, const Tensor& min, const Tensor& max, bool for_min);
Tensor div_rounding_backward(const Tensor& grad, const Tensor& self, const Tensor& other,
                             std::optional<std::string_view> rounding_mode, bool for_self);

// Reductions.
Tensor sum_backward(const Tensor& grad, IntArrayRef input_sizes, std::optional<IntArrayRef> dim, bool keepdim);
Tensor mean_backward(const Tensor& grad, IntArrayRef input_sizes, std::optional<IntArrayRef> dim, bool keepdim);
Tensor prod_backward(const Tensor& grad, const Tensor& self, std::optional<int64_t> dim, bool keepdim);
Tensor amax_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim, bool keepdim);
Tensor norm_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& p, const Tensor& result,
                     IntArrayRef dim, bool keepdim);
Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
Tensor value_selecting_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef input_sizes,
                                bool keepdim);
Tensor softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim);
Tensor log_softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim);
Tensor cumsum_backward(const Tensor& grad, int64_t dim);
Tensor cumprod_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& result);

// Joining and indexing.
std::vector<Tensor> cat_backward(const Tensor& grad, const std::vector<std::vector<int64_t>>& sizes, int64_t dim);
// t at the start of a zero tensor of `sizes` (t no larger in any dim).
Tensor zero_padded(const Tensor& t, IntArrayRef sizes);
// scatter's src may be larger than index: elements index does not reach get 0.
Tensor gather_to_source(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef src_sizes);
// scatter_reduce's gradients (self, src) for each reduction: a product's
// through the exclusive product (zeros handled without dividing by them),
// amax/amin's shared evenly among the values equal to the result.
std::tuple<Tensor, Tensor> scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                   const Tensor& index, const Tensor& src, std::string_view reduce,
                                                   bool include_self, const Tensor& result,
                                                   std::array<bool, 2> grad_input_mask);
Tensor index_select_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, const Tensor& index);
// The weight gradient of an embedding lookup: each row's gradients summed,
// none for padding_idx, divided by the row's count in the batch if asked.
// A sparse gradient (one entry per looked-up index, padding_idx left out)
// when `sparse`; a strided one otherwise.
Tensor embedding_backward(const Tensor& grad, const Tensor& indices, IntArrayRef weight_sizes, int64_t padding_idx,
                          bool scale_grad_by_freq, bool sparse);
// Layout-aware gradients (FunctionsManualSparse.cpp): a sparse input gets a
// gradient with its own sparsity pattern, as torch gives it.
Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat2, const Tensor& self);
Tensor mm_mat2_backward(const Tensor& grad, const Tensor& self, const Tensor& mat2);
// embedding's sparse weight gradient from the looked-up rows' gradients
// (already scaled by frequency where asked).
Tensor embedding_sparse_backward(Tensor rows, Tensor flat_indices, IntArrayRef weight_sizes, int64_t padding_idx);
// The gradient of sparse_coo_tensor's values: grad read at each index.
Tensor sparse_values_backward(const Tensor& grad, const Tensor& indices);
// The gradient of the strided self of self.sparse_mask(mask).
Tensor sparse_mask_backward(const Tensor& grad, const Tensor& mask);
Tensor index_backward(const Tensor& grad, IntArrayRef input_sizes, const std::vector<std::optional<Tensor>>& indices);

// cross_entropy's fused rows: the backward kernel, or under create_graph
// (softmax - one_hot) * scale from differentiable operators.
Tensor cross_entropy_rows_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                   const Tensor& logsumexp, int64_t reduction, int64_t ignore_index);

// scaled_dot_product_attention's fused CPU kernel: its backward kernel, or
// under create_graph the same gradient from differentiable operators
// (softmax recomputed from the scores).
std::tuple<Tensor, Tensor, Tensor> flash_attention_backward(const Tensor& grad, const Tensor& query,
                                                            const Tensor& key, const Tensor& value,
                                                            const Tensor& output, const Tensor& logsumexp,
                                                            double dropout_p, bool is_causal,
                                                            const std::optional<Tensor>& attn_mask,
                                                            std::optional<double> scale);

// Normalization. Runs the fused kernel, or under create_graph composes
// differentiable operators (recomputing the statistics from input) so that
// the gradient can be differentiated again.
std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad, const Tensor& input,
                                                       IntArrayRef normalized_shape, const Tensor& mean,
                                                       const Tensor& rstd, const std::optional<Tensor>& weight,
                                                       const std::optional<Tensor>& bias, double eps,
                                                       std::array<bool, 3> mask);

std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad, const Tensor& input,
                                                       const std::optional<Tensor>& weight,
                                                       const std::optional<Tensor>& running_mean,
                                                       const std::optional<Tensor>& running_var,
                                                       const Tensor& save_mean, const Tensor& save_invstd,
                                                       bool training, double eps, std::array<bool, 3> mask);

// Recurrent cells. The fused kernel recomputes the gates from the saved
// projections; under create_graph the same formulas are composed from
// differentiable operators instead. Returns the gradients of (input_gates,
// hidden_gates, state, input_bias, hidden_bias).
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> lstm_cell_backward(
    const Tensor& grad_hy, const Tensor& grad_cy, const Tensor& input_gates, const Tensor& hidden_gates,
    const Tensor& cx, const Tensor& cy, const std::optional<Tensor>& input_bias,
    const std::optional<Tensor>& hidden_bias, std::array<bool, 5> mask);
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> gru_cell_backward(
    const Tensor& grad_hy, const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& hx,
    const std::optional<Tensor>& input_bias, const std::optional<Tensor>& hidden_bias, std::array<bool, 5> mask);

// A whole recurrence (_rnn_recurrence): the BPTT kernel, or under
// create_graph the gradient of its step-by-step differentiable form.
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor> rnn_recurrence_backward(
    const Tensor& grad_output, const Tensor& grad_hy, const Tensor& grad_cy, const Tensor& input_gates,
    const Tensor& hx, const std::optional<Tensor>& cx, const Tensor& w_hh, const std::optional<Tensor>& b_ih,
    const std::optional<Tensor>& b_hh, const std::optional<Tensor>& w_hr, int64_t mode, bool reverse,
    const Tensor& output, const Tensor& workspace, std::array<bool, 7> mask);

// One LSTM layer on oneDNN (_onednn_lstm_layer): the backward primitive, or
// under create_graph the gradient of the layer recomputed from
// differentiable ops. Returns the gradients of (input, hx, cx, w_ih, w_hh,
// b_ih, b_hh).
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor> onednn_lstm_layer_backward(
    const Tensor& grad_output, const Tensor& grad_hy, const Tensor& grad_cy, const Tensor& input, const Tensor& hx,
    const Tensor& cx, const Tensor& w_ih, const Tensor& w_hh, const std::optional<Tensor>& b_ih,
    const std::optional<Tensor>& b_hh, bool reverse, const Tensor& output, const Tensor& hy, const Tensor& cy,
    const Tensor& workspace, std::array<bool, 7> mask);

// Convolution and pooling.
std::tuple<Tensor, Tensor, Tensor> conv2d_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                   int64_t groups, std::array<bool, 3> mask);
Tensor max_pool2d_backward(const Tensor& grad, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, IntArrayRef dilation, bool ceil_mode);
Tensor avg_pool2d_backward(const Tensor& grad, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override);

// Linear algebra (FunctionsManualLinalg.cpp).
Tensor cholesky_backward(const Tensor& grad, bool upper, const Tensor& factor);
std::tuple<Tensor, Tensor> linalg_solve_backward(const Tensor& grad, const Tensor& A, const Tensor& X, bool left,
                                                 std::array<bool, 2> mask);
Tensor det_backward(const Tensor& grad, const Tensor& A, const Tensor& det);
Tensor slogdet_backward(const Tensor& grad_sign, const Tensor& grad_logabsdet, const Tensor& A, const Tensor& sign);
Tensor eig_backward(const Tensor& grad_values, const Tensor& grad_vectors, const Tensor& values,
                    const Tensor& vectors, bool hermitian);
Tensor lu_factor_ex_backward(const Tensor& grad, const Tensor& LU, const Tensor& pivots);
Tensor svd_backward(const Tensor& grad_U, const Tensor& grad_S, const Tensor& grad_Vh, const Tensor& U,
                    const Tensor& S, const Tensor& Vh, bool full_matrices);
Tensor qr_backward(const Tensor& grad_Q, const Tensor& grad_R, const Tensor& Q, const Tensor& R,
                   std::string_view mode);
std::tuple<Tensor, Tensor> solve_triangular_backward(const Tensor& grad, const Tensor& A, const Tensor& X, bool upper,
                                                     bool left, bool unitriangular, std::array<bool, 2> mask);

}  // namespace ember::autograd::manual
