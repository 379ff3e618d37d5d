#include <aten/Parallel.h>

#include <c10/util/Exception.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <omp.h>
#include <pthread.h>
#include <thread>
#include <vector>

namespace ember {

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

// One job at a time: workers wake for it, claim chunks through an atomic
// counter, and the last one out signals the caller.
class ThreadPool {
 public:
  static ThreadPool& instance() {
    // Leaked: workers may outlive static destruction.
    static const bool created = [] {
      current.store(new ThreadPool());
      // A forked child has none of the parent's workers, and may have been
      // forked while one held the pool's lock: it starts a pool of its own.
      pthread_atfork(nullptr, nullptr, [] {
        current.store(new ThreadPool());
        // The OpenMP runtime under oneDNN keeps the parent's thread team and
        // would wait for it forever: the child's OpenMP regions run on one thread.
        in_forked_child = true;
        omp_set_num_threads(1);
      });
      return true;
    }();
    (void)created;
    return *current.load(std::memory_order_acquire);
  }

  void run(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& f) {
    std::lock_guard<std::mutex> job_lock(job_mutex_);  // serializes concurrent callers
    resize(get_num_threads() - 1);
    const int64_t n = end - begin;
    const int64_t max_chunks = static_cast<int64_t>(workers_.size()) + 1;
    const int64_t chunks = std::min(max_chunks, (n + grain - 1) / grain);
    const int64_t chunk_size = (n + chunks - 1) / chunks;
    {
      // Workers still leaving the previous job must be gone before it is replaced.
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [&] { return busy_ == 0; });
      job_ = Job{begin, end, chunk_size, chunks, &f};
      next_chunk_.store(0);
      pending_ = chunks;
      error_ = nullptr;
      ++generation_;
      published_generation_.store(generation_, std::memory_order_release);
    }
    wake_.notify_all();
    work_on_job();
    spin_until([&] { return pending_.load(std::memory_order_acquire) == 0; });
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
    if (error_) std::rethrow_exception(error_);
  }

 private:
  struct Job {
    int64_t begin = 0, end = 0, chunk_size = 1, chunks = 0;
    const std::function<void(int64_t, int64_t)>* f = nullptr;
  };

  void resize(int n) {
    while (static_cast<int>(workers_.size()) < n) {
      const size_t id = workers_.size();
      workers_.emplace_back([this, id] { worker_loop(id); });
      workers_.back().detach();
    }
    active_workers_.store(n);
  }

  void worker_loop(size_t id) {
    tls_in_parallel = true;
    uint64_t seen = 0;
    while (true) {
      spin_until([&] { return published_generation_.load(std::memory_order_acquire) != seen; });
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (static_cast<int>(id) >= active_workers_.load()) continue;
        ++busy_;  // under the lock: the next job waits for this worker to leave
      }
      work_on_job();
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) done_.notify_all();
    }
  }

  void work_on_job() {
    const bool was_parallel = tls_in_parallel;
    tls_in_parallel = true;
    int64_t chunk;
    while ((chunk = next_chunk_.fetch_add(1)) < job_.chunks) {
      const int64_t b = job_.begin + chunk * job_.chunk_size;
      const int64_t e = std::min(job_.end, b + job_.chunk_size);
      try {
        if (b < e) (*job_.f)(b, e);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_ == 0) done_.notify_all();
    }
    tls_in_parallel = was_parallel;
  }

  // Waking a sleeping thread costs tens of microseconds on a VM, as much as
  // a mid-sized kernel: workers (and the caller, waiting for them) spin for
  // a few microseconds before they sleep, which catches the next parallel_for
  // of a sequence of operators.
  template <typename Ready>
  static void spin_until(Ready ready) {
    for (int i = 0; i < kSpinIterations && !ready(); ++i) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
  }
  static constexpr int kSpinIterations = 4000;

  std::mutex job_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  std::atomic<int> active_workers_{0};
  Job job_;
  std::atomic<int64_t> next_chunk_{0};
  std::atomic<int64_t> pending_{0};  // chunks not yet finished; changed under mutex_
  int busy_ = 0;  // workers inside work_on_job
  uint64_t generation_ = 0;
  std::atomic<uint64_t> published_generation_{0};  // generation_, readable without the lock
  std::exception_ptr error_;

  static inline std::atomic<ThreadPool*> current{nullptr};
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
  // oneDNN's kernels (convolution, pooling) run on OpenMP: they follow too.
  if (!in_forked_child.load()) omp_set_num_threads(n);
}

bool in_parallel_region() { return tls_in_parallel; }

namespace detail {
void parallel_for_impl(int64_t begin, int64_t end, int64_t grain_size,
                       const std::function<void(int64_t, int64_t)>& f) {
  ThreadPool::instance().run(begin, end, std::max<int64_t>(grain_size, 1), f);
}
}  // namespace detail

}  // namespace ember
