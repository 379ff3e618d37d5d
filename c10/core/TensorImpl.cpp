#include <c10/core/TensorImpl.h>

#include <typeinfo>

#include <c10/core/GradMode.h>

namespace c10 {

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size());
  int64_t running = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = running;
    // Saturates instead of overflowing (undefined behaviour): only sizes
    // whose numel overflows get there, and checked_numel refuses those.
    if (__builtin_mul_overflow(running, std::max<int64_t>(sizes[i], 1), &running)) running = INT64_MAX;
  }
  return strides;
}

int64_t checked_numel(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    // A RuntimeError, as torch raises for the same message.
    EMBER_CHECK(s >= 0, "Trying to create tensor with negative dimension {}: {}", s, str_sizes(sizes));
    EMBER_CHECK(!__builtin_mul_overflow(n, s, &n), "numel: integer multiplication overflow for sizes {}",
                str_sizes(sizes));
  }
  return n;
}

int64_t maybe_wrap_dim(int64_t dim, int64_t ndim, bool wrap_scalar) {
  if (ndim <= 0) {
    EMBER_CHECK_INDEX(wrap_scalar, "Dimension specified as {} but tensor has no dimensions", dim);
    ndim = 1;  // a 0-d tensor accepts dim 0 and -1
  }
  const int64_t min = -ndim, max = ndim - 1;
  EMBER_CHECK_INDEX(dim >= min && dim <= max,
                    "Dimension out of range (expected to be in range of [{}, {}], but got {})", min, max, dim);
  return dim < 0 ? dim + ndim : dim;
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes)
    : TensorImpl(std::move(storage), dtype, sizes, contiguous_strides(sizes), 0, nullptr) {}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                       int64_t storage_offset, intrusive_ptr<VersionCounter> version_counter)
    : storage_(std::move(storage)),
      sizes_(sizes),
      strides_(strides),
      storage_offset_(storage_offset),
      dtype_(dtype),
      // Every tensor passes the Autograd key: its kernel records history when
      // an input requires grad and tracks views either way.
      key_set_(DispatchKeySet(backendKey(storage_.device().type)).add(DispatchKey::Autograd)),
      version_counter_(version_counter.release()),
      inference_(InferenceMode::is_enabled()) {
  EMBER_INTERNAL_ASSERT(sizes.size() == strides.size());
  refresh_numel_and_contiguity();
}

TensorImpl::TensorImpl(DispatchKey backend, ScalarType dtype, Device device, IntArrayRef sizes)
    : storage_(make_intrusive<StorageImpl>(DataPtr(nullptr, device), 0)),
      sizes_(sizes),
      strides_(contiguous_strides(sizes)),
      dtype_(dtype),
      key_set_(DispatchKeySet(backend).add(DispatchKey::Autograd)),
      inference_(InferenceMode::is_enabled()) {
  refresh_numel_and_contiguity();
}

TensorImpl::~TensorImpl() { set_version_counter(nullptr); }

VersionCounter* TensorImpl::shared_version_counter() const {
  if (VersionCounter* vc = version_counter_.load(std::memory_order_acquire)) return vc;
  intrusive_ptr<VersionCounter> fresh = make_intrusive<VersionCounter>();
  VersionCounter* expected = nullptr;
  if (version_counter_.compare_exchange_strong(expected, fresh.get(), std::memory_order_acq_rel)) return fresh.release();
  return expected;  // another thread made one first; ours goes
}

intrusive_ptr<VersionCounter> TensorImpl::version_counter() const {
  VersionCounter* vc = shared_version_counter();
  return intrusive_ptr<VersionCounter>(vc);  // a new strong reference
}

void TensorImpl::set_version_counter(intrusive_ptr<VersionCounter> vc) {
  VersionCounter* old = version_counter_.exchange(vc.release(), std::memory_order_acq_rel);
  if (old != nullptr) intrusive_ptr<VersionCounter>::reclaim(old);  // dropped here
}

void TensorImpl::report_not_strided(const char* what) const {
  EMBER_CHECK(false, "{} tensors do not have {} (a {} tensor is its indices and values)", layoutTitle(layout()), what,
              toString(layout()));
}

void TensorImpl::report_no_data() const {
  // Meta kernels may take a pointer they never read.
  EMBER_CHECK(device().is_meta(),
              "a tensor on {} has no data in memory to read: move it to the CPU first (.cpu()), or use an operator "
              "instead of reading its values directly", device().str());
}

int64_t TensorImpl::size(int64_t d) const { return sizes_[maybe_wrap_dim(d, dim(), false)]; }
int64_t TensorImpl::stride(int64_t d) const { return strides()[maybe_wrap_dim(d, dim(), false)]; }

