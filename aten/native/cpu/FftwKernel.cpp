// The CPU fft_stub on FFTW 3: guru64 plans (any strides, any batch rank),
// kept in a small cache per geometry and run on each call's arrays with
// FFTW's new-array execute functions (thread-safe, unlike planning, which a
// mutex serializes).
//
// Plans are measured (FFTW_MEASURE, on scratch arrays) where that is quick
// enough: FFTW's estimated plans run 2-4x slower on 2-D transforms. What was
// learned (FFTW's "wisdom") is kept in a file in the user's cache dir and
// read back by the next process: each geometry is measured once per
// machine. Large signals and huge batches are planned by estimate
// (kMaxMeasuredSignal).

#include <aten/Functions.h>
#include <aten/Parallel.h>
#include <aten/native/SpectralOps.h>
#include <c10/util/CacheDir.h>

#include <fftw3.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <list>
#include <mutex>
#include <optional>
#include <string>
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
                  complex* out, int sign, unsigned flags) {
    return fftw_plan_guru64_dft(rank, dims, batch_rank, batch, in, out, sign, flags);
  }
  static plan r2c(int rank, const fftw_iodim64* dims, int batch_rank, const fftw_iodim64* batch, double* in,
                  complex* out, unsigned flags) {
    return fftw_plan_guru64_dft_r2c(rank, dims, batch_rank, batch, in, out, flags);
  }
  static plan c2r(int rank, const fftw_iodim64* dims, int batch_rank, const fftw_iodim64* batch, complex* in,
                  double* out, unsigned flags) {
    return fftw_plan_guru64_dft_c2r(rank, dims, batch_rank, batch, in, out, flags | FFTW_DESTROY_INPUT);
  }
  static void run_c2c(plan p, void* in, void* out) { fftw_execute_dft(p, (complex*)in, (complex*)out); }
  static void run_r2c(plan p, void* in, void* out) { fftw_execute_dft_r2c(p, (double*)in, (complex*)out); }
  static void run_c2r(plan p, void* in, void* out) { fftw_execute_dft_c2r(p, (complex*)in, (double*)out); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
  static int alignment_of(void* p) { return fftw_alignment_of(static_cast<double*>(p)); }
  static void* malloc(size_t bytes) { return fftw_malloc(bytes); }
  static void free(void* p) { fftw_free(p); }
  static void init_threads() { fftw_init_threads(); }
  static void plan_with_nthreads(int n) { fftw_plan_with_nthreads(n); }
  static void import_wisdom(const char* path) { fftw_import_wisdom_from_filename(path); }
  static void export_wisdom(const char* path) { fftw_export_wisdom_to_filename(path); }
  static constexpr const char* kWisdomFile = "fftw_wisdom_double";
};

