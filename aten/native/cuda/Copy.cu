// copy_ for any pair of devices where one is CUDA, and CUDA's fill_stub.
// Host<->device copies move one dense buffer: a layout or dtype change is
// done on the side that has the kernels for it (the CPU before an upload,
// the GPU before a download).

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

void memcpy_sync(void* dst, const void* src, size_t nbytes, cudaMemcpyKind kind) {
  if (nbytes == 0) return;
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, kind, current_stream()));
  EMBER_CUDA_CHECK(cudaStreamSynchronize(current_stream()));
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

Tensor copy_cuda_(const Tensor& self, const Tensor& src, bool /*non_blocking*/) {
  check_copy_shapes(self, src);
  EMBER_CHECK_NOT_IMPLEMENTED(!self.is_meta() && !src.is_meta(), "copy_(): copying between {} and {} is not supported",
                              src.device().str(), self.device().str());
  EMBER_CHECK_NOT_IMPLEMENTED(!self.is_conj() && !src.is_conj() && !self.is_neg() && !src.is_neg(),
                              "copy_(): conjugate and negative views are not supported on CUDA yet");
  check_no_internal_overlap(self);
  if (self.numel() == 0) return self;
  const Device cpu(DeviceType::CPU);
  Tensor source = src.sizes() == self.sizes() ? src : ember::expand(src, self.sizes());

  if (self.is_cuda() && src.is_cuda()) {
    EMBER_CHECK_NOT_IMPLEMENTED(self.device().index == src.device().index,
                                "copy_(): copies between two GPUs ({} and {}) are not supported yet",
                                src.device().str(), self.device().str());
    c10::DeviceGuard guard(self.device());
    if (source.is_alias_of(self)) source = source.clone();  // read in full before any write
    if (cuda::dense_same_layout(self, source)) {
      cuda::memcpy_sync(self.data_ptr(), source.data_ptr(), self.nbytes(), cudaMemcpyDeviceToDevice);
      self.unsafeGetTensorImpl()->bump_version();
    } else {
      cuda::device_copy(self, source);  // the iterator bumps the version
    }
    return self;
  }
  if (self.is_cuda()) {  // upload: make it dense in the destination dtype on the host first
    c10::DeviceGuard guard(self.device());
    const Tensor host = source.to(self.dtype()).contiguous();
    if (self.is_contiguous()) {
      cuda::memcpy_sync(self.data_ptr(), host.data_ptr(), self.nbytes(), cudaMemcpyHostToDevice);
      self.unsafeGetTensorImpl()->bump_version();
    } else {
      const Tensor staging = ember::empty(self.sizes(), self.dtype(), self.device());
      cuda::memcpy_sync(staging.data_ptr(), host.data_ptr(), staging.nbytes(), cudaMemcpyHostToDevice);
      cuda::device_copy(self, staging);
    }
    return self;
  }
  // download: make it dense in the destination dtype on the device first
  c10::DeviceGuard guard(src.device());
  const Tensor dense = source.to(self.dtype()).contiguous();
  if (self.is_contiguous()) {
    cuda::memcpy_sync(self.data_ptr(), dense.data_ptr(), self.nbytes(), cudaMemcpyDeviceToHost);
    self.unsafeGetTensorImpl()->bump_version();
  } else {
    const Tensor staging = ember::empty(self.sizes(), self.dtype(), cpu);
    cuda::memcpy_sync(staging.data_ptr(), dense.data_ptr(), staging.nbytes(), cudaMemcpyDeviceToHost);
    self.copy_(staging);
  }
  return self;
}

}  // namespace ember::native
