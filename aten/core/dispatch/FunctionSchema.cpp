#include <aten/core/dispatch/FunctionSchema.h>
#include <c10/util/Exception.h>

#include <cctype>

namespace ember {

namespace {

constexpr std::pair<std::string_view, SchemaType::Kind> kTypeNames[] = {
    {"Tensor", SchemaType::Kind::Tensor},         {"int", SchemaType::Kind::Int},
    {"SymInt", SchemaType::Kind::Int},            {"float", SchemaType::Kind::Float},
    {"bool", SchemaType::Kind::Bool},             {"str", SchemaType::Kind::Str},
    {"Scalar", SchemaType::Kind::Scalar},         {"ScalarType", SchemaType::Kind::ScalarType},
    {"Device", SchemaType::Kind::Device},         {"Generator", SchemaType::Kind::Generator},
    {"Layout", SchemaType::Kind::Layout},         {"MemoryFormat", SchemaType::Kind::MemoryFormat},
};

std::string_view kind_name(SchemaType::Kind k) {
  for (const auto& [name, kind] : kTypeNames)
    if (kind == k) return name;  // SymInt prints as int: they are one type here
  return "?";
}

std::string alias_str(const std::optional<AliasInfo>& a) {
  return a ? "(" + a->set + (a->is_write ? "!" : "") + ")" : "";
}

// Recursive-descent reader over the schema text.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  FunctionSchema schema(std::string_view default_namespace) {
    FunctionSchema s;
    skip_space();
    std::string name = identifier_with("_:");
    if (name.find("::") == std::string::npos) name = std::string(default_namespace) + "::" + name;
    s.name = name;
    if (accept('.')) s.overload = identifier_with("_");
    skip_space();
    expect('(');
    bool kwarg_only = false;
    skip_space();
    if (!accept(')')) {
      do {
        skip_space();
        if (accept('*')) {
          EMBER_CHECK(!kwarg_only, "schema: '*' appears twice at position {} in '{}'", pos_, text_);
          kwarg_only = true;
          continue;
        }
        SchemaArgument arg;
        std::tie(arg.type, arg.alias) = type();
        skip_space();
        arg.name = identifier_with("_");
        skip_space();
        if (accept('=')) arg.default_value = default_text();
        arg.kwarg_only = kwarg_only;
        s.arguments.push_back(std::move(arg));
        skip_space();
      } while (accept(','));
      expect(')');
    }
    skip_space();
    expect('-');
    expect('>');
    skip_space();
    if (accept('(')) {
      skip_space();
      if (!accept(')')) {
        do {
          s.returns.push_back(one_return());
          skip_space();
        } while (accept(','));
        expect(')');
      }
    } else {
      s.returns.push_back(one_return());
    }
    skip_space();
    EMBER_CHECK(pos_ == text_.size(), "schema: unexpected '{}' at position {} in '{}'", text_.substr(pos_), pos_,
                text_);
    return s;
  }

 private:
  SchemaReturn one_return() {
    skip_space();
    SchemaReturn r;
    std::tie(r.type, r.alias) = type();
    skip_space();
    if (pos_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      r.name = identifier_with("_");
    }
    return r;
  }

  std::pair<SchemaType, std::optional<AliasInfo>> type() {
    SchemaType t;
    const std::string base = identifier_with("");
    bool known = false;
    for (const auto& [name, kind] : kTypeNames) {
      if (name == base) {
        t.kind = kind;
        known = true;
      }
    }
    EMBER_CHECK(known, "schema: unknown type '{}' at position {} in '{}'", base, pos_, text_);
    std::optional<AliasInfo> alias;
    if (accept('(')) {
      AliasInfo a;
      a.set = identifier_with("");
      a.is_write = accept('!');
      expect(')');
      alias = a;
    }
    if (accept('?')) t.optional = true;
    if (accept('[')) {
      t.is_list = true;
      t.elem_optional = t.optional;
      t.optional = false;
      if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        int64_t n = 0;
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
          n = n * 10 + (text_[pos_++] - '0');
        t.list_size = n;
      }
      expect(']');
      if (accept('?')) t.optional = true;
    }
    return {t, alias};
  }

  // A default value runs to the next ',' or ')' outside brackets and quotes.
  std::string default_text() {
    skip_space();
    const size_t start = pos_;
    int depth = 0;
    char quote = 0;
    for (; pos_ < text_.size(); ++pos_) {
      const char c = text_[pos_];
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '[' || c == '(') {
        ++depth;
      } else if (c == ']' || (c == ')' && depth > 0)) {
        --depth;
      } else if ((c == ',' || c == ')') && depth == 0) {
        break;
      }
    }
    std::string value(text_.substr(start, pos_ - start));
    while (!value.empty() && value.back() == ' ') value.pop_back();
    EMBER_CHECK(!value.empty(), "schema: missing default value at position {} in '{}'", pos_, text_);
    return value;
  }

  std::string identifier_with(std::string_view extra) {
    const size_t start = pos_;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (std::isalnum(static_cast<unsigned char>(c)) || extra.find(c) != std::string_view::npos) {
        ++pos_;
      } else {
        break;
      }
    }
    EMBER_CHECK(pos_ > start, "schema: expected a name at position {} in '{}'", pos_, text_);
    return std::string(text_.substr(start, pos_ - start));
  }

  void skip_space() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  bool accept(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    EMBER_CHECK(accept(c), "schema: expected '{}' at position {} in '{}'", c, pos_, text_);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

std::string SchemaType::str() const {
  std::string s(kind_name(kind));
  if (is_list) {
    if (elem_optional) s += "?";
    s += "[" + (list_size ? std::to_string(*list_size) : std::string()) + "]";
  }
  if (optional) s += "?";
  return s;
}

namespace {
// The alias annotation sits between the base type and its suffixes.
std::string type_with_alias(const SchemaType& t, const std::optional<AliasInfo>& alias) {
  const std::string full = t.str();
  const size_t base_len = kind_name(t.kind).size();
  return full.substr(0, base_len) + alias_str(alias) + full.substr(base_len);
}
}  // namespace

std::string SchemaArgument::str() const {
  std::string s = type_with_alias(type, alias) + " " + name;
  if (default_value) s += "=" + *default_value;
  return s;
}

std::string SchemaReturn::str() const {
  std::string s = type_with_alias(type, alias);
  if (name) s += " " + *name;
  return s;
}

std::string FunctionSchema::base_name() const {
  const size_t sep = name.rfind("::");
  return sep == std::string::npos ? name : name.substr(sep + 2);
}

bool FunctionSchema::is_mutable() const {
  for (const auto& a : arguments)
    if (a.alias && a.alias->is_write) return true;
  return false;
}

std::string FunctionSchema::str() const {
  std::string s = qualified_name() + "(";
  bool kwarg_marker = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i > 0) s += ", ";
    if (arguments[i].kwarg_only && !kwarg_marker) {
      s += "*, ";
      kwarg_marker = true;
    }
    s += arguments[i].str();
  }
  s += ") -> ";
  if (returns.size() == 1 && !returns[0].name) {
    s += returns[0].str();
  } else {
    s += "(";
    for (size_t i = 0; i < returns.size(); ++i) s += (i ? ", " : "") + returns[i].str();
    s += ")";
  }
  return s;
}

FunctionSchema parse_schema(std::string_view text, std::string_view default_namespace) {
  return Parser(text).schema(default_namespace);
}

}  // namespace ember