template <>
struct Fftw<float> {
  using plan = fftwf_plan;
  using complex = fftwf_complex;
  static plan c2c(int rank, const fftw_iodim64* dims, int batch_rank, const fftw_iodim64* batch, complex* in,
                  complex* out, int sign, unsigned flags) {
    return fftwf_plan_guru64_dft(rank, dims, batch_rank, batch, in, out, sign, flags);
  }
  static plan r2c(int rank, const fftw_iodim64* dims, int batch_rank, const fftw_iodim64* batch, float* in,
                  complex* out, unsigned flags) {
    return fftwf_plan_guru64_dft_r2c(rank, dims, batch_rank, batch, in, out, flags);
  }
  static plan c2r(int rank, const fftw_iodim64* dims, int batch_rank, const fftw_iodim64* batch, complex* in,
                  float* out, unsigned flags) {
    return fftwf_plan_guru64_dft_c2r(rank, dims, batch_rank, batch, in, out, flags | FFTW_DESTROY_INPUT);
  }
  static void run_c2c(plan p, void* in, void* out) { fftwf_execute_dft(p, (complex*)in, (complex*)out); }
  static void run_r2c(plan p, void* in, void* out) { fftwf_execute_dft_r2c(p, (float*)in, (complex*)out); }
  static void run_c2r(plan p, void* in, void* out) { fftwf_execute_dft_c2r(p, (complex*)in, (float*)out); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
  static int alignment_of(void* p) { return fftwf_alignment_of(static_cast<float*>(p)); }
  static void* malloc(size_t bytes) { return fftwf_malloc(bytes); }
  static void free(void* p) { fftwf_free(p); }
  static void init_threads() { fftwf_init_threads(); }
  static void plan_with_nthreads(int n) { fftwf_plan_with_nthreads(n); }
  static void import_wisdom(const char* path) { fftwf_import_wisdom_from_filename(path); }
  static void export_wisdom(const char* path) { fftwf_export_wisdom_to_filename(path); }
  static constexpr const char* kWisdomFile = "fftwf_wisdom_float";
};

// Where wisdom is kept: Ember's cache folder (empty: nowhere).
std::string wisdom_dir() {
  const std::string dir = c10::ember_cache_dir();
  if (dir.empty()) return "";
  ::mkdir(dir.substr(0, dir.rfind('/')).c_str(), 0755);  // $XDG_CACHE_HOME or ~/.cache
  ::mkdir(dir.c_str(), 0755);
  return dir;
}

template <typename R>
std::string wisdom_path() {
  static const std::string dir = wisdom_dir();
  return dir.empty() ? "" : dir + "/" + Fftw<R>::kWisdomFile;
}

// Written whole under a temporary name, then renamed: a process reading it
// meanwhile sees the old file or the new one.
template <typename R>
void save_wisdom() {
  const std::string path = wisdom_path<R>();
  if (path.empty()) return;
  const std::string tmp = path + "." + std::to_string(::getpid());
  Fftw<R>::export_wisdom(tmp.c_str());
  if (std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

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
  // make(flags) plans; a measured plan's wisdom is saved for the next process.
  template <typename Make>
  Plan get(const PlanKey& key, bool measure, Make&& make) {
    std::lock_guard<std::mutex> lock(planner_mutex());
    if (!wisdom_loaded_) {
      wisdom_loaded_ = true;
      const std::string path = wisdom_path<R>();
      if (!path.empty()) Fftw<R>::import_wisdom(path.c_str());
    }
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->first == key) {
        entries_.splice(entries_.begin(), entries_, it);
        return entries_.front().second;
      }
    }
    Fftw<R>::plan_with_nthreads(key.threads);
    Plan plan = make(measure ? FFTW_MEASURE : FFTW_ESTIMATE);
    EMBER_CHECK(plan != nullptr, "fft: FFTW could not plan this transform");
    if (measure) save_wisdom<R>();
    entries_.emplace_front(key, plan);
    if (entries_.size() > kCapacity) {
      Fftw<R>::destroy(entries_.back().second);
      entries_.pop_back();
    }
    return plan;
  }

  // FFTW's planner (one per precision: fftw and fftwf are separate
  // libraries) is not thread-safe.
  static std::mutex& planner_mutex() {
    static std::mutex m;
    static const bool threads_ready = (Fftw<R>::init_threads(), true);
    (void)threads_ready;
    return m;
  }

 private:
  std::list<std::pair<PlanKey, Plan>> entries_;
  bool wisdom_loaded_ = false;
};

// Elements from an array's first to its last, plus one.
int64_t extent(const std::vector<fftw_iodim64>& dims, const std::vector<fftw_iodim64>& batch, bool input) {
  int64_t last = 0;
  for (const auto* list : {&dims, &batch}) {
    for (const fftw_iodim64& d : *list) last += (d.n - 1) * (input ? d.is : d.os);
  }
  return last + 1;
}

