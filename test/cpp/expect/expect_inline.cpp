#include "expect_inline.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>
#include <vector>

namespace ember::testing {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------
// A minimal C++ tokenizer: enough to skip comments, string and character
// literals, and to match brackets.  Preprocessor lines are tokenized like
// ordinary code, which is harmless for finding calls.

enum class Kind { Ident, String, Char, Number, Punct };

struct Token {
  Kind kind;
  size_t begin;  // offset of the first character
  size_t end;    // offset one past the last character
};

bool is_ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool is_string_prefix(std::string_view s) {
  return s == "R" || s == "u8" || s == "u" || s == "U" || s == "L" ||
         s == "u8R" || s == "uR" || s == "UR" || s == "LR";
}
bool is_char_prefix(std::string_view s) {
  return s == "u8" || s == "u" || s == "U" || s == "L";
}

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}

  // Tokenizes the whole source; returns false (with error()) on an
  // unterminated literal or comment.
  bool run(std::vector<Token>& out) {
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (c == '/' && peek(1) == '/') {
        size_t nl = src_.find('\n', pos_);
        pos_ = nl == std::string_view::npos ? src_.size() : nl + 1;
      } else if (c == '/' && peek(1) == '*') {
        size_t close = src_.find("*/", pos_ + 2);
        if (close == std::string_view::npos) return fail("unterminated /* comment");
        pos_ = close + 2;
      } else if (is_ident_start(c)) {
        size_t b = pos_;
        while (pos_ < src_.size() && is_ident_char(src_[pos_])) ++pos_;
        std::string_view id = src_.substr(b, pos_ - b);
        char next = pos_ < src_.size() ? src_[pos_] : '\0';
        if (next == '"' && is_string_prefix(id)) {
          if (!string_literal(b, id.back() == 'R', out)) return false;
        } else if (next == '\'' && is_char_prefix(id)) {
          if (!char_literal(b, out)) return false;
        } else {
          out.push_back({Kind::Ident, b, pos_});
        }
      } else if (c == '"') {
        if (!string_literal(pos_, false, out)) return false;
      } else if (c == '\'') {
        if (!char_literal(pos_, out)) return false;
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1))))) {
        number(out);
      } else {
        out.push_back({Kind::Punct, pos_, pos_ + 1});
        ++pos_;
      }
    }
    return true;
  }

  const std::string& error() const { return error_; }

 private:
  char peek(size_t k) const {
    return pos_ + k < src_.size() ? src_[pos_ + k] : '\0';
  }

  bool fail(const std::string& what) {
    error_ = what;
    return false;
  }

  void skip_ud_suffix() {
    if (pos_ < src_.size() && is_ident_start(src_[pos_])) {
      while (pos_ < src_.size() && is_ident_char(src_[pos_])) ++pos_;
    }
  }

  // `begin` is where the token starts (prefix included); pos_ is at the '"'.
  bool string_literal(size_t begin, bool raw, std::vector<Token>& out) {
    if (raw) {
      size_t open = src_.find('(', pos_ + 1);
      if (open == std::string_view::npos || open - pos_ - 1 > 16) {
        return fail("malformed raw string literal");
      }
      std::string_view delim = src_.substr(pos_ + 1, open - pos_ - 1);
      for (char d : delim) {
        if (d == ')' || d == '\\' || std::isspace(static_cast<unsigned char>(d))) {
          return fail("malformed raw string delimiter");
        }
      }
      std::string terminator = ")" + std::string(delim) + "\"";
      size_t close = src_.find(terminator, open + 1);
      if (close == std::string_view::npos) return fail("unterminated raw string literal");
      pos_ = close + terminator.size();
    } else {
      ++pos_;
      while (true) {
        if (pos_ >= src_.size() || src_[pos_] == '\n') {
          return fail("unterminated string literal");
        }
        if (src_[pos_] == '\\') {
          pos_ += 2;
        } else if (src_[pos_] == '"') {
          ++pos_;
          break;
        } else {
          ++pos_;
        }
      }
    }
    skip_ud_suffix();
    out.push_back({Kind::String, begin, pos_});
    return true;
  }

  // An apostrophe with no closing one on its line (as in `#error don't`) is
  // taken as a lone punctuator rather than an error.
  bool char_literal(size_t begin, std::vector<Token>& out) {
    size_t quote = pos_;
    ++pos_;  // opening quote
    while (true) {
      if (pos_ >= src_.size() || src_[pos_] == '\n') {
        pos_ = quote + 1;
        out.push_back({Kind::Punct, quote, pos_});
        return true;
      }
      if (src_[pos_] == '\\') {
        pos_ += 2;
      } else if (src_[pos_] == '\'') {
        ++pos_;
        break;
      } else {
        ++pos_;
      }
    }
    skip_ud_suffix();
    out.push_back({Kind::Char, begin, pos_});
    return true;
  }

  // A pp-number, including digit separators (1'000) and exponents (1e+5).
  void number(std::vector<Token>& out) {
    size_t b = pos_;
    ++pos_;
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if ((c == '+' || c == '-') &&
          (src_[pos_ - 1] == 'e' || src_[pos_ - 1] == 'E' ||
           src_[pos_ - 1] == 'p' || src_[pos_ - 1] == 'P')) {
        ++pos_;
      } else if (c == '\'' && is_ident_char(peek(1))) {
        pos_ += 2;
      } else if (is_ident_char(c) || c == '.') {
        ++pos_;
      } else {
        break;
      }
    }
    out.push_back({Kind::Number, b, pos_});
  }

  std::string_view src_;
  size_t pos_ = 0;
  std::string error_;
};