void TensorImpl::set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  EMBER_INTERNAL_ASSERT(sizes.size() == strides.size());
  sizes_.assign(sizes.begin(), sizes.end());
  strides_.assign(strides.begin(), strides.end());
  storage_offset_ = storage_offset;
  refresh_numel_and_contiguity();
}

void TensorImpl::set_data(const TensorImpl& other) {
  EMBER_CHECK(layout() == Layout::Strided && other.layout() == Layout::Strided,
              "set_data: cannot set the data of a {} tensor to a {} tensor (layouts must both be strided)",
              toString(layout()), toString(other.layout()));
  // A backend whose tensors are another TensorImpl subclass (lazy) keeps its
  // state there: this object cannot become one of them.
  EMBER_CHECK(typeid(*this) == typeid(other),
              "set_data: a tensor on {} cannot take the data of a tensor on {}: they are different kinds of tensor; "
              "assign a new tensor instead", device().str(), other.device().str());
  storage_ = other.storage_;
  dtype_ = other.dtype_;
  key_set_ = DispatchKeySet(backendKey(storage_.device().type)).add(DispatchKey::Autograd);
  set_conj(other.conj_);
  set_neg(other.neg_);
  set_sizes_and_strides(other.sizes_, other.strides_, other.storage_offset_);
}

intrusive_ptr<TensorImpl> TensorImpl::shallow_copy_and_detach() const {
  auto impl = make_intrusive<TensorImpl>(storage_, dtype_, sizes_, strides_, storage_offset_, version_counter());
  impl->set_conj(conj_);
  impl->set_neg(neg_);
  impl->set_wrapped_number(wrapped_number_);
  return impl;
}

void TensorImpl::set_sizes_contiguous(IntArrayRef sizes) {
  set_sizes_and_strides(sizes, contiguous_strides(sizes), storage_offset_);
}

size_t TensorImpl::required_storage_nbytes() const {
  if (numel_ == 0) return 0;
  return storage_nbytes_for(sizes_, strides_, storage_offset_, itemsize());
}

size_t TensorImpl::storage_nbytes_for(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset,
                                      size_t itemsize) {
  for (int64_t s : sizes) {
    if (s == 0) return 0;
  }
  // Overflow-checked: sizes and strides come from users (as_strided,
  // empty_strided, DLPack capsules), and a wrapped-around extent would pass
  // every bounds check and let a view reach far outside its storage.
  int64_t last = storage_offset;
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    int64_t step = 0;
    overflow |= __builtin_mul_overflow(sizes[i] - 1, strides[i], &step);
    overflow |= __builtin_add_overflow(last, step, &last);
  }
  size_t nbytes = 0;
  overflow |= last < 0 || __builtin_mul_overflow(static_cast<size_t>(last) + 1, itemsize, &nbytes);
  EMBER_CHECK(!overflow, "the storage needed by sizes {}, strides {} and storage offset {} overflows", str_sizes(sizes),
              str_sizes(strides), storage_offset);
  return nbytes;
}

void TensorImpl::set_autograd_meta(std::unique_ptr<AutogradMetaInterface> meta) {
  autograd_meta_ = std::move(meta);
}

namespace {
std::atomic<AutogradMetaFactory> autograd_meta_factory{nullptr};
}

void SetAutogradMetaFactory(AutogradMetaFactory factory) { autograd_meta_factory.store(factory); }

void TensorImpl::set_requires_grad(bool value) {
  EMBER_CHECK(!value || !inference_ || InferenceMode::is_enabled(),
              "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
  if (!autograd_meta_) {
    if (!value) return;
    EMBER_CHECK(isFloatingType(dtype_) || isComplexType(dtype_),
                "Only Tensors of floating point and complex dtype can require gradients");
    const AutogradMetaFactory factory = autograd_meta_factory.load();
    EMBER_CHECK(factory != nullptr, "requires_grad needs the ember autograd library, which is not loaded");
    set_autograd_meta(factory());
  } else {
    EMBER_CHECK(!value || isFloatingType(dtype_) || isComplexType(dtype_),
                "Only Tensors of floating point and complex dtype can require gradients");
  }
  autograd_meta_->set_requires_grad(value, this);
}

void TensorImpl::refresh_numel_and_contiguity() {
  numel_ = checked_numel(sizes_);
  is_contiguous_ = true;
  if (numel_ == 0) return;
  int64_t expected = 1;
  for (size_t i = sizes_.size(); i-- > 0;) {
    if (sizes_[i] == 1) continue;  // a size-1 dim's stride never matters
    if (strides_[i] != expected) {
      is_contiguous_ = false;
      return;
    }
    expected *= sizes_[i];
  }
}

}  // namespace c10
