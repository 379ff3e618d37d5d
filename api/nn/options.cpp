#include <api/nn/options.h>

#include <c10/util/Exception.h>

#include <fmt/format.h>

namespace ember::nn {

IntPair::IntPair(std::initializer_list<int64_t> list) : values{0, 0} {
  EMBER_CHECK_VALUE(list.size() == 1 || list.size() == 2, "expected one or two integers, got {}", list.size());
  values[0] = *list.begin();
  values[1] = *(list.end() - 1);
}

std::string py_repr(double v) {
  std::string s = fmt::format("{}", v);
  // fmt's shortest form is Python's, except that integral values lack ".0".
  if (s.find_first_of(".eEna") == std::string::npos) s += ".0";
  return s;
}

std::string py_repr(bool v) { return v ? "True" : "False"; }

std::string py_repr(const IntPair& v) { return v.single ? std::to_string(v[0]) : py_tuple(v); }

std::string py_tuple(const IntPair& v) { return fmt::format("({}, {})", v[0], v[1]); }

}  // namespace ember::nn