// ---------------------------------------------------------------------------
// Literal decoding and encoding.

void append_utf8(std::string& out, unsigned long cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decodes the value of one narrow string-literal token (as the lexer cut
// it).  Returns false with `error` for wide/UTF-16/UTF-32 literals or bad
// escapes.
bool decode_literal(std::string_view tok, std::string& value, std::string& error) {
  size_t quote = tok.find('"');
  std::string_view prefix = tok.substr(0, quote);
  bool raw = !prefix.empty() && prefix.back() == 'R';
  std::string_view enc = raw ? prefix.substr(0, prefix.size() - 1) : prefix;
  if (!enc.empty() && enc != "u8") {
    error = "the expected literal is not a narrow (char) string literal";
    return false;
  }
  if (raw) {
    size_t open = tok.find('(', quote);
    std::string_view delim = tok.substr(quote + 1, open - quote - 1);
    std::string terminator = ")" + std::string(delim) + "\"";
    size_t close = tok.find(terminator, open + 1);
    std::string_view body = tok.substr(open + 1, close - open - 1);
    // The compiler sees CRLF line ends as plain newlines.
    for (size_t i = 0; i < body.size(); ++i) {
      if (body[i] == '\r' && i + 1 < body.size() && body[i + 1] == '\n') continue;
      value += body[i];
    }
    return true;
  }
  size_t close = tok.rfind('"');
  std::string_view body = tok.substr(quote + 1, close - quote - 1);
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\') {
      value += c;
      continue;
    }
    if (++i >= body.size()) {
      error = "bad escape sequence in the expected literal";
      return false;
    }
    char e = body[i];
    switch (e) {
      case 'n': value += '\n'; break;
      case 't': value += '\t'; break;
      case 'r': value += '\r'; break;
      case 'a': value += '\a'; break;
      case 'b': value += '\b'; break;
      case 'f': value += '\f'; break;
      case 'v': value += '\v'; break;
      case '\\': case '\'': case '"': case '?': value += e; break;
      case 'x': {
        unsigned long v = 0;
        size_t n = 0;
        while (i + 1 < body.size() && hex_value(body[i + 1]) >= 0) {
          v = v * 16 + static_cast<unsigned long>(hex_value(body[++i]));
          ++n;
        }
        if (n == 0) {
          error = "bad \\x escape in the expected literal";
          return false;
        }
        value += static_cast<char>(v & 0xFF);
        break;
      }
      case 'u': case 'U': {
        size_t digits = e == 'u' ? 4 : 8;
        unsigned long cp = 0;
        for (size_t k = 0; k < digits; ++k) {
          if (i + 1 >= body.size() || hex_value(body[i + 1]) < 0) {
            error = "bad universal character name in the expected literal";
            return false;
          }
          cp = cp * 16 + static_cast<unsigned long>(hex_value(body[++i]));
        }
        append_utf8(value, cp);
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          unsigned v = static_cast<unsigned>(e - '0');
          for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' &&
                          body[i + 1] <= '7';
               ++k) {
            v = v * 8 + static_cast<unsigned>(body[++i] - '0');
          }
          value += static_cast<char>(v & 0xFF);
        } else {
          error = std::string("unknown escape \\") + e + " in the expected literal";
          return false;
        }
    }
  }
  return true;
}