// Scratch arrays for measuring, freed when planning is done. Each sits at
// the same offset from a 64-byte boundary as the array it stands for, so the
// plan made on it may run on that array (FFTW compares SIMD alignments).
template <typename R>
struct Scratch {
  void* base;
  void* p;
  Scratch(size_t bytes, const void* like) : base(Fftw<R>::malloc(bytes + 64)) {
    EMBER_CHECK(base != nullptr, "fft: out of memory for FFTW's planning buffers ({} bytes)", bytes);
    p = static_cast<char*>(base) + reinterpret_cast<uintptr_t>(like) % 64;
  }
  ~Scratch() { Fftw<R>::free(base); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};

template <typename R>
PlanCache<R>& plan_cache() {
  static auto* cache = new PlanCache<R>();  // leaked: plans may run during static destruction
  return *cache;
}

// Measuring is worth its time up to 64K-point signals (a 256x256 image:
// ~0.2 s once per machine); a 1M-point signal would take 3 to 20 s, so
// larger signals, and batches whose arrays exceed 4M elements, are planned
// by estimate.
constexpr int64_t kMaxMeasuredSignal = int64_t{1} << 16;
constexpr int64_t kMaxMeasuredElements = int64_t{1} << 22;

using IoDims = std::vector<fftw_iodim64>;

// Bytes of one element of a transform's input (output): real on the real
// side of an R2C (C2R), complex otherwise.
template <typename R>
constexpr int64_t element_bytes(FftKind kind, bool input) {
  return kind == (input ? FftKind::R2C : FftKind::C2R) ? sizeof(R) : sizeof(typename Fftw<R>::complex);
}

// The cached plan for one FFTW call on these arrays (they fix its alignment
// and whether it runs in place), made on first use.
template <typename R>
typename Fftw<R>::plan plan_for(FftKind kind, bool forward, void* in, void* out, const IoDims& dims,
                                const IoDims& batch, int threads) {
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
  const size_t in_element = element_bytes<R>(kind, true), out_element = element_bytes<R>(kind, false);
  const int64_t in_extent = extent(dims, batch, true), out_extent = extent(dims, batch, false);
  // Measured on scratch arrays aligned as FFTW aligns (as Ember's allocator
  // does); one array stands for both when the transform runs in place.
  int64_t signal = 1;
  for (const fftw_iodim64& d : dims) signal *= d.n;
  const bool measure = signal <= kMaxMeasuredSignal && std::max(in_extent, out_extent) <= kMaxMeasuredElements;
  return plan_cache<R>().get(key, measure, [&](unsigned flags) {
    std::optional<Scratch<R>> scratch_in, scratch_out;
    void* plan_in = in;
    void* plan_out = out;
    if (measure) {
      plan_in = scratch_in.emplace(static_cast<size_t>(std::max(in_extent, key.in_place ? out_extent : 0)) *
                                       std::max(in_element, out_element), in).p;
      plan_out = key.in_place ? plan_in : scratch_out.emplace(static_cast<size_t>(out_extent) * out_element, out).p;
    }
    switch (kind) {
      case FftKind::C2C:
        return Fftw<R>::c2c(rank, dims.data(), batch_rank, batch.data(), static_cast<C*>(plan_in),
                            static_cast<C*>(plan_out), forward ? FFTW_FORWARD : FFTW_BACKWARD, flags);
      case FftKind::R2C:
        return Fftw<R>::r2c(rank, dims.data(), batch_rank, batch.data(), static_cast<R*>(plan_in),
                            static_cast<C*>(plan_out), flags);
      case FftKind::C2R:
        return Fftw<R>::c2r(rank, dims.data(), batch_rank, batch.data(), static_cast<C*>(plan_in),
                            static_cast<R*>(plan_out), flags);
    }
    return typename Fftw<R>::plan{};
  });
}

template <typename R>
void execute(FftKind kind, typename Fftw<R>::plan plan, void* in, void* out) {
  switch (kind) {
    case FftKind::C2C: Fftw<R>::run_c2c(plan, in, out); break;
    case FftKind::R2C: Fftw<R>::run_r2c(plan, in, out); break;
    case FftKind::C2R: Fftw<R>::run_c2r(plan, in, out); break;
  }
}

// The transforms of `batch` shared out over `threads` threads by cutting its
// longest dimension, each part a single-threaded plan. FFTW's own threads
// split a multi-dimensional transform poorly and unpredictably: a 256x256
// fft2 took 150 us on one thread and 134 to 346 on two (as its planner's
// measurements fell), against 138-143 as run_fft's passes.
template <typename R>
void run_parts(FftKind kind, bool forward, char* in, char* out, const IoDims& dims, const IoDims& batch,
               int threads) {
  const size_t cut = static_cast<size_t>(
      std::max_element(batch.begin(), batch.end(), [](const auto& a, const auto& b) { return a.n < b.n; }) -
      batch.begin());
  const int64_t n = batch[cut].n;
  const int parts = static_cast<int>(std::min<int64_t>(threads, n));
  const int64_t in_element = element_bytes<R>(kind, true), out_element = element_bytes<R>(kind, false);
  struct Part {
    char* in;
    char* out;
    typename Fftw<R>::plan plan;
  };
  std::vector<Part> plans;
  for (int p = 0; p < parts; ++p) {
    const int64_t start = n * p / parts;
    IoDims part = batch;
    part[cut].n = n * (p + 1) / parts - start;
    char* part_in = in + start * batch[cut].is * in_element;
    char* part_out = out + start * batch[cut].os * out_element;
    plans.push_back({part_in, part_out, plan_for<R>(kind, forward, part_in, part_out, dims, part, 1)});
  }
  parallel_for(0, parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) execute<R>(kind, plans[p].plan, plans[p].in, plans[p].out);
  });
}

