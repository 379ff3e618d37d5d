#pragma once
// The handle of a collective or a point-to-point transfer (torch's
// c10d::Work): wait() blocks until it finishes and rethrows its error;
// is_completed() polls. Collectives run on their process group's worker
// thread and finish there; a transfer finishes when waited for, since only
// the wait can tell that the peer took part.

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include <c10/util/Exception.h>

namespace ember::distributed {

// A collective or its transport failed (a peer died, timed out, or sent what
// this rank did not expect): Python's ember.distributed.DistBackendError,
// a RuntimeError, as torch's.
class DistBackendError : public c10::Error {
  using c10::Error::Error;
};

class Work {
 public:
  // `completion`, if given, is what wait() runs first (once) to finish the work.
  using Completion = std::function<void(std::chrono::milliseconds, Work&)>;
  explicit Work(std::string description, Completion completion = nullptr)
      : description_(std::move(description)), completion_(std::move(completion)) {}

  // Runs the collective and records how it ended.
  void run(const std::function<void()>& body);

  bool is_completed();
  bool is_success();
  // Waits for completion (at most `timeout`, if positive) and rethrows the
  // work's error, if any.
  void wait(std::chrono::milliseconds timeout = std::chrono::milliseconds(0));
  std::exception_ptr exception();
  const std::string& description() const { return description_; }
  // The rank a receive got its data from (-1 for other work), known once waited for.
  int source_rank() const { return source_rank_; }
  void set_source_rank(int rank) { source_rank_ = rank; }

 private:
  void finish(std::exception_ptr error);

  std::string description_;
  Completion completion_;
  std::once_flag completion_once_;
  std::mutex mutex_;
  std::condition_variable done_;
  bool completed_ = false;
  std::exception_ptr error_;
  int source_rank_ = -1;
};

}  // namespace ember::distributed