// ---------------------------------------------------------------------------
// Source navigation.

class LineIndex {
 public:
  explicit LineIndex(std::string_view src) {
    starts_.push_back(0);
    for (size_t i = 0; i < src.size(); ++i) {
      if (src[i] == '\n') starts_.push_back(i + 1);
    }
  }
  // 1-based line of a byte offset.
  int line_of(size_t offset) const {
    return static_cast<int>(std::upper_bound(starts_.begin(), starts_.end(), offset) -
                            starts_.begin());
  }

 private:
  std::vector<size_t> starts_;
};

bool is_punct(std::string_view src, const Token& t, char c) {
  return t.kind == Kind::Punct && src[t.begin] == c;
}

struct Call {
  size_t first;   // token index where the (possibly qualified) name starts
  size_t lparen;  // token index of '('
  size_t rparen;  // token index of the matching ')'
};

std::string describe_line(int line) { return "line " + std::to_string(line); }

}  // namespace

namespace detail {

std::string make_literal(std::string_view content) {
  bool escape = false;
  for (char c : content) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7F) escape = true;
  }
  if (escape) {
    std::string out = "\"";
    for (char c : content) {
      unsigned char u = static_cast<unsigned char>(c);
      switch (c) {
        case '\\': out += "\\\\"; break;
        case '"': out += "\\\""; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default:
          if (u < 0x20 || u == 0x7F) {
            // Three octal digits, so a following digit is never absorbed.
            char buf[5];
            std::snprintf(buf, sizeof buf, "\\%03o", static_cast<unsigned>(u));
            out += buf;
          } else {
            out += c;
          }
      }
    }
    out += "\"";
    return out;
  }
  std::string delim;
  for (int n = 0; content.find(")" + delim + "\"") != std::string_view::npos; ++n) {
    delim = n == 0 ? "expect" : "expect" + std::to_string(n);
  }
  std::string out = "R\"" + delim + "(";
  out += content;
  out += ")" + delim + "\"";
  return out;
}

