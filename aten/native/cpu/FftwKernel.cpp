// The CPU fft_stub on FFTW 3: guru64 plans (any strides, any batch rank),
// planned once per geometry with FFTW_ESTIMATE and kept in a small cache,
// then run on each call's arrays with FFTW's new-array execute functions
// (thread-safe, unlike planning, which a mutex serializes).

#include <aten/Parallel.h>
#include <aten/native/SpectralOps.h>

#include <fftw3.h>

#include <complex>
#include <list>
#include <mutex>
#include <vector>

namespace ember::native::cpu {
namespace {

// One precision's FFTW API (fftw_* for double, fftwf_* for float).
template <typename R>
struct Fftw;

template <>
struct Fftw<double> {
  using plan = fftw_plan;
  using complex = fftw_complex;
  static plan c2c(int rank, const fftw_iodim64* dims, int batch_rank, const fftw_iodim64* batch, complex* in,
                  complex* out, int sign) {
    return fftw_plan_guru64_dft(rank, dims, batch_rank, batch, in, out, sign, FFTW_ESTIMATE);
  }
  static plan r2c(int rank, const fftw_iodim64* dims, int batch_rank, const fftw_iodim64* batch, double* in,
                  complex* out) {
    return fftw_plan_guru64_dft_r2c(rank, dims, batch_rank, batch, in, out, FFTW_ESTIMATE);
  }
  static plan c2r(int rank, const fftw_iodim64* dims, int batch_rank, const fftw_iodim64* batch, complex* in,
                  double* out) {
    return fftw_plan_guru64_dft_c2r(rank, dims, batch_rank, batch, in, out, FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
  }
  static void run_c2c(plan p, void* in, void* out) { fftw_execute_dft(p, (complex*)in, (complex*)out); }
  static void run_r2c(plan p, void* in, void* out) { fftw_execute_dft_r2c(p, (double*)in, (complex*)out); }
  static void run_c2r(plan p, void* in, void* out) { fftw_execute_dft_c2r(p, (complex*)in, (double*)out); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
  static int alignment_of(void* p) { return fftw_alignment_of(static_cast<double*>(p)); }
};

template <>
struct Fftw<float> {
  using plan = fftwf_plan;
  using complex = fftwf_complex;
  static plan c2c(int rank, const fftw_iodim64* dims, int batch_rank, const fftw_iodim64* batch, complex* in,
                  complex* out, int sign) {
    return fftwf_plan_guru64_dft(rank, dims, batch_rank, batch, in, out, sign, FFTW_ESTIMATE);
  }
  static plan r2c(int rank, const fftw_iodim64* dims, int batch_rank, const fftw_iodim64* batch, float* in,
                  complex* out) {
    return fftwf_plan_guru64_dft_r2c(rank, dims, batch_rank, batch, in, out, FFTW_ESTIMATE);
  }
  static plan c2r(int rank, const fftw_iodim64* dims, int batch_rank, const fftw_iodim64* batch, complex* in,
                  float* out) {
    return fftwf_plan_guru64_dft_c2r(rank, dims, batch_rank, batch, in, out, FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
  }
  static void run_c2c(plan p, void* in, void* out) { fftwf_execute_dft(p, (complex*)in, (complex*)out); }
  static void run_r2c(plan p, void* in, void* out) { fftwf_execute_dft_r2c(p, (float*)in, (complex*)out); }
  static void run_c2r(plan p, void* in, void* out) { fftwf_execute_dft_c2r(p, (complex*)in, (float*)out); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
  static int alignment_of(void* p) { return fftwf_alignment_of(static_cast<float*>(p)); }
};

// Everything a plan depends on: the kind, direction, precision, the
// transform and batch geometry, the arrays' SIMD alignment (a plan may only
// run on arrays aligned as the ones it was made for) and the thread count.
struct PlanKey {
  FftKind kind;
  bool forward;
  bool is_double;
  std::vector<fftw_iodim64> dims, batch;
  int in_alignment, out_alignment, threads;
  bool in_place;

  bool operator==(const PlanKey& o) const {
    auto same = [](const std::vector<fftw_iodim64>& a, const std::vector<fftw_iodim64>& b) {
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i)
        if (a[i].n != b[i].n || a[i].is != b[i].is || a[i].os != b[i].os) return false;
      return true;
    };
    return kind == o.kind && forward == o.forward && is_double == o.is_double && same(dims, o.dims) &&
           same(batch, o.batch) && in_alignment == o.in_alignment && out_alignment == o.out_alignment &&
           threads == o.threads && in_place == o.in_place;
  }
};

// Most recently used first; a script cycles through few geometries.
template <typename R>
class PlanCache {
 public:
  using Plan = typename Fftw<R>::plan;
  static constexpr size_t kCapacity = 64;

  // The cached plan for `key`, made (under the planner lock) when missing.
  template <typename Make>
  Plan get(const PlanKey& key, Make&& make) {
    std::lock_guard<std::mutex> lock(planner_mutex());
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->first == key) {
        entries_.splice(entries_.begin(), entries_, it);
        return entries_.front().second;
      }
    }
    fftw_plan_with_nthreads(key.threads);
    fftwf_plan_with_nthreads(key.threads);
    Plan plan = make();
    EMBER_CHECK(plan != nullptr, "fft: FFTW could not plan this transform");
    entries_.emplace_front(key, plan);
    if (entries_.size() > kCapacity) {
      Fftw<R>::destroy(entries_.back().second);
      entries_.pop_back();
    }
    return plan;
  }

  // FFTW's planner (for both precisions) is not thread-safe.
  static std::mutex& planner_mutex() {
    static std::mutex m;
    static const bool threads_ready = [] {
      fftw_init_threads();
      fftwf_init_threads();
      return true;
    }();
    (void)threads_ready;
    return m;
  }

 private:
  std::list<std::pair<PlanKey, Plan>> entries_;
};

template <typename R>
PlanCache<R>& plan_cache() {
  static auto* cache = new PlanCache<R>();  // leaked: plans may run during static destruction
  return *cache;
}

template <typename R>
void run_fft(FftKind kind, bool forward, const Tensor& input, const Tensor& output, IntArrayRef transform_dims) {
  // Strides in elements of each array's own type (complex or real).
  const Tensor& logical = kind == FftKind::C2R ? output : input;
  std::vector<bool> is_transform(input.dim(), false);
  std::vector<fftw_iodim64> dims, batch;
  for (int64_t d : transform_dims) {
    is_transform[d] = true;
    dims.push_back({logical.size(d), input.stride(d), output.stride(d)});
  }
  for (int64_t d = 0; d < input.dim(); ++d) {
    if (!is_transform[d]) batch.push_back({input.size(d), input.stride(d), output.stride(d)});
  }
  void* in = input.data_ptr();
  void* out = output.data_ptr();
  const int64_t work = output.numel();
  const int threads = work >= (int64_t{1} << 15) ? std::max(1, get_num_threads()) : 1;
  const PlanKey key{kind,
                    forward,
                    std::is_same_v<R, double>,
                    dims,
                    batch,
                    Fftw<R>::alignment_of(in),
                    Fftw<R>::alignment_of(out),
                    threads,
                    in == out};
  const int rank = static_cast<int>(dims.size());
  const int batch_rank = static_cast<int>(batch.size());
  using C = typename Fftw<R>::complex;
  auto plan = plan_cache<R>().get(key, [&] {
    switch (kind) {
      case FftKind::C2C:
        return Fftw<R>::c2c(rank, dims.data(), batch_rank, batch.data(), static_cast<C*>(in), static_cast<C*>(out),
                            forward ? FFTW_FORWARD : FFTW_BACKWARD);
      case FftKind::R2C:
        return Fftw<R>::r2c(rank, dims.data(), batch_rank, batch.data(), static_cast<R*>(in), static_cast<C*>(out));
      case FftKind::C2R:
        return Fftw<R>::c2r(rank, dims.data(), batch_rank, batch.data(), static_cast<C*>(in), static_cast<R*>(out));
    }
    return typename Fftw<R>::plan{};
  });
  switch (kind) {
    case FftKind::C2C: Fftw<R>::run_c2c(plan, in, out); break;
    case FftKind::R2C: Fftw<R>::run_r2c(plan, in, out); break;
    case FftKind::C2R: Fftw<R>::run_c2r(plan, in, out); break;
  }
}

void fftw_kernel(FftKind kind, bool forward, const Tensor& input, const Tensor& output, IntArrayRef dims) {
  const ScalarType t = kind == FftKind::R2C ? input.scalar_type() : c10::toRealValueType(input.scalar_type());
  if (t == ScalarType::Double) {
    run_fft<double>(kind, forward, input, output, dims);
  } else {
    run_fft<float>(kind, forward, input, output, dims);
  }
}

}  // namespace

}  // namespace ember::native::cpu

namespace ember::native {
EMBER_REGISTER_STUB(fft_stub, CPU, &cpu::fftw_kernel);
}  // namespace ember::native
