// Inline expect tests for GoogleTest.
//
// Usage, inside a TEST body:
//
//   ember::testing::expect_inline(t.to_string(), R"(tensor([1, 2, 3]))");
//
// If the two strings differ, a non-fatal GoogleTest failure is recorded at the
// call site, showing both values.  When the program runs with the environment
// variable EXPECTTEST_ACCEPT=1, a mismatch does not fail; instead the source
// file is rewritten so that the second argument (the expected literal) becomes
// a raw string literal holding the actual value.  Rebuild and rerun afterwards.
//
// Rules for the call, so that accept mode can find the literal:
//  * the call is written as `expect_inline(` (optionally qualified, e.g.
//    `ember::testing::expect_inline(`), not hidden behind a macro;
//  * the second argument is one string literal (raw `R"(...)"`,
//    `R"delim(...)delim"`, or ordinary "..."; adjacent literals that
//    concatenate are accepted too and are replaced by a single literal);
//  * at most one expect_inline call per source line.
// Several calls in one file can be accepted in a single run: the line shifts
// caused by earlier rewrites are tracked per file.
//
// The written literal is a raw string literal whose delimiter does not clash
// with the content.  Content holding control characters other than newline
// and tab (e.g. '\r', '\0') is written as an ordinary escaped literal instead,
// because a raw literal cannot represent it reliably.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ember::testing {

// Compares `actual` with `expected`; see the comment at the top of this file.
// `file` and `line` default to the call site.  (GCC reports the line of the
// call's opening parenthesis; the rewriter also copes with a line anywhere
// between the function name and the closing parenthesis.)
void expect_inline(std::string_view actual, std::string_view expected,
                   const char* file = __builtin_FILE(),
                   int line = __builtin_LINE());

namespace detail {

// The C++ source text of a literal whose value is `content`: a raw string
// literal (delimiter chosen so it does not clash with the content), or an
// escaped ordinary literal for content with control characters other than
// '\n' and '\t'.
std::string make_literal(std::string_view content);

struct RewriteResult {
  bool ok = false;
  std::string error;   // why it failed, when !ok
  int line_delta = 0;  // lines in the new text minus lines in the old text
  int call_line = 0;   // 1-based line of the `(` of the call that was edited
};

// Rewrites `source` (the text of a C++ file) in place: the expected-literal
// argument of the expect_inline call at `line` (1-based, in `source` as it is
// now) is replaced by make_literal(new_value).  When `old_value` is given, the
// literal found must decode to it, else nothing is changed and !ok.
RewriteResult rewrite_inline_literal(
    std::string& source, int line, std::string_view new_value,
    std::optional<std::string_view> old_value = std::nullopt);

// What accept mode does for one mismatching call: resolves `file` (absolute,
// or relative to the working directory or one of its ancestors), maps
// `original_line` through the edits already made to that file in this run,
// rewrites the literal (checking it still holds `expected`) and replaces the
// file atomically.  Accepting the same call twice with the same value is a
// no-op.  Returns an empty string on success, else an error message.
std::string accept_inline(const char* file, int original_line,
                          std::string_view actual, std::string_view expected);

}  // namespace detail
}  // namespace ember::testing
