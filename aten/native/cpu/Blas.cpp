#include <aten/native/cpu/Blas.h>

#include <aten/native/cpu/CpuCapability.h>

#include <c10/util/Exception.h>

#include <aten/native/OneDNN.h>
#include <aten/Parallel.h>

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>

#include <string>
#include <unordered_map>

namespace ember::native::cpu {

// Measured single-threaded (sgemm in GFLOP/s, AMD EPYC Zen 4, OpenBLAS 0.3.21,
// oneDNN 2.6): with AVX-512, OpenBLAS wins on small cubes (64^3: 115 vs 99)
// and oneDNN from about 100^3 on (256^3: 113 vs 104; thin products such as
// 8x512x512 or 1024x1024x32: 88 vs 44 and 105 vs 74). With both held to AVX2
// (OPENBLAS_CORETYPE=Haswell, ONEDNN_MAX_CPU_ISA=AVX2) oneDNN is ahead from
// 32^3 on (64^3: 100 vs 91). MKL 2026.2 was measured beside them and was
// never the fastest on this CPU.
bool sgemm_uses_onednn(int64_t m, int64_t n, int64_t k) {
  static const double min_work = cpu_capability() == CpuCapability::AVX512 ? 1 << 20 : 1 << 15;
  return static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) >= min_work;
}

// Measured single-threaded for linear's [2048,64] x [64,256]^T + bias: 612 us
// as one matmul primitive against 677 for the bias copied into C and an
// sgemm accumulating onto it (647 for the sgemm alone).
void onednn_gemm_bias(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* A, int64_t lda,
                      const float* B, int64_t ldb, const float* bias, float* C, int64_t ldc) {
  using dnnl::memory;
  const auto f32 = memory::data_type::f32;
  // A transposed operand is the other one's row-major storage read by columns.
  const memory::desc a({m, k}, f32, ta ? memory::dims{1, lda} : memory::dims{lda, 1});
  const memory::desc b({k, n}, f32, tb ? memory::dims{1, ldb} : memory::dims{ldb, 1});
  const memory::desc bias_d({1, n}, f32, memory::dims{n, 1});
  const memory::desc c({m, n}, f32, memory::dims{ldc, 1});
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, bias_d, c), onednn::user_scratchpad(),
                                        onednn::cpu_engine());
  auto& engine = onednn::cpu_engine();
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(a, engine, const_cast<float*>(A))},
                                       {DNNL_ARG_WEIGHTS, memory(b, engine, const_cast<float*>(B))},
                                       {DNNL_ARG_BIAS, memory(bias_d, engine, const_cast<float*>(bias))},
                                       {DNNL_ARG_DST, memory(c, engine, C)}};
  onednn::Scratch scratch;
  if (pd.scratchpad_desc().get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, scratch.make(pd.scratchpad_desc()));
  dnnl::stream s(engine);
  dnnl::matmul(pd).execute(s, args);
  s.wait();
}

namespace {
std::string lowp_gemm_kernel_probe(ScalarType t) {
  using dnnl::memory;
  const auto dt = t == ScalarType::BFloat16 ? memory::data_type::bf16 : memory::data_type::f16;
  const memory::desc d({64, 64}, dt, memory::format_tag::ab);
  try {
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(d, d, d), onednn::user_scratchpad(),
                                          onednn::cpu_engine());
    const std::string kernel = pd.impl_info_str();
    return kernel.find("ref") == std::string::npos ? kernel : "";
  } catch (const dnnl::error&) {
    return "";
  }
}
}  // namespace