RewriteResult rewrite_inline_literal(std::string& source, int line,
                                     std::string_view new_value,
                                     std::optional<std::string_view> old_value) {
  RewriteResult result;
  std::vector<Token> toks;
  Lexer lexer(source);
  if (!lexer.run(toks)) {
    result.error = "cannot parse the source file: " + lexer.error();
    return result;
  }
  const LineIndex lines(source);
  auto text = [&](const Token& t) {
    return std::string_view(source).substr(t.begin, t.end - t.begin);
  };

  // All `expect_inline(` calls, with their extent.
  std::vector<Call> calls;
  for (size_t i = 0; i + 1 < toks.size(); ++i) {
    if (toks[i].kind != Kind::Ident || text(toks[i]) != "expect_inline" ||
        !is_punct(source, toks[i + 1], '(')) {
      continue;
    }
    Call call{i, i + 1, 0};
    // Walk back over a qualification such as `ember::testing::`.
    while (call.first >= 2 && is_punct(source, toks[call.first - 1], ':') &&
           is_punct(source, toks[call.first - 2], ':')) {
      if (call.first >= 3 && toks[call.first - 3].kind == Kind::Ident) {
        call.first -= 3;
      } else {
        call.first -= 2;
        break;
      }
    }
    int depth = 0;
    size_t j = i + 1;
    for (; j < toks.size(); ++j) {
      if (toks[j].kind != Kind::Punct) continue;
      char c = source[toks[j].begin];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') {
        if (--depth == 0) break;
      }
    }
    if (j == toks.size()) continue;  // unbalanced; not a usable call
    call.rparen = j;
    calls.push_back(call);
  }

  // GCC reports the line of the '('; other compilers may report the line of
  // the name or of the ')'.  Prefer an exact '(' match, else any call that
  // spans the line.
  std::vector<const Call*> exact, spanning;
  for (const Call& c : calls) {
    int first = lines.line_of(toks[c.first].begin);
    int lp = lines.line_of(toks[c.lparen].begin);
    int rp = lines.line_of(toks[c.rparen].begin);
    if (lp == line) exact.push_back(&c);
    if (first <= line && line <= rp) spanning.push_back(&c);
  }
  const std::vector<const Call*>& pick = exact.empty() ? spanning : exact;
  if (pick.empty()) {
    result.error = "no expect_inline( call found at " + describe_line(line);
    return result;
  }
  if (pick.size() > 1) {
    result.error = "several expect_inline( calls at " + describe_line(line) +
                   "; put each call on its own line";
    return result;
  }
  const Call& call = *pick.front();
  result.call_line = lines.line_of(toks[call.lparen].begin);

  // Split the arguments at top-level commas.
  std::vector<std::pair<size_t, size_t>> args;  // token ranges [a, b)
  {
    int depth = 0;
    size_t start = call.lparen + 1;
    for (size_t k = call.lparen + 1; k < call.rparen; ++k) {
      if (toks[k].kind != Kind::Punct) continue;
      char c = source[toks[k].begin];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      if (c == ',' && depth == 0) {
        args.emplace_back(start, k);
        start = k + 1;
      }
    }
    args.emplace_back(start, call.rparen);
  }
  auto all_strings = [&](const std::pair<size_t, size_t>& a) {
    if (a.first >= a.second) return false;
    for (size_t k = a.first; k < a.second; ++k) {
      if (toks[k].kind != Kind::String) return false;
    }
    return true;
  };
  // Normally the second argument; a later one only if commas inside the first
  // argument (e.g. template arguments) split it.
  const std::pair<size_t, size_t>* lit = nullptr;
  for (size_t a = 1; a < args.size() && !lit; ++a) {
    if (all_strings(args[a])) lit = &args[a];
  }
  if (!lit) {
    result.error = "the expected argument of the expect_inline call at " +
                   describe_line(result.call_line) + " is not a string literal";
    return result;
  }

  std::string current;
  for (size_t k = lit->first; k < lit->second; ++k) {
    std::string part;
    if (!decode_literal(text(toks[k]), part, result.error)) return result;
    current += part;
  }
  if (old_value && current != *old_value) {
    result.error = "the literal in the source at " + describe_line(result.call_line) +
                   " does not hold the expected value this test was built with "
                   "(was the file edited since the build?)";
    return result;
  }

  size_t begin = toks[lit->first].begin;
  size_t end = toks[lit->second - 1].end;
  std::string replacement = make_literal(new_value);
  size_t first_nl = source.find('\n');
  if (first_nl != std::string::npos && first_nl > 0 && source[first_nl - 1] == '\r') {
    // Keep CRLF files consistent.
    std::string crlf;
    for (char c : replacement) {
      if (c == '\n') crlf += '\r';
      crlf += c;
    }
    replacement = std::move(crlf);
  }
  auto count_nl = [](std::string_view s) {
    return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
  };
  result.line_delta = count_nl(replacement) -
                      count_nl(std::string_view(source).substr(begin, end - begin));
  source.replace(begin, end - begin, replacement);
  result.ok = true;
  return result;
}

