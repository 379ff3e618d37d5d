#pragma once
// Ember's file format, readable from C++ and Python alike: a tree of plain
// values (None, bool, int, float, str, bytes, tensors, lists, tuples, dicts)
// and the bytes of the storages the tensors use. Tensors that share memory
// share it again after loading (views stay views of one storage). Loading
// only reads data; a damaged or truncated file is an error naming the
// problem.

#include <aten/core/Tensor.h>

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace ember::serialize {

// The newest format this build writes and reads.
constexpr uint32_t kFormatVersion = 1;

struct Value {
  enum class Kind { None, Bool, Int, Float, String, Bytes, Tensor, List, Tuple, Dict, OrderedDict, Dtype, Device };

  Value() = default;
  static Value none() { return Value(); }
  static Value of(bool v);
  static Value of(int64_t v);
  static Value of(double v);
  static Value of(std::string v);
  static Value bytes(std::string v);
  static Value of(Tensor t, std::string kind = "Tensor");
  static Value list(std::vector<Value> items);
  static Value tuple(std::vector<Value> items);
  static Value dict(std::vector<std::pair<Value, Value>> entries, bool ordered = false);
  static Value dtype(ScalarType t);
  static Value device(Device d);

  Kind kind = Kind::None;
  bool bool_value = false;
  int64_t int_value = 0;
  double float_value = 0;
  std::string string_value;  // String, Bytes, tensor kind ("Tensor"/"Parameter"), Dtype, Device
  Tensor tensor;
  std::vector<Value> items;                      // List, Tuple
  std::vector<std::pair<Value, Value>> entries;  // Dict, OrderedDict (in order)
};

void save(const Value& root, std::ostream& out);
void save(const Value& root, const std::string& path);
// `name` appears in error messages (a path, or "<bytes>").
Value load(std::istream& in, const std::string& name);
Value load(const std::string& path);

// A state_dict: names to tensors, in order.
void save_tensors(const std::vector<std::pair<std::string, Tensor>>& tensors, const std::string& path);
std::vector<std::pair<std::string, Tensor>> load_tensors(const std::string& path);

}  // namespace ember::serialize
