#include <aten/Parallel.h>

#include <c10/util/Exception.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <omp.h>
#include <pthread.h>
#include <thread>

namespace ember {

// Kernels run on the OpenMP runtime, the one oneDNN's convolutions and
// pooling run on: a second pool beside it would put three busy threads on
// two cores whenever one pool's idle threads still spin, and a descheduled
// thread stalls its whole team for a scheduler slice (milliseconds).

namespace {

thread_local bool tls_in_parallel = false;

int default_num_threads() {
  for (const char* var : {"EMBER_NUM_THREADS", "OMP_NUM_THREADS"}) {
    if (const char* v = std::getenv(var)) {
      const int n = std::atoi(v);
      if (n > 0) return n;
    }
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

std::atomic<int> requested_threads{0};  // 0: not yet decided
std::atomic<bool> in_forked_child{false};

// A forked child (a DataLoader worker) inherits the parent's OpenMP state
// but not its threads, and a region there would wait for them forever: the
// child runs its kernels on one thread, as torch's workers do.
const bool fork_handler_installed = [] {
  pthread_atfork(nullptr, nullptr, [] {
    in_forked_child = true;
    omp_set_num_threads(1);
  });
  return true;
}();

struct InParallel {
  InParallel() : was(tls_in_parallel) { tls_in_parallel = true; }
  ~InParallel() { tls_in_parallel = was; }
  bool was;
};

}  // namespace

int get_num_threads() {
  int n = requested_threads.load();
  if (n == 0) {
    n = default_num_threads();
    requested_threads.store(n);
  }
  return n;
}

void set_num_threads(int n) {
  EMBER_CHECK_VALUE(n > 0, "set_num_threads expects a positive integer, got {}", n);
  requested_threads.store(n);
  if (!in_forked_child.load()) omp_set_num_threads(n);
}

bool in_parallel_region() { return tls_in_parallel; }

void use_num_threads_on_this_thread() {
  // Inside a region oneDNN runs on the calling thread anyway (no nesting).
  if (tls_in_parallel || in_forked_child.load()) return;
  const int n = get_num_threads();
  if (omp_get_max_threads() != n) omp_set_num_threads(n);
}

namespace detail {
void parallel_for_impl(int64_t begin, int64_t end, int64_t grain_size,
                       const std::function<void(int64_t, int64_t)>& f) {
  (void)fork_handler_installed;
  if (in_forked_child.load()) {
    InParallel serial;
    f(begin, end);
    return;
  }
  const int64_t n = end - begin, grain = std::max<int64_t>(grain_size, 1);
  const int64_t teams = std::min<int64_t>(get_num_threads(), (n + grain - 1) / grain);
  std::exception_ptr error;
  std::mutex error_mutex;
#pragma omp parallel num_threads(static_cast<int>(teams))
  {
    // The team may be smaller than asked for: chunks follow its real size.
    const int64_t threads = omp_get_num_threads(), chunk = (n + threads - 1) / threads;
    const int64_t b = begin + omp_get_thread_num() * chunk, e = std::min(end, b + chunk);
    if (b < e) {
      InParallel inside;
      try {
        f(b, e);
      } catch (...) {  // an exception must not leave an OpenMP region
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}
}  // namespace detail

}  // namespace ember