namespace {

struct FileHistory {
  std::vector<std::pair<int, int>> edits;  // (original line, line delta)
  std::map<int, std::string> accepted;     // original line -> accepted value
};

std::mutex& history_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, FileHistory>& histories() {
  static std::map<std::string, FileHistory> h;
  return h;
}

// `file` as the compiler saw it: absolute (usual with CMake), or relative to
// the directory the compiler ran in, which is taken to be the working
// directory or one of its ancestors.
std::optional<fs::path> resolve_source(const char* file) {
  std::error_code ec;
  fs::path p(file);
  if (p.is_absolute()) {
    if (fs::is_regular_file(p, ec)) return p;
    return std::nullopt;
  }
  fs::path dir = fs::current_path(ec);
  if (ec) return std::nullopt;
  while (true) {
    fs::path candidate = dir / p;
    if (fs::is_regular_file(candidate, ec)) return candidate;
    if (dir == dir.root_path() || dir.parent_path() == dir || dir.empty()) break;
    dir = dir.parent_path();
  }
  return std::nullopt;
}

bool read_file(const fs::path& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return !in.bad();
}

std::string write_file_atomically(const fs::path& path, const std::string& text) {
  fs::path tmp = path;
  tmp += ".expect_inline." + std::to_string(static_cast<long>(::getpid())) + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return "cannot create " + tmp.string();
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      return "cannot write " + tmp.string();
    }
  }
  std::error_code ec;
  fs::permissions(tmp, fs::status(path, ec).permissions(), ec);
  fs::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    return "cannot replace " + path.string() + ": " + ec.message();
  }
  return "";
}

}  // namespace

std::string accept_inline(const char* file, int original_line,
                          std::string_view actual, std::string_view expected) {
  std::optional<fs::path> path = resolve_source(file);
  if (!path) return std::string("cannot find the source file ") + file;
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(*path, ec);
  if (!ec) path = canonical;
  const std::string key = path->string();

  std::lock_guard<std::mutex> lock(history_mutex());
  FileHistory& history = histories()[key];
  auto seen = history.accepted.find(original_line);
  if (seen != history.accepted.end()) {
    if (seen->second == actual) return "";
    return "this call was already accepted in this run with a different value; "
           "its output is not deterministic (or the call runs more than once "
           "with different values), so it cannot be accepted automatically";
  }
  int line = original_line;
  for (const auto& [edit_line, delta] : history.edits) {
    if (edit_line < original_line) line += delta;
  }

  std::string source;
  if (!read_file(*path, source)) return "cannot read " + path->string();
  RewriteResult r = rewrite_inline_literal(source, line, actual, expected);
  if (!r.ok) return path->string() + ": " + r.error;
  std::string err = write_file_atomically(*path, source);
  if (!err.empty()) return err;

  history.edits.emplace_back(original_line, r.line_delta);
  history.accepted.emplace(original_line, std::string(actual));
  std::cerr << "expect_inline: accepted new output for " << path->string() << ":"
            << r.call_line;
  if (r.call_line != original_line) std::cerr << " (line " << original_line << " when built)";
  std::cerr << "\n";
  return "";
}

}  // namespace detail

namespace {

bool accept_mode() {
  const char* v = std::getenv("EXPECTTEST_ACCEPT");
  if (v == nullptr) return false;
  std::string s(v);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return !(s.empty() || s == "0" || s == "false" || s == "no" || s == "off");
}

// "line L, column C" of the first differing byte, 1-based.
std::string first_difference(std::string_view a, std::string_view b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  int line = 1;
  size_t col = 1;
  for (size_t k = 0; k < i; ++k) {
    if (a[k] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

}  // namespace

void expect_inline(std::string_view actual, std::string_view expected,
                   const char* file, int line) {
  if (actual == expected) return;
  if (accept_mode()) {
    std::string err = detail::accept_inline(file, line, actual, expected);
    if (err.empty()) return;
    ADD_FAILURE_AT(file, line) << "expect_inline: could not accept the new output: "
                               << err << "\n--- actual\n"
                               << actual << "\n---";
    return;
  }
  ADD_FAILURE_AT(file, line)
      << "expect_inline: the actual value differs from the expected literal\n"
      << "--- expected (" << expected.size() << " bytes)\n"
      << expected << "\n--- actual (" << actual.size() << " bytes)\n"
      << actual << "\n--- first difference at " << first_difference(expected, actual)
      << "\nrerun with EXPECTTEST_ACCEPT=1 to accept the actual value";
}

}  // namespace ember::testing
