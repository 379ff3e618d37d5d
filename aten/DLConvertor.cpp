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

Tensor fromDLPack(DLManagedTensor* src) {
  // Until the storage owns `src`, release it on any error.
  std::unique_ptr<DLManagedTensor, void (*)(DLManagedTensor*)> guard(src, [](DLManagedTensor* m) {
    if (m->deleter) m->deleter(m);
  });
  const DLTensor& t = src->dl_tensor;
  EMBER_CHECK(t.device.device_type == kDLCPU, "Unsupported device_type in DLPack tensor: {} (only CPU is supported)",
              static_cast<int>(t.device.device_type));
  const ScalarType dtype = from_dl_dtype(t.dtype);
  const std::vector<int64_t> sizes(t.shape, t.shape + t.ndim);
  const std::vector<int64_t> strides =
      t.strides ? std::vector<int64_t>(t.strides, t.strides + t.ndim) : c10::contiguous_strides(sizes);
  for (int64_t s : strides) EMBER_CHECK(s >= 0, "DLPack tensors with negative strides are not supported");

  int64_t span = 1;  // elements from the first to one past the last
  bool empty = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    empty = empty || sizes[i] == 0;
    span += (sizes[i] - 1) * strides[i];
  }
  const size_t nbytes = empty ? 0 : static_cast<size_t>(span) * c10::elementSize(dtype);
  void* data = static_cast<char*>(t.data) + t.byte_offset;
  c10::DataPtr data_ptr(data, guard.release(), &release_import, Device(DeviceType::CPU));
  c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(std::move(data_ptr), nbytes));
  return Tensor(c10::make_intrusive<c10::TensorImpl>(std::move(storage), dtype, sizes, strides, 0,
                                                     c10::make_intrusive<c10::VersionCounter>()));
}

}  // namespace ember
