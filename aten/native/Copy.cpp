// copy_ and everything built on it: clone, contiguous, to, fill_, item.

#include <aten/Functions.h>
#include <aten/core/ExpandUtils.h>
#include <aten/native/Copy.h>
#include <aten/native/DeviceKernels.h>
#include <aten/native/cpu/CopyKernels.h>
#include <c10/core/DeviceHooks.h>
#include <aten/generated/NativeFunctions.h>

namespace ember::native {

DispatchStub<FillFn> fill_stub("fill_");
EMBER_REGISTER_STUB(fill_stub, CPU, &cpu::fill_kernel);

namespace {

// Byte range [first, last) of `t`'s elements inside its storage.
std::pair<size_t, size_t> memory_extent(const Tensor& t) {
  const size_t begin = static_cast<size_t>(t.storage_offset()) * t.element_size();
  return {begin, t.unsafeGetTensorImpl()->required_storage_nbytes()};
}

bool may_overlap(const Tensor& a, const Tensor& b) {
  if (!a.is_alias_of(b) || a.numel() == 0 || b.numel() == 0) return false;
  const auto [a_begin, a_end] = memory_extent(a);
  const auto [b_begin, b_end] = memory_extent(b);
  return a_begin < b_end && b_begin < a_end;
}

bool same_geometry(const Tensor& a, const Tensor& b) {
  return a.is_alias_of(b) && a.storage_offset() == b.storage_offset() && a.sizes() == b.sizes() &&
         a.strides() == b.strides() && a.dtype() == b.dtype() && a.is_conj() == b.is_conj() &&
         a.is_neg() == b.is_neg();
}

}  // namespace

void check_no_internal_overlap(const Tensor& self) {
  if (self.numel() == 0) return;  // no elements, no overlap (whatever the strides: NumPy uses 0)
  for (int64_t d = 0; d < self.dim(); ++d) {
    EMBER_CHECK(self.stride(d) != 0 || self.size(d) <= 1,
                "unsupported operation: more than one element of the written-to tensor refers to a single memory "
                "location. Please clone() the tensor before performing the operation.");
  }
}

void check_copy_shapes(const Tensor& self, const Tensor& src) {
  EMBER_CHECK(self.defined() && src.defined(), "copy_(): expected defined tensors");
  const std::vector<int64_t> shape = infer_size(self.sizes(), src.sizes(), "copy_");
  EMBER_CHECK(c10::IntArrayRef(shape) == self.sizes(), "output with shape {} doesn't match the broadcast shape {}",
              c10::str_sizes(self.sizes()), c10::str_sizes(shape));
}

namespace {

void copy_cpu(const Tensor& self, const Tensor& src) {
  cpu::copy_kernel(self, src);
  // Stored value = conj/neg of the logical value for each set bit; the net
  // transform from source storage to self storage is the XOR of the two.
  cpu::conj_neg_kernel(self, self.is_conj() != src.is_conj(), self.is_neg() != src.is_neg());
}

bool has_bits(const Tensor& t) { return t.is_conj() || t.is_neg(); }

// `t` itself when its memory already holds its values as `like` lays them
// out (dtype, sizes, strides), else such a copy on t's own device.
Tensor in_layout_of(const Tensor& t, const Tensor& like) {
  if (t.sizes() == like.sizes() && t.strides() == like.strides() && t.dtype() == like.dtype() && !has_bits(t)) {
    return t;
  }
  Tensor out = ember::empty_strided(like.sizes(), like.strides(), like.dtype(), t.device());
  out.copy_(t);
  return out;
}

const c10::DeviceHooks& hooks_of(Device device) {
  const c10::DeviceHooks* hooks = c10::GetDeviceHooks(device.type);
  EMBER_CHECK_NOT_IMPLEMENTED(hooks != nullptr, "copy_(): no backend is registered for device type {}",
                              c10::toString(device.type));
  return *hooks;
}

// Between the host and a device one dense buffer moves through the
// backend's hooks; dtype and layout change on the side that has kernels for
// them (the source before the move, the destination after it).
void copy_across_devices(const Tensor& self, const Tensor& src) {
  if (!self.is_cpu() && !src.is_cpu()) {  // two devices: through the host
    self.copy_(src.to(Device(DeviceType::CPU)));
    return;
  }
  const Tensor device_side = self.is_cpu() ? src : self;
  const c10::DeviceHooks& hooks = hooks_of(device_side.device());
  const int index = device_side.device().index;
  // A dense destination (any dim order) takes the bytes directly.
  const bool direct = is_non_overlapping_and_dense(self.sizes(), self.strides()) && !has_bits(self);
  const Tensor target = direct ? self : ember::empty(self.sizes(), self.dtype(), self.device());
  const Tensor source = in_layout_of(src, target);
  if (self.is_cpu()) {
    hooks.copy_to_host(target.data_ptr(), source.data_ptr(), target.nbytes(), index);
  } else {
    hooks.copy_from_host(target.data_ptr(), source.data_ptr(), target.nbytes(), index);
  }
  if (direct) {
    self.unsafeGetTensorImpl()->bump_version();
  } else {
    self.copy_(target);
  }
}

}  // namespace

DispatchStub<CopyFn> copy_stub("copy_");
EMBER_REGISTER_STUB(copy_stub, CPU, &copy_cpu);

// One copy_ for every device: the checks here, the element loop in each
// backend's copy_stub, moves between devices through their hooks.
Tensor copy_(const Tensor& self, const Tensor& src, bool /*non_blocking*/) {
  check_copy_shapes(self, src);
  if (self.is_meta()) return self;
  EMBER_CHECK_NOT_IMPLEMENTED(!src.is_meta(), "Cannot copy out of meta tensor; no data!");
  check_no_internal_overlap(self);
  if (self.numel() == 0) {
    self.unsafeGetTensorImpl()->bump_version();
    return self;
  }
  if (self.device() != src.device()) {
    copy_across_devices(self, src);
    return self;
  }
  if (same_geometry(self, src)) return self;
  // A partially overlapping source is read in full before any write.
  const Tensor source = may_overlap(self, src) ? ember::clone(src) : src;
  copy_stub(self.device().type, self, ember::expand(source, self.sizes()));
  self.unsafeGetTensorImpl()->bump_version();
  return self;
}

// A new tensor: the copy that fills it is not a modification (version 0).
static Tensor fresh_copy(Tensor empty, const Tensor& self) {
  empty.copy_(self);
  empty.unsafeGetTensorImpl()->reset_version();
  return empty;
}

Tensor clone(const Tensor& self, std::optional<MemoryFormat> memory_format) {
  return fresh_copy(ember::empty_like(self, std::nullopt, std::nullopt, memory_format), self);
}

Tensor contiguous(const Tensor& self, MemoryFormat memory_format) {
  // preserve_format is no layout to copy into; like torch, only an already
  // contiguous tensor gets through with it.
  if (self.is_contiguous(memory_format)) return self;
  EMBER_CHECK(memory_format != MemoryFormat::Preserve,
              "contiguous(): preserve memory format is unsupported by the contiguous operator");
  c10::dims_order(memory_format, self.dim(), "contiguous()");  // a rank the format cannot lay out raises here
  return fresh_copy(ember::empty_like(self, std::nullopt, std::nullopt, memory_format), self);
}

// Fresh tensors carry no conj/neg bits, so copying into one resolves them.
Tensor resolve_conj(const Tensor& self) { return self.is_conj() ? fresh_copy(ember::empty_like(self), self) : self; }

Tensor resolve_neg(const Tensor& self) { return self.is_neg() ? fresh_copy(ember::empty_like(self), self) : self; }

Tensor to(const Tensor& self, Device device, std::optional<ScalarType> dtype, bool /*non_blocking*/, bool copy) {
  const ScalarType target_dtype = dtype.value_or(self.dtype());
  // "cuda" without an index means the current device: a tensor there stays.
  const bool same_device = device.type == self.device().type && (!device.has_index() || device == self.device());
  if (!copy && same_device && target_dtype == self.dtype()) return self;
  return fresh_copy(ember::empty_like(self, TensorOptions().dtype(target_dtype).device(device)), self);
}

Tensor to(const Tensor& self, ScalarType dtype, bool non_blocking, bool copy) {
  return ember::to(self, self.device(), dtype, non_blocking, copy);
}

Tensor to(const Tensor& self, const Tensor& other, bool non_blocking, bool copy) {
  return ember::to(self, other.device(), other.dtype(), non_blocking, copy);
}

Tensor type_as(const Tensor& self, const Tensor& other) { return self.to(other.dtype()); }

Tensor fill_(const Tensor& self, const Scalar& value) {
  if (self.is_meta()) return self;
  check_no_internal_overlap(self);
  // Store conj/neg of the value for tensors carrying those bits.
  Scalar stored = self.is_conj() ? Scalar(std::conj(value.toComplexDouble())) : value;
  if (self.is_neg()) stored = -stored;
  fill_stub(self.device().type, self, stored);
  self.unsafeGetTensorImpl()->bump_version();
  return self;
}

Tensor zero_(const Tensor& self) { return self.fill_(0); }

Scalar item(const Tensor& self) {
  EMBER_CHECK(self.numel() == 1, "a Tensor with {} elements cannot be converted to Scalar", self.numel());
  EMBER_CHECK(!self.is_meta(), "Tensor.item() cannot be called on meta tensors");
  if (!self.is_cpu()) return ember::item(self.to(Device(DeviceType::CPU)));
  Scalar value = cpu::item_kernel(self);
  if (self.is_conj()) value = Scalar(std::conj(value.toComplexDouble()));
  if (self.is_neg()) value = -value;
  return value;
}

bool equal(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes()) return false;
  const ScalarType common = c10::promoteTypes(a.dtype(), b.dtype());
  // Compared on the host, whatever device they are on.
  const Device cpu(DeviceType::CPU);
  const Tensor x = ember::to(a, cpu, common, false, false).resolve_conj().resolve_neg();
  const Tensor y = ember::to(b, cpu, common, false, false).resolve_conj().resolve_neg();
  return cpu::equal_kernel(x, y);
}

}  // namespace ember::native