// Measured on an Intel Xeon with AMX and AVX512_BF16 (oneDNN 2.6), 1024^3
// single-threaded: bfloat16 in 1.2 ms against float32's 8.5.
bool onednn_lowp_gemm(ScalarType t, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const void* A,
                      int64_t lda, const void* B, int64_t ldb, float beta, const void* bias, void* C, int64_t ldc,
                      int64_t batch, int64_t stride_a, int64_t stride_b, int64_t stride_c) {
  using dnnl::memory;
  EMBER_CHECK(t == ScalarType::BFloat16 || t == ScalarType::Half, "onednn_lowp_gemm: {} is not a 16-bit float",
              c10::toString(t));
  if (onednn::lowp_gemm_kernel(t).empty()) return false;
  const auto dt = t == ScalarType::BFloat16 ? memory::data_type::bf16 : memory::data_type::f16;
  // A transposed operand is the other one's row-major storage read by columns.
  auto matrices = [batch, dt](int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride, int64_t stride) {
    return batch == 1 ? memory::desc({rows, cols}, dt, memory::dims{row_stride, col_stride})
                      : memory::desc({batch, rows, cols}, dt, memory::dims{stride, row_stride, col_stride});
  };
  const memory::desc a = ta ? matrices(m, k, 1, lda, stride_a) : matrices(m, k, lda, 1, stride_a);
  const memory::desc b = tb ? matrices(k, n, 1, ldb, stride_b) : matrices(k, n, ldb, 1, stride_b);
  const memory::desc bias_d = bias ? matrices(1, n, n, 1, 0) : memory::desc();
  const memory::desc c = matrices(m, n, ldc, 1, stride_c);
  dnnl::primitive_attr attr = onednn::user_scratchpad();
  if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
  if (beta != 0.0f) {  // C is only read when beta asks for it (it may hold garbage)
    dnnl::post_ops sum;
    sum.append_sum(beta);
    attr.set_post_ops(sum);
  }
  auto& engine = onednn::cpu_engine();
  dnnl::matmul::primitive_desc pd;
  try {
    pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, bias_d, c), attr, engine);
  } catch (const dnnl::error&) {
    return false;
  }
  // oneDNN's reference kernels are slower than going through float32 by far.
  if (std::string(pd.impl_info_str()).find("ref") != std::string::npos) return false;
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(a, engine, const_cast<void*>(A))},
                                       {DNNL_ARG_WEIGHTS, memory(b, engine, const_cast<void*>(B))},
                                       {DNNL_ARG_DST, memory(c, engine, C)}};
  if (bias) args.emplace(DNNL_ARG_BIAS, memory(bias_d, engine, const_cast<void*>(bias)));
  onednn::Scratch scratch;
  if (pd.scratchpad_desc().get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, scratch.make(pd.scratchpad_desc()));
  dnnl::stream s(engine);
  dnnl::matmul(pd).execute(s, args);
  s.wait();
  return true;
}

namespace {

// OpenBLAS keeps to the calling thread: with its own threads, two pools would
// spin in sched_yield against each other between GEMMs.
void openblas_single_threaded() {
  static const bool once = (openblas_set_num_threads(1), true);
  (void)once;
}

CBLAS_TRANSPOSE op(bool t, bool c = false) {
  if (c) return t ? CblasConjTrans : CblasConjNoTrans;  // CblasConjNoTrans: OpenBLAS's extension
  return t ? CblasTrans : CblasNoTrans;
}

}  // namespace

template <>
void blas_gemm<float>(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                      const float* B, int64_t ldb, float beta, float* C, int64_t ldc, bool, bool) {
  if (sgemm_uses_onednn(m, n, k)) {
    // Inside Ember's parallel regions oneDNN keeps to the calling thread too.
    use_num_threads_on_this_thread();
    const dnnl_status_t status =
        dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    EMBER_CHECK(status == dnnl_success, "oneDNN sgemm failed with status {} for a {}x{}x{} product",
                static_cast<int>(status), m, n, k);
    return;
  }
  openblas_single_threaded();
  cblas_sgemm(CblasRowMajor, op(ta), op(tb), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <>
void blas_gemm<double>(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* A,
                       int64_t lda, const double* B, int64_t ldb, double beta, double* C, int64_t ldc, bool,
                       bool) {
  openblas_single_threaded();
  cblas_dgemm(CblasRowMajor, op(ta), op(tb), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <>
void blas_gemm<c10::complex<float>>(bool ta, bool tb, int64_t m, int64_t n, int64_t k, c10::complex<float> alpha,
                                    const c10::complex<float>* A, int64_t lda, const c10::complex<float>* B,
                                    int64_t ldb, c10::complex<float> beta, c10::complex<float>* C, int64_t ldc,
                                    bool ca, bool cb) {
  openblas_single_threaded();
  cblas_cgemm(CblasRowMajor, op(ta, ca), op(tb, cb), m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}

template <>
void blas_gemm<c10::complex<double>>(bool ta, bool tb, int64_t m, int64_t n, int64_t k, c10::complex<double> alpha,
                                     const c10::complex<double>* A, int64_t lda, const c10::complex<double>* B,
                                     int64_t ldb, c10::complex<double> beta, c10::complex<double>* C, int64_t ldc,
                                     bool ca, bool cb) {
  openblas_single_threaded();
  cblas_zgemm(CblasRowMajor, op(ta, ca), op(tb, cb), m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}

}  // namespace ember::native::cpu

namespace ember::native::onednn {

const std::string& lowp_gemm_kernel(ScalarType t) {
  static const std::string bf16 = cpu::lowp_gemm_kernel_probe(ScalarType::BFloat16);
  static const std::string f16 = cpu::lowp_gemm_kernel_probe(ScalarType::Half);
  static const std::string none;
  return t == ScalarType::BFloat16 ? bf16 : t == ScalarType::Half ? f16 : none;
}

}  // namespace ember::native::onednn
