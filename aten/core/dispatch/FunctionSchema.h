#pragma once
// Operator schemas in PyTorch's grammar, e.g.
//   add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
//   transpose(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
//   fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)
// parse_schema() reads one; str() writes it back in canonical form.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ember {

struct SchemaType {
  enum class Kind { Tensor, Int, Float, Bool, Str, Scalar, ScalarType, Device, Generator, Layout, MemoryFormat };
  Kind kind = Kind::Tensor;
  bool elem_optional = false;           // Tensor?[]: a list of optional tensors
  bool is_list = false;                 // int[]
  std::optional<int64_t> list_size;     // int[2]
  bool optional = false;                // Tensor?, int[]?

  std::string str() const;
  bool is_tensor_like() const { return kind == Kind::Tensor; }
  friend bool operator==(const SchemaType& a, const SchemaType& b) {
    return a.kind == b.kind && a.elem_optional == b.elem_optional && a.is_list == b.is_list &&
           a.list_size == b.list_size && a.optional == b.optional;
  }
};

// `(a)` marks a view of alias set a; `(a!)` a write to it.
struct AliasInfo {
  std::string set;
  bool is_write = false;
  friend bool operator==(const AliasInfo& a, const AliasInfo& b) { return a.set == b.set && a.is_write == b.is_write; }
};

struct SchemaArgument {
  std::string name;
  SchemaType type;
  std::optional<AliasInfo> alias;
  std::optional<std::string> default_value;  // as written: "1", "None", "[0, 1]", "True"
  bool kwarg_only = false;
  std::string str() const;
};

struct SchemaReturn {
  std::optional<std::string> name;
  SchemaType type;
  std::optional<AliasInfo> alias;
  std::string str() const;
};

struct FunctionSchema {
  std::string name;      // qualified: "aten::add"
  std::string overload;  // "Tensor", or empty
  std::vector<SchemaArgument> arguments;
  std::vector<SchemaReturn> returns;

  // "aten::add.Tensor"
  std::string qualified_name() const { return overload.empty() ? name : name + "." + overload; }
  // Name without namespace, e.g. "add".
  std::string base_name() const;
  bool is_mutable() const;
  std::string str() const;
};

// Throws c10::Error naming the position of a syntax error. A name without a
// namespace gets `default_namespace`.
FunctionSchema parse_schema(std::string_view text, std::string_view default_namespace = "aten");

}  // namespace ember
