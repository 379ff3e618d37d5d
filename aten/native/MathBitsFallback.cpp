// The conjugate and negative bits (TensorImpl::is_conj / is_neg) for every
// kernel at once: a tensor carrying a bit has the Conjugate / Negative
// dispatch key, and this boxed fallback serves every op that has not said it
// reads through the bit itself.
//
//  - Views (an op whose result aliases an input and that writes nothing) keep
//    the bit: the view kernels copy it onto the result (a lazy conj survives
//    transpose, slice, select...).
//  - Inputs an op only reads are materialized once (resolve_conj /
//    resolve_neg) and the call goes on below the key.
//  - Inputs an op writes (in-place and out=) are flipped in memory so that the
//    memory holds their values, the bit is cleared, the op runs, and then the
//    memory is flipped back and the bit restored: x.conj().add_(1) changes x.

#include <aten/Functions.h>
#include <aten/core/dispatch/Library.h>

#include <algorithm>

namespace ember::native {
namespace {

struct MathBit {
  c10::DispatchKey key;
  bool (*has)(const Tensor&);
  void (*set)(c10::TensorImpl&, bool);
  Tensor (*resolve)(const Tensor&);
  // Replaces each stored element by its image under the bit's map (an
  // involution), in place, on a tensor that does not carry the bit.
  void (*flip_memory)(const Tensor&);
};

const MathBit kConjugate{
    c10::DispatchKey::Conjugate,
    [](const Tensor& t) { return t.defined() && t.is_conj(); },
    [](c10::TensorImpl& impl, bool v) { impl.set_conj(v); },
    [](const Tensor& t) { return ember::resolve_conj(t); },
    [](const Tensor& t) { ember::conj_physical_(t); },
};

const MathBit kNegative{
    c10::DispatchKey::Negative,
    [](const Tensor& t) { return t.defined() && t.is_neg(); },
    [](c10::TensorImpl& impl, bool v) { impl.set_neg(v); },
    [](const Tensor& t) { return ember::resolve_neg(t); },
    [](const Tensor& t) { ember::neg_(t); },
};

bool is_view_op(const FunctionSchema& schema) {
  for (const SchemaArgument& a : schema.arguments)
    if (a.alias && a.alias->is_write) return false;
  return std::any_of(schema.returns.begin(), schema.returns.end(),
                     [](const SchemaReturn& r) { return r.alias.has_value(); });
}

template <typename F>
void for_each_tensor(IValue& v, F&& f) {
  if (v.isTensor()) {
    Tensor t = v.toTensor();
    if (f(t)) v = IValue(std::move(t));
  } else if (v.isTensorList()) {
    std::vector<Tensor> list = v.toTensorList();
    bool changed = false;
    for (Tensor& t : list) changed = f(t) || changed;
    if (changed) v = IValue(std::move(list));
  } else if (v.isOptionalTensorList()) {
    std::vector<std::optional<Tensor>> list = v.toOptionalTensorList();
    bool changed = false;
    for (auto& t : list) changed = (t && f(*t)) || changed;
    if (changed) v = IValue(std::move(list));
  }
}

// Written tensors hold their values in memory (bit cleared) while alive.
class FlippedForWriting {
 public:
  FlippedForWriting(const MathBit& bit, std::vector<Tensor> tensors) : bit_(bit), tensors_(std::move(tensors)) {
    for (const Tensor& t : tensors_) {
      bit_.set(*t.unsafeGetTensorImpl(), false);
      bit_.flip_memory(t);
    }
  }
  ~FlippedForWriting() {
    for (const Tensor& t : tensors_) {
      try {
        bit_.flip_memory(t);
      } catch (...) {  // restoring the bit matters more than a failed flip of an op that already failed
      }
      bit_.set(*t.unsafeGetTensorImpl(), true);
    }
  }
  FlippedForWriting(const FlippedForWriting&) = delete;
  FlippedForWriting& operator=(const FlippedForWriting&) = delete;

 private:
  const MathBit& bit_;
  std::vector<Tensor> tensors_;
};

void math_bit_fallback(const MathBit& bit, const OperatorHandle& op, c10::DispatchKeySet ks, Stack& stack) {
  const FunctionSchema& schema = op.schema();
  if (is_view_op(schema)) return op.redispatchBoxed(ks.remove(bit.key), stack);
  const size_t n = std::min(stack.size(), schema.arguments.size());
  const size_t first = stack.size() - n;

  std::vector<Tensor> written;
  for (size_t i = 0; i < n; ++i) {
    const SchemaArgument& a = schema.arguments[i];
    if (!(a.alias && a.alias->is_write)) continue;
    for_each_tensor(stack[first + i], [&](Tensor& t) {
      const bool seen = std::any_of(written.begin(), written.end(), [&](const Tensor& w) { return w.is_same(t); });
      if (bit.has(t) && !seen) written.push_back(t);
      return false;
    });
  }
  // Inputs are read before any written memory is flipped: one that shares
  // memory with a flipped output is copied first.
  for (size_t i = 0; i < n; ++i) {
    const SchemaArgument& a = schema.arguments[i];
    if (a.alias && a.alias->is_write) continue;
    for_each_tensor(stack[first + i], [&](Tensor& t) {
      if (!t.defined()) return false;
      if (bit.has(t)) {
        t = bit.resolve(t);
        return true;
      }
      const bool shares = std::any_of(written.begin(), written.end(), [&](const Tensor& w) { return w.is_alias_of(t); });
      if (shares) t = ember::clone(t);
      return shares;
    });
  }
  FlippedForWriting flipped(bit, std::move(written));
  op.redispatchBoxed(ks.remove(bit.key), stack);
}

EMBER_LIBRARY_IMPL(_, Conjugate, m) {
  m.fallback(KernelFunction::makeFromBoxed([](const OperatorHandle& op, c10::DispatchKeySet ks, Stack& stack) {
    math_bit_fallback(kConjugate, op, ks, stack);
  }));
}

EMBER_LIBRARY_IMPL(_, Negative, m) {
  m.fallback(KernelFunction::makeFromBoxed([](const OperatorHandle& op, c10::DispatchKeySet ks, Stack& stack) {
    math_bit_fallback(kNegative, op, ks, stack);
  }));
}

// Ops whose kernels read (or write) through both bits themselves, or never
// read the data: the fallback would only add a copy.
constexpr const char* kReadsThroughBits[] = {
    "copy_",   "fill_.Scalar", "zero_",      "clone",         "resolve_conj",
    "resolve_neg", "empty_like",
};

// Matrix products hand a conjugated operand to BLAS as a conjugate-transpose
// (BlasOperand): a @ b.mH copies nothing.
constexpr const char* kReadsThroughConj[] = {"mm", "mm.out", "addmm", "addmm.out"};

EMBER_LIBRARY_IMPL(aten, Conjugate, m) {
  for (const char* op : kReadsThroughBits) m.impl(op, KernelFunction::makeFallthrough());
  for (const char* op : kReadsThroughConj) m.impl(op, KernelFunction::makeFallthrough());
}

EMBER_LIBRARY_IMPL(aten, Negative, m) {
  for (const char* op : kReadsThroughBits) m.impl(op, KernelFunction::makeFallthrough());
}

}  // namespace
}  // namespace ember::native
