// The CUDA gemm_stub: cuBLAS, loaded on first use with dlopen so that Ember
// imports on machines where cuBLAS is not installed (the Python package
// preloads it from the nvidia-cublas wheel when that is present).

#include <aten/Functions.h>
#include <aten/native/BlasOperand.h>
#include <aten/native/DeviceKernels.h>
#include <aten/native/cuda/CUDAContext.h>
#include <c10/cuda/CUDAFunctions.h>

#include <cublas_v2.h>
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <unordered_map>

namespace ember::native::cuda {

namespace {

struct CublasApi {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  decltype(&cublasDgemm_v2) dgemm = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;
};

const CublasApi& cublas() {
  static const CublasApi api = [] {
    // EMBER_CUBLAS_LIBRARY names the file; otherwise the loader's search
    // path (and any copy the Python package already loaded) decides.
    const char* configured = std::getenv("EMBER_CUBLAS_LIBRARY");
    const char* name = configured && *configured ? configured : "libcublas.so.13";
    void* lib = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
    EMBER_CHECK(lib != nullptr,
                "cuBLAS could not be loaded ({}): matrix products on CUDA need it. Install the nvidia-cublas wheel "
                "(pip install nvidia-cublas) or set EMBER_CUBLAS_LIBRARY to the path of libcublas.so.13",
                dlerror());
    CublasApi a;
    auto load = [&](auto& fn, const char* symbol) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, symbol));
      EMBER_CHECK(fn != nullptr, "cuBLAS ({}) has no symbol {}", name, symbol);
    };
    load(a.create, "cublasCreate_v2");
    load(a.set_stream, "cublasSetStream_v2");
    load(a.set_math_mode, "cublasSetMathMode");
    load(a.sgemm, "cublasSgemm_v2");
    load(a.dgemm, "cublasDgemm_v2");
    load(a.status_string, "cublasGetStatusString");
    return a;
  }();
  return api;
}

void check(cublasStatus_t status, const char* call) {
  EMBER_CHECK(status == CUBLAS_STATUS_SUCCESS, "CUDA error: {} in {}", cublas().status_string(status), call);
}

// One handle per device, made on first use (handles are not freed: cuBLAS
// may already be unloaded when static destructors run).
cublasHandle_t handle() {
  static std::mutex mutex;
  static std::unordered_map<int, cublasHandle_t> handles;
  const int device = c10::cuda::current_device();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = handles.find(device);
  if (it == handles.end()) {
    cublasHandle_t h = nullptr;
    check(cublas().create(&h), "cublasCreate");
    check(cublas().set_math_mode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    it = handles.emplace(device, h).first;
  }
  check(cublas().set_stream(it->second, current_stream()), "cublasSetStream");
  return it->second;
}

int to_int(int64_t v, const char* what) {
  EMBER_CHECK(v <= INT32_MAX, "addmm: {} = {} is too large for cuBLAS", what, v);
  return static_cast<int>(v);
}

// cuBLAS is column-major: row-major C = A @ B is column-major C^T = B^T A^T,
// and a row-major operand read as column-major is already its transpose.
void cuda_gemm(const Tensor& a, const Tensor& b, const Tensor& c, const Scalar& alpha, const Scalar& beta,
               const Tensor& start) {
  if (start.defined()) c.copy_(ember::expand(start, c.sizes()));
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  const BlasOperand A = blas_operand(a), B = blas_operand(b);
  const cublasOperation_t opa = A.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t opb = B.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int im = to_int(m, "m"), in = to_int(n, "n"), ik = to_int(k, "k");
  const int lda = to_int(A.ld, "lda"), ldb = to_int(B.ld, "ldb"), ldc = to_int(c.stride(0), "ldc");
  cublasHandle_t h = handle();
  switch (c.dtype()) {
    case ScalarType::Float: {
      const float al = alpha.to<float>(), be = beta.to<float>();
      check(cublas().sgemm(h, opb, opa, in, im, ik, &al, static_cast<const float*>(B.t.data_ptr()), ldb,
                           static_cast<const float*>(A.t.data_ptr()), lda, &be, static_cast<float*>(c.data_ptr()),
                           ldc),
            "cublasSgemm");
      break;
    }
    case ScalarType::Double: {
      const double al = alpha.to<double>(), be = beta.to<double>();
      check(cublas().dgemm(h, opb, opa, in, im, ik, &al, static_cast<const double*>(B.t.data_ptr()), ldb,
                           static_cast<const double*>(A.t.data_ptr()), lda, &be, static_cast<double*>(c.data_ptr()),
                           ldc),
            "cublasDgemm");
      break;
    }
    default:
      EMBER_CHECK_NOT_IMPLEMENTED(false, "\"addmm\" not implemented for '{}' on CUDA yet", c10::toString(c.dtype()));
  }
}

}  // namespace

EMBER_REGISTER_STUB(gemm_stub, CUDA, &cuda_gemm);

}  // namespace ember::native::cuda
