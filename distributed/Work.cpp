#include <distributed/Work.h>

namespace ember::distributed {

void Work::finish(std::exception_ptr error) {
  std::lock_guard<std::mutex> lock(mutex_);
  error_ = error;
  completed_ = true;
  done_.notify_all();
}

void Work::run(const std::function<void()>& body) {
  std::exception_ptr error;
  try {
    body();
  } catch (...) {
    error = std::current_exception();
  }
  finish(error);
}

bool Work::is_completed() {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_;
}

bool Work::is_success() {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ && !error_;
}

std::exception_ptr Work::exception() {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

void Work::wait(std::chrono::milliseconds timeout) {
  if (completion_) {
    std::call_once(completion_once_, [&] { run([&] { completion_(timeout, *this); }); });
  }
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout.count() > 0) {
    const bool finished = done_.wait_for(lock, timeout, [&] { return completed_; });
    EMBER_CHECK_OF(DistBackendError, finished, "{}: timed out after {} ms waiting for the work to complete",
                   description_, timeout.count());
  } else {
    done_.wait(lock, [&] { return completed_; });
  }
  if (error_) std::rethrow_exception(error_);
}

}  // namespace ember::distributed
