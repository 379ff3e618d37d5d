// CUDA's copy_stub and fill_stub.

#include <aten/Functions.h>
#include <aten/core/ExpandUtils.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/Copy.h>
#include <aten/native/DeviceKernels.h>
#include <c10/core/DeviceHooks.h>
#include <aten/native/cuda/DtypeVisit.cuh>
#include <aten/native/cuda/Loops.cuh>

namespace ember::native {

namespace cuda {
namespace {

// dst = convert(src) elementwise, both on the GPU, src broadcast to dst.
void device_copy(const Tensor& dst, const Tensor& src) {
  TensorIteratorConfig config;
  config.name("copy_").add_output(dst).add_input(src).declare_static_output_dtype(dst.dtype());
  auto iter = config.build();
  EMBER_CUDA_DISPATCH_ALL(dst.dtype(), "copy_", [&] {
    using D = scalar_t;
    EMBER_CUDA_DISPATCH_ALL(src.dtype(), "copy_", [&] {
      using S = scalar_t;
      gpu_kernel(iter, [] EMBER_GPU_LAMBDA(S v) -> D { return static_cast<D>(v); });
    });
  });
}

bool dense_same_layout(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.sizes() == b.sizes() && a.is_contiguous() && b.is_contiguous();
}

void fill_cuda(const Tensor& self, const Scalar& value) {
  TensorIteratorConfig config;
  config.name("fill_").add_output(self).declare_static_output_dtype(self.dtype()).declare_static_shape(self.sizes());
  auto iter = config.build();
  EMBER_CUDA_DISPATCH_ALL(self.dtype(), "fill_", [&] {
    using T = scalar_t;
    const T v = value.to<T>();
    gpu_kernel(iter, [v] EMBER_GPU_LAMBDA() -> T { return v; });
  });
}

}  // namespace
}  // namespace cuda

EMBER_REGISTER_STUB(fill_stub, CUDA, &cuda::fill_cuda);

// Elementwise copies on one GPU; copy_ (aten/native/Copy.cpp) does the
// checks and moves data between host and GPU through the CUDA hooks.
void copy_cuda(const Tensor& self, const Tensor& src) {
  EMBER_CHECK_NOT_IMPLEMENTED(!self.is_conj() && !src.is_conj() && !self.is_neg() && !src.is_neg(),
                              "copy_(): conjugate and negative views are not supported on CUDA yet");
  c10::DeviceGuard guard(self.device());
  if (cuda::dense_same_layout(self, src)) {
    cuda::memcpy_sync(self.data_ptr(), src.data_ptr(), self.nbytes(), cudaMemcpyDeviceToDevice);
  } else {
    cuda::device_copy(self, src);
  }
}

EMBER_REGISTER_STUB(copy_stub, CUDA, &copy_cuda);

}  // namespace ember::native
