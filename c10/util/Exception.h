#pragma once
// Errors raised by Ember. Each C++ class maps to one Python exception type in
// the binding (Error -> RuntimeError, IndexError -> IndexError, ...), so the
// class chosen at the throw site decides what a Python user can catch.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>
#include <string>

namespace c10 {

class Error : public std::runtime_error {
 public:
  Error(std::string msg, const char* file = "", int line = 0)
      : std::runtime_error(std::move(msg)), file_(file), line_(line) {}
  const char* file() const noexcept { return file_; }
  int line() const noexcept { return line_; }

 private:
  const char* file_;
  int line_;
};

class IndexError : public Error { using Error::Error; };
class TypeError : public Error { using Error::Error; };
class ValueError : public Error { using Error::Error; };
class NotImplementedError : public Error { using Error::Error; };
// A device allocator ran out of memory (Python: ember.cuda.OutOfMemoryError,
// a RuntimeError).
class OutOfMemoryError : public Error { using Error::Error; };
// A factorization or solver failed on its input (singular, not positive-definite,
// no convergence). Python: ember.linalg.LinAlgError, a RuntimeError.
class LinAlgError : public Error { using Error::Error; };

namespace detail {
template <typename E>
[[noreturn]] void throw_error(const char* file, int line, std::string msg) {
  throw E(std::move(msg), file, line);
}
}  // namespace detail

}  // namespace c10

// A macro rather than a function so the message is only formatted on failure
// and fmt checks the format string at compile time.
#define EMBER_CHECK_OF(ErrorType, cond, ...)                                              \
  do {                                                                                    \
    if (__builtin_expect(!(cond), 0)) {                                                   \
      ::c10::detail::throw_error<ErrorType>(__FILE__, __LINE__, ::fmt::format(__VA_ARGS__)); \
    }                                                                                     \
  } while (0)

#define EMBER_CHECK(cond, ...) EMBER_CHECK_OF(::c10::Error, cond, __VA_ARGS__)
#define EMBER_CHECK_INDEX(cond, ...) EMBER_CHECK_OF(::c10::IndexError, cond, __VA_ARGS__)
#define EMBER_CHECK_TYPE(cond, ...) EMBER_CHECK_OF(::c10::TypeError, cond, __VA_ARGS__)
#define EMBER_CHECK_VALUE(cond, ...) EMBER_CHECK_OF(::c10::ValueError, cond, __VA_ARGS__)
#define EMBER_CHECK_NOT_IMPLEMENTED(cond, ...) EMBER_CHECK_OF(::c10::NotImplementedError, cond, __VA_ARGS__)
#define EMBER_CHECK_LINALG(cond, ...) EMBER_CHECK_OF(::c10::LinAlgError, cond, __VA_ARGS__)
// Internal invariants: a failure here is a bug in Ember, not in the caller.
#define EMBER_INTERNAL_ASSERT(cond) \
  EMBER_CHECK(cond, "internal assert failed: {} at {}:{}; please report a bug", #cond, __FILE__, __LINE__)
