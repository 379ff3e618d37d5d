// The autocast policy of every op torch 2.13 autocasts, on CPU and on CUDA
// (checked against torch by test/python/test_autocast.py). An op this table
// does not name is left alone on both.

#include <aten/autocast/AutocastPolicies.h>

#include <c10/util/Exception.h>

#include <string>
#include <unordered_map>

namespace ember::autocast {
namespace {

constexpr CastPolicy kNone = CastPolicy::None;
constexpr CastPolicy kLow = CastPolicy::LowerPrecision;
constexpr CastPolicy kF32 = CastPolicy::Float32;
constexpr CastPolicy kPromote = CastPolicy::Promote;
constexpr CastPolicy kBanned = CastPolicy::Banned;

// {op, CPU policy, CUDA policy}
const std::vector<PolicyRow> kTable = {
    // Matrix products and convolutions: where lower precision pays.
    {"mm", kLow, kLow},
    {"bmm", kLow, kLow},
    {"matmul", kLow, kLow},
    {"addmm", kLow, kLow},
    {"_addmm_activation", kLow, kNone},
    {"addbmm", kLow, kLow},
    {"baddbmm", kLow, kLow},
    {"addmv", kNone, kLow},
    {"addr", kNone, kLow},
    {"mv", kNone, kLow},
    {"einsum", kNone, kLow},
    {"chain_matmul", kNone, kLow},
    {"linalg_multi_dot", kNone, kLow},
    {"linalg_vecdot", kLow, kLow},
    {"linear", kLow, kLow},
    {"prelu", kLow, kLow},
    {"conv1d", kLow, kLow},
    {"conv1d.padding", kLow, kNone},
    {"conv2d", kLow, kLow},
    {"conv2d.padding", kLow, kNone},
    {"conv3d", kLow, kLow},
    {"conv3d.padding", kLow, kNone},
    {"conv_tbc", kLow, kLow},
    {"conv_transpose1d", kLow, kLow},
    {"conv_transpose2d.input", kLow, kLow},
    {"conv_transpose3d.input", kLow, kLow},
    {"convolution", kNone, kLow},
    {"_convolution", kNone, kLow},
    {"_convolution.deprecated", kLow, kLow},
    {"cudnn_convolution", kNone, kLow},
    {"cudnn_convolution_transpose", kNone, kLow},
    {"scaled_dot_product_attention", kLow, kLow},
    {"_scaled_dot_product_flash_attention", kNone, kLow},
    {"_native_multi_head_attention", kLow, kNone},
    {"mkldnn_rnn_layer", kLow, kNone},
    {"lstm_cell", kNone, kLow},
    {"gru_cell", kNone, kLow},
    {"rnn_tanh_cell", kNone, kLow},
    {"rnn_relu_cell", kNone, kLow},
    {"_thnn_fused_lstm_cell", kNone, kLow},
    {"_thnn_fused_gru_cell", kNone, kLow},

    // Pointwise math that loses range or accuracy in 16 bits (CUDA only).
    {"acos", kNone, kF32},
    {"asin", kNone, kF32},
    {"cosh", kNone, kF32},
    {"sinh", kNone, kF32},
    {"tan", kNone, kF32},
    {"erfinv", kNone, kF32},
    {"exp", kNone, kF32},
    {"expm1", kNone, kF32},
    {"log", kNone, kF32},
    {"log10", kNone, kF32},
    {"log2", kNone, kF32},
    {"log1p", kNone, kF32},
    {"reciprocal", kNone, kF32},
    {"rsqrt", kNone, kF32},
    {"pow.Scalar", kNone, kF32},
    {"pow.Tensor_Scalar", kNone, kF32},
    {"pow.Tensor_Tensor", kNone, kF32},
    {"softplus", kNone, kF32},

    // Reductions, normalizations and distances.
    {"sum", kNone, kF32},
    {"sum.dim_IntList", kNone, kF32},
    {"prod", kF32, kF32},
    {"prod.dim_int", kF32, kF32},
    {"cumsum", kNone, kF32},
    {"cumprod", kNone, kF32},
    {"logsumexp", kNone, kF32},
    {"softmax.int", kNone, kF32},
    {"log_softmax.int", kNone, kF32},
    {"layer_norm", kNone, kF32},
    {"native_layer_norm", kNone, kF32},
    {"group_norm", kNone, kF32},
    {"rms_norm", kNone, kF32},
    {"norm.Scalar", kNone, kF32},
    {"norm.ScalarOpt_dim", kNone, kF32},
    {"frobenius_norm.dim", kNone, kF32},
    {"nuclear_norm", kNone, kF32},
    {"nuclear_norm.dim", kNone, kF32},
    {"linalg_vector_norm", kNone, kF32},
    {"linalg_matrix_norm", kNone, kF32},
    {"linalg_matrix_norm.str_ord", kNone, kF32},
    {"renorm", kNone, kF32},
    {"cosine_similarity", kNone, kF32},
    {"dist", kNone, kF32},
    {"pdist", kNone, kF32},
    {"cdist", kF32, kF32},
    {"trace", kF32, kNone},
    {"quantile", kF32, kNone},
    {"quantile.scalar", kF32, kNone},
    {"nanquantile", kF32, kNone},
    {"nanquantile.scalar", kF32, kNone},

    // Losses.
    {"cross_entropy_loss", kF32, kNone},
    {"nll_loss", kF32, kF32},
    {"nll_loss2d", kF32, kF32},
    {"mse_loss", kF32, kF32},
    {"l1_loss", kF32, kF32},
    {"smooth_l1_loss", kF32, kF32},
    {"huber_loss", kF32, kF32},
    {"kl_div", kF32, kF32},
    {"poisson_nll_loss", kF32, kF32},
    {"cosine_embedding_loss", kF32, kF32},
    {"hinge_embedding_loss", kF32, kF32},
    {"margin_ranking_loss", kF32, kF32},
    {"soft_margin_loss", kF32, kF32},
    {"triplet_margin_loss", kF32, kF32},
    {"multi_margin_loss", kF32, kF32},
    {"multilabel_margin_loss", kF32, kF32},
    {"multilabel_margin_loss_forward", kF32, kNone},
    {"binary_cross_entropy_with_logits", kF32, kF32},
    {"binary_cross_entropy", kF32, kBanned},
    {"ctc_loss.IntList", kF32, kNone},
    {"ctc_loss.Tensor", kF32, kNone},

    // Pooling, padding, sampling and upsampling.
    {"avg_pool3d", kF32, kNone},
    {"max_pool3d", kF32, kNone},
    {"adaptive_avg_pool3d", kF32, kNone},
    {"adaptive_max_pool3d", kF32, kNone},
    {"fractional_max_pool2d", kF32, kNone},
    {"fractional_max_pool3d", kF32, kNone},
    {"max_unpool2d", kF32, kNone},
    {"max_unpool3d", kF32, kNone},
    {"reflection_pad1d", kF32, kNone},
    {"reflection_pad2d", kF32, kNone},
    {"replication_pad1d", kF32, kNone},
    {"replication_pad2d", kF32, kNone},
    {"replication_pad3d", kF32, kNone},
    {"grid_sampler", kF32, kPromote},
    {"grid_sampler_2d", kF32, kNone},
    {"grid_sampler_3d", kF32, kNone},
    {"_grid_sampler_2d_cpu_fallback", kF32, kNone},
    {"upsample_nearest1d", kNone, kF32},
    {"upsample_nearest2d", kNone, kF32},
    {"upsample_nearest3d", kNone, kF32},
    {"_upsample_nearest_exact1d", kNone, kF32},
    {"_upsample_nearest_exact2d", kNone, kF32},
    {"_upsample_nearest_exact3d", kNone, kF32},
    {"upsample_linear1d", kNone, kF32},
    {"upsample_bilinear2d", kNone, kF32},
    {"upsample_trilinear3d", kNone, kF32},
    {"upsample_bicubic2d", kNone, kF32},
    {"_upsample_bilinear2d_aa", kNone, kF32},
    {"_upsample_bicubic2d_aa", kNone, kF32},

    // Linear algebra, spectra and complex views.
    {"inverse", kF32, kNone},
    {"pinverse", kF32, kNone},
    {"cholesky", kF32, kNone},
    {"cholesky_inverse", kF32, kNone},
    {"cholesky_solve", kF32, kNone},
    {"lu_solve", kF32, kNone},
    {"_lu_with_info", kF32, kNone},
    {"triangular_solve", kF32, kNone},
    {"geqrf", kF32, kNone},
    {"orgqr", kF32, kNone},
    {"ormqr", kF32, kNone},
    {"qr", kF32, kNone},
    {"svd", kF32, kNone},
    {"linalg_cholesky", kF32, kNone},
    {"linalg_cholesky_ex", kF32, kNone},
    {"linalg_cond", kF32, kNone},
    {"linalg_cond.p_str", kF32, kNone},
    {"linalg_eig", kF32, kNone},
    {"linalg_eigh", kF32, kNone},
    {"linalg_eigvals", kF32, kNone},
    {"linalg_eigvalsh", kF32, kNone},
    {"linalg_householder_product", kF32, kNone},
    {"linalg_inv", kF32, kNone},
    {"linalg_inv_ex", kF32, kNone},
    {"linalg_lstsq", kF32, kNone},
    {"linalg_matrix_rank", kF32, kNone},
    {"linalg_matrix_rank.atol_rtol_float", kF32, kNone},
    {"linalg_matrix_rank.atol_rtol_tensor", kF32, kNone},
    {"linalg_matrix_rank.tol_tensor", kF32, kNone},
    {"linalg_qr", kF32, kNone},
    {"linalg_solve", kF32, kNone},
    {"linalg_svd", kF32, kNone},
    {"linalg_svdvals", kF32, kNone},
    {"linalg_tensorinv", kF32, kNone},
    {"linalg_tensorsolve", kF32, kNone},
    {"fft_fft", kF32, kNone},
    {"fft_ifft", kF32, kNone},
    {"fft_fft2", kF32, kNone},
    {"fft_ifft2", kF32, kNone},
    {"fft_fftn", kF32, kNone},
    {"fft_ifftn", kF32, kNone},
    {"fft_rfft", kF32, kNone},
    {"fft_irfft", kF32, kNone},
    {"fft_rfft2", kF32, kNone},
    {"fft_irfft2", kF32, kNone},
    {"fft_rfftn", kF32, kNone},
    {"fft_irfftn", kF32, kNone},
    {"fft_hfft", kF32, kNone},
    {"fft_ihfft", kF32, kNone},
    {"stft", kF32, kNone},
    {"stft.center", kF32, kNone},
    {"polar", kF32, kNone},
    {"view_as_complex", kF32, kNone},
    {"fake_quantize_per_tensor_affine", kF32, kNone},

    // Ops that mix their inputs: run in the widest input dtype.
    {"cat", kPromote, kNone},
    {"stack", kPromote, kNone},
    {"index_copy", kPromote, kNone},
    {"index_put", kNone, kPromote},
    {"scatter_add", kNone, kPromote},
    {"addcmul", kNone, kPromote},
    {"addcdiv", kNone, kPromote},
    {"atan2", kNone, kPromote},
    {"cross", kNone, kPromote},
    {"dot", kNone, kPromote},
    {"vdot", kNone, kPromote},
    {"tensordot", kNone, kPromote},
    {"bilinear", kNone, kPromote},
};

}  // namespace

std::string_view toString(CastPolicy p) {
  switch (p) {
    case CastPolicy::None: return "none";
    case CastPolicy::LowerPrecision: return "lower_precision_fp";
    case CastPolicy::Float32: return "fp32";
    case CastPolicy::Promote: return "promote";
    case CastPolicy::Banned: return "banned";
  }
  return "none";
}

const std::vector<PolicyRow>& policy_table() { return kTable; }

void check_not_banned(std::string_view op, DeviceType device_type) {
  if (policy_for(op, device_type) != CastPolicy::Banned) return;
  const std::string what = op == "binary_cross_entropy"
                               ? "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are"
                               : std::string(op) + " is";
  EMBER_CHECK(false,
              "{} unsafe to autocast.\n"
              "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
              "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
              "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
              "safe to autocast.",
              what);
}

CastPolicy policy_for(std::string_view op, DeviceType device_type) {
  static const auto* by_name = [] {
    auto* m = new std::unordered_map<std::string_view, const PolicyRow*>();
    for (const PolicyRow& row : kTable) m->emplace(row.op, &row);
    return m;
  }();
  const auto found = by_name->find(op);
  if (found == by_name->end()) return CastPolicy::None;
  switch (device_type) {
    case DeviceType::CPU: return found->second->cpu;
    case DeviceType::CUDA: return found->second->cuda;
    case DeviceType::Meta:
    case DeviceType::PrivateUse1:
    case DeviceType::Lazy: break;
  }
  return CastPolicy::None;
}

}  // namespace ember::autocast
