#include <aten/DLConvertor.h>
#include <aten/Functions.h>

#include <dlpack/dlpack.h>

#include <memory>

namespace ember {

namespace {

// DLPack 0.8 added a boolean type code; the packaged 0.6 header predates it,
// but consumers (NumPy 2, PyTorch) use this value.
constexpr uint8_t kDLBoolCode = 6;

DLDataType to_dl_dtype(ScalarType t) {
  DLDataType d;
  d.lanes = 1;
  d.bits = static_cast<uint8_t>(c10::elementSize(t) * 8);
  switch (c10::info(t).kind) {
    case c10::TypeKind::Bool: d.code = kDLBoolCode; break;
    case c10::TypeKind::Integral: d.code = c10::isSignedType(t) ? kDLInt : kDLUInt; break;
    case c10::TypeKind::Floating: d.code = t == ScalarType::BFloat16 ? kDLBfloat : kDLFloat; break;
    case c10::TypeKind::Complex: d.code = kDLComplex; break;
  }
  return d;
}

ScalarType from_dl_dtype(DLDataType d) {
  EMBER_CHECK(d.lanes == 1, "ember does not support lanes != 1 in DLPack tensors (got {})", d.lanes);
  const auto pick = [&](std::initializer_list<std::pair<int, ScalarType>> options) {
    for (const auto& [bits, type] : options)
      if (bits == d.bits) return type;
    EMBER_CHECK(false, "Unsupported DLPack dtype: code {} with {} bits", d.code, d.bits);
  };
  switch (d.code) {
    case kDLBoolCode: return pick({{8, ScalarType::Bool}});
    case kDLUInt: return pick({{8, ScalarType::Byte}});
    case kDLInt:
      return pick({{8, ScalarType::Char}, {16, ScalarType::Short}, {32, ScalarType::Int}, {64, ScalarType::Long}});
    case kDLFloat: return pick({{16, ScalarType::Half}, {32, ScalarType::Float}, {64, ScalarType::Double}});
    case kDLBfloat: return pick({{16, ScalarType::BFloat16}});
    case kDLComplex: return pick({{64, ScalarType::ComplexFloat}, {128, ScalarType::ComplexDouble}});
    default: break;
  }
  EMBER_CHECK(false, "Unsupported DLPack dtype code {}", d.code);
}

// Owns what the DLManagedTensor points into: the tensor and the shape arrays.
struct ExportContext {
  Tensor tensor;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  DLManagedTensor managed;
};

void delete_export(DLManagedTensor* self) { delete static_cast<ExportContext*>(self->manager_ctx); }

void release_import(void* ctx) {
  auto* managed = static_cast<DLManagedTensor*>(ctx);
  if (managed->deleter) managed->deleter(managed);
}

}  // namespace

DLManagedTensor* toDLPack(const Tensor& src) {
  EMBER_CHECK(!src.is_conj(), "Can't export tensors with the conjugate bit set");
  EMBER_CHECK(!src.is_neg(), "Can't export tensors with the negative bit set");
  EMBER_CHECK(src.is_cpu(), "DLPack export of {} tensors is not supported yet", src.device().str());
  auto ctx = std::make_unique<ExportContext>();
  ctx->tensor = src;
  ctx->shape = src.sizes().vec();
  ctx->strides = src.strides().vec();
  DLTensor& t = ctx->managed.dl_tensor;
  t.data = src.data_ptr();
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = static_cast<int32_t>(src.dim());
  t.dtype = to_dl_dtype(src.dtype());
  t.shape = ctx->shape.data();
  t.strides = ctx->strides.data();
  t.byte_offset = 0;
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = &delete_export;
  return &ctx.release()->managed;
}

// More dimensions than any real tensor has: a corrupt capsule.
constexpr int32_t kMaxDLPackDims = 1024;

Tensor fromDLPack(DLManagedTensor* src) {
  // Until the storage owns `src`, release it on any error.
  std::unique_ptr<DLManagedTensor, void (*)(DLManagedTensor*)> guard(src, [](DLManagedTensor* m) {
    if (m->deleter) m->deleter(m);
  });
  // Everything a capsule says is checked before a tensor is built on it:
  // capsules come from other libraries, and from hand-made ctypes structs.
  const DLTensor& t = src->dl_tensor;
  EMBER_CHECK(t.device.device_type == kDLCPU, "Unsupported device_type in DLPack tensor: {} (only CPU is supported)",
              static_cast<int>(t.device.device_type));
  const ScalarType dtype = from_dl_dtype(t.dtype);
  EMBER_CHECK(t.ndim >= 0 && t.ndim <= kMaxDLPackDims, "from_dlpack(): ndim {} is out of range [0, {}]", t.ndim,
              kMaxDLPackDims);
  EMBER_CHECK(t.ndim == 0 || t.shape != nullptr, "from_dlpack(): the capsule's shape is a null pointer for a {}-d tensor",
              t.ndim);
  const std::vector<int64_t> sizes(t.shape, t.shape + t.ndim);
  for (int64_t s : sizes) EMBER_CHECK(s >= 0, "from_dlpack(): negative size {} in shape {}", s, c10::str_sizes(sizes));
  const std::vector<int64_t> strides =
      t.strides ? std::vector<int64_t>(t.strides, t.strides + t.ndim) : c10::contiguous_strides(sizes).vec();
  for (int64_t s : strides) EMBER_CHECK(s >= 0, "DLPack tensors with negative strides are not supported");
  const size_t itemsize = c10::elementSize(dtype);
  EMBER_CHECK(t.byte_offset % itemsize == 0 && t.byte_offset <= static_cast<uint64_t>(INT64_MAX),
              "from_dlpack(): byte_offset {} is not a multiple of the element size {}", t.byte_offset, itemsize);
  const size_t nbytes = c10::TensorImpl::storage_nbytes_for(sizes, strides, 0, itemsize);
  EMBER_CHECK(nbytes == 0 || t.data != nullptr, "from_dlpack(): the capsule's data is a null pointer for {} bytes",
              nbytes);
  void* data = t.data ? static_cast<char*>(t.data) + t.byte_offset : nullptr;
  c10::DataPtr data_ptr(data, guard.release(), &release_import, Device(DeviceType::CPU));
  c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(std::move(data_ptr), nbytes));
  return Tensor(c10::make_intrusive<c10::TensorImpl>(std::move(storage), dtype, sizes, strides, 0,
                                                     nullptr));
}

}  // namespace ember