template <typename R>
void run_fft(FftKind kind, bool forward, const Tensor& input, const Tensor& output, IntArrayRef transform_dims) {
  // Strides in elements of each array's own type (complex or real).
  const Tensor& logical = kind == FftKind::C2R ? output : input;
  std::vector<bool> is_transform(input.dim(), false);
  IoDims dims, batch;
  for (int64_t d : transform_dims) {
    is_transform[d] = true;
    dims.push_back({logical.size(d), input.stride(d), output.stride(d)});
  }
  for (int64_t d = 0; d < input.dim(); ++d) {
    if (!is_transform[d]) batch.push_back({input.size(d), input.stride(d), output.stride(d)});
  }
  char* in = static_cast<char*>(input.data_ptr());
  char* out = static_cast<char*>(output.data_ptr());
  const int threads = output.numel() >= (int64_t{1} << 15) ? std::max(1, get_num_threads()) : 1;
  const bool whole_per_thread =
      std::any_of(batch.begin(), batch.end(), [&](const fftw_iodim64& d) { return d.n >= threads; });
  // One-dimensional transforms, a C2R of several dimensions over too small
  // a batch and single-threaded work: one FFTW plan (FFTW's threads share
  // out one-dimensional work well). Several dimensions: whole transforms per
  // thread where the batch allows, else passes.
  if (threads == 1 || dims.size() == 1 || (kind == FftKind::C2R && !whole_per_thread)) {
    execute<R>(kind, plan_for<R>(kind, forward, in, out, dims, batch, threads), in, out);
  } else if (whole_per_thread) {
    run_parts<R>(kind, forward, in, out, dims, batch, threads);
  } else {
    // One pass per transformed dimension, first along the one whose lines
    // are contiguous (an R2C's real one: the last), its lines shared out
    // over the threads; each later pass reads the previous one's array and
    // writes the other, so that the last pass writes the output. The later
    // (strided) passes are single-threaded: FFTW's plans for part of their
    // lines ran 3x slower than for all of them, and its threaded plans took
    // 80 to 280 us for a 256x256 array's columns as its planner's
    // measurements fell (single-threaded: 100).
    std::vector<int64_t> order(transform_dims.begin(), transform_dims.end());
    if (kind == FftKind::C2C) {
      std::iter_swap(order.end() - 1, std::min_element(order.begin(), order.end(), [&](int64_t a, int64_t b) {
                       return std::abs(output.stride(a)) < std::abs(output.stride(b));
                     }));
    }
    const int64_t first = order.back();
    const size_t passes = order.size();
    Tensor scratch = ember::empty_strided(output.sizes(), output.strides(), output.scalar_type());
    char* buffers[2] = {out, static_cast<char*>(scratch.data_ptr())};
    IoDims others;
    for (int64_t d = 0; d < input.dim(); ++d) {
      if (d != first) others.push_back({input.size(d), input.stride(d), output.stride(d)});
    }
    char* written = buffers[(passes - 1) % 2];
    run_parts<R>(kind, forward, in, written, {{logical.size(first), input.stride(first), output.stride(first)}},
                 others, threads);
    for (size_t i = passes - 1; i-- > 0;) {
      const int64_t along = order[i];
      IoDims rest;
      for (int64_t d = 0; d < output.dim(); ++d) {
        if (d != along) rest.push_back({output.size(d), output.stride(d), output.stride(d)});
      }
      const fftw_iodim64 line{output.size(along), output.stride(along), output.stride(along)};
      char* target = buffers[i % 2];
      execute<R>(FftKind::C2C, plan_for<R>(FftKind::C2C, forward, written, target, {line}, rest, 1), written, target);
      written = target;
    }
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
