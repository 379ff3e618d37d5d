#pragma once
// The message of the ember error that `f` raises, or "<no error>".

#include <c10/util/Exception.h>

#include <string>

namespace ember::testing {

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const c10::Error& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace ember::testing
