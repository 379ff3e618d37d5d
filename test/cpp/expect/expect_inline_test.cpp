#include "expect_inline.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using ember::testing::expect_inline;
using ember::testing::detail::accept_inline;
using ember::testing::detail::make_literal;
using ember::testing::detail::rewrite_inline_literal;

// Sets (or, with nullptr, unsets) EXPECTTEST_ACCEPT for a scope.
class AcceptEnv {
 public:
  explicit AcceptEnv(const char* value) {
    if (const char* old = std::getenv("EXPECTTEST_ACCEPT")) saved_ = old;
    if (value) {
      ::setenv("EXPECTTEST_ACCEPT", value, 1);
    } else {
      ::unsetenv("EXPECTTEST_ACCEPT");
    }
  }
  ~AcceptEnv() {
    if (saved_) {
      ::setenv("EXPECTTEST_ACCEPT", saved_->c_str(), 1);
    } else {
      ::unsetenv("EXPECTTEST_ACCEPT");
    }
  }
  AcceptEnv(const AcceptEnv&) = delete;
  AcceptEnv& operator=(const AcceptEnv&) = delete;

 private:
  std::optional<std::string> saved_;
};

// A fresh directory under the system temp directory, removed afterwards.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("ember_expect_inline_" + std::to_string(::getpid()) + "_" +
             info->test_suite_name() + "_" + info->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out << text;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Calls of every supported form.  Lines of the '(' (what GCC reports):
// 4 (single line), 5 (literal on the next lines), 8 (qualified name, raw
// literal with delimiter on the next line), 10 (ordinary literal), 11.
const char* const kSample = R"SRC(#include "expect_inline.h"
using ember::testing::expect_inline;
void f() {
  expect_inline(a(), R"(old one)");
  expect_inline(b(),
                R"(two
lines)");
  ember::testing::expect_inline(
      c(), R"xyz(has )" inside)xyz");
  expect_inline(d(), "plain \"q\"\n");
  expect_inline(e(), R"(x)");
}
)SRC";

// kSample after accepting new values for all five calls.  The first call
// gains a line, the second loses one, the fourth gains two.
const char* const kSampleAccepted = R"SRC(#include "expect_inline.h"
using ember::testing::expect_inline;
void f() {
  expect_inline(a(), R"(new
one)");
  expect_inline(b(),
                R"(single)");
  ember::testing::expect_inline(
      c(), R"expect1(now )" and )expect" too)expect1");
  expect_inline(d(), R"(a
b
c)");
  expect_inline(e(), R"(y)");
}
)SRC";

struct Edit {
  int line;
  const char* old_value;
  const char* new_value;
};
const Edit kEdits[] = {
    {4, "old one", "new\none"},
    {5, "two\nlines", "single"},
    {8, "has )\" inside", "now )\" and )expect\" too"},
    {10, "plain \"q\"\n", "a\nb\nc"},
    {11, "x", "y"},
};

// ---------------------------------------------------------------------------
// (1) Comparisons that pass.

TEST(ExpectInline, Passes) {
  expect_inline("tensor([1, 2, 3])", R"(tensor([1, 2, 3]))");
  expect_inline("a\nb", R"(a
b)");
  expect_inline("x)\"y", R"d(x)"y)d");
  expect_inline("plain", "plain");
}

// ---------------------------------------------------------------------------
// (2) The rewriter.

TEST(ExpectInlineRewrite, MakeLiteral) {
  expect_inline(make_literal("abc"), R"x(R"(abc)")x");
  expect_inline(make_literal("a\nb"), R"x(R"(a
b)")x");
  expect_inline(make_literal("f(x)\""), R"x(R"expect(f(x)")expect")x");
  expect_inline(make_literal(")\" )expect\""),
                R"x(R"expect1()" )expect")expect1")x");
  expect_inline(make_literal("tab\there"), "R\"(tab\there)\"");
  // Control characters other than newline and tab: escaped ordinary literal.
  expect_inline(make_literal(std::string("a\r\nb\"\\\x01" "2", 8)),
                R"x("a\r\nb\"\\\0012")x");
}

TEST(ExpectInlineRewrite, EveryCallFormInMemory) {
  // Each call rewritten on its own, at the line GCC reports for it; the rest
  // of the text must stay byte for byte the same.
  const char* const before[] = {
      "  expect_inline(a(), R\"(old one)\");\n",
      "  expect_inline(b(),\n                R\"(two\nlines)\");\n",
      "      c(), R\"xyz(has )\" inside)xyz\");\n",
      "  expect_inline(d(), \"plain \\\"q\\\"\\n\");\n",
      "  expect_inline(e(), R\"(x)\");\n",
  };
  const char* const after[] = {
      "  expect_inline(a(), R\"(new\none)\");\n",
      "  expect_inline(b(),\n                R\"(single)\");\n",
      "      c(), R\"expect1(now )\" and )expect\" too)expect1\");\n",
      "  expect_inline(d(), R\"(a\nb\nc)\");\n",
      "  expect_inline(e(), R\"(y)\");\n",
  };
  const int delta[] = {1, -1, 0, 2, 0};
  for (size_t i = 0; i < std::size(kEdits); ++i) {
    SCOPED_TRACE("call at line " + std::to_string(kEdits[i].line));
    std::string expected = kSample;
    size_t at = expected.find(before[i]);
    ASSERT_NE(at, std::string::npos);
    expected.replace(at, std::string_view(before[i]).size(), after[i]);

    std::string source = kSample;
    auto r = rewrite_inline_literal(source, kEdits[i].line, kEdits[i].new_value,
                                    std::string_view(kEdits[i].old_value));
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.line_delta, delta[i]);
    EXPECT_EQ(r.call_line, kEdits[i].line);
    EXPECT_EQ(source, expected);
  }
}

TEST(ExpectInlineRewrite, LineAnywhereInTheCall) {
  // A compiler that reports the name's line or the ')' line works too.
  for (int line : {8, 9}) {
    std::string source = kSample;
    auto r = rewrite_inline_literal(source, line, "z", std::string_view("has )\" inside"));
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.call_line, 8);
    EXPECT_NE(source.find("      c(), R\"(z)\");\n"), std::string::npos);
  }
  std::string source = kSample;
  auto r = rewrite_inline_literal(source, 7, "z");  // ')' line of the 2nd call
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.call_line, 5);
}

TEST(ExpectInlineRewrite, Failures) {
  std::string source = kSample;
  // Not a call line.
  auto r = rewrite_inline_literal(source, 2, "z");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("no expect_inline( call"), std::string::npos) << r.error;
  // The literal does not hold what the binary was built with.
  r = rewrite_inline_literal(source, 4, "z", std::string_view("something else"));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("edited since the build"), std::string::npos) << r.error;
  EXPECT_EQ(source, kSample);  // untouched

  std::string two = "expect_inline(a, \"x\"); expect_inline(b, \"y\");\n";
  r = rewrite_inline_literal(two, 1, "z");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("several"), std::string::npos) << r.error;

  std::string computed = "expect_inline(a,\n  std::string(\"x\") + y);\n";
  r = rewrite_inline_literal(computed, 1, "z");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("not a string literal"), std::string::npos) << r.error;
}

TEST(ExpectInlineRewrite, SkipsCommentsAndLiteralsAndDecodesEscapes) {
  std::string source =
      "// expect_inline(old, \"no\");\n"
      "const char* s = \"expect_inline(q, \\\"no\\\")\"; /* expect_inline(x, \"no\") */\n"
      "int n = 1'000; char c = ')';\n"
      "expect_inline(f<int, float>(n, c),\n"
      "              \"\\x41\\101\\u00e9 \" \"joined\"); // expect_inline(\n";
  auto r = rewrite_inline_literal(source, 4, "new",
                                  std::string_view("AA\xc3\xa9 joined"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.line_delta, 0);
  expect_inline(source, R"x(// expect_inline(old, "no");
const char* s = "expect_inline(q, \"no\")"; /* expect_inline(x, "no") */
int n = 1'000; char c = ')';
expect_inline(f<int, float>(n, c),
              R"(new)"); // expect_inline(
)x");
}

TEST(ExpectInlineRewrite, KeepsCrlfLineEnds) {
  std::string source = "x;\r\nexpect_inline(a, R\"(p\r\nq)\");\r\n";
  auto r = rewrite_inline_literal(source, 2, "1\n2\n3", std::string_view("p\nq"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.line_delta, 1);
  EXPECT_EQ(source, "x;\r\nexpect_inline(a, R\"(1\r\n2\r\n3)\");\r\n");
}

// Several calls of one file accepted in one run, through the file-level
// function that accept mode uses: later calls are found although earlier
// rewrites moved them.
TEST(ExpectInlineRewrite, FileInOrder) {
  TempDir dir;
  fs::path file = dir.path() / "sample.cpp";
  write_text(file, kSample);
  for (const Edit& e : kEdits) {
    std::string err = accept_inline(file.c_str(), e.line, e.new_value, e.old_value);
    ASSERT_EQ(err, "") << "line " << e.line;
  }
  EXPECT_EQ(read_text(file), kSampleAccepted);
  // Reaching an accepted call again with the same value is fine ...
  EXPECT_EQ(accept_inline(file.c_str(), 10, "a\nb\nc", "plain \"q\"\n"), "");
  // ... with another value it is not.
  EXPECT_NE(accept_inline(file.c_str(), 10, "other", "plain \"q\"\n"), "");
  EXPECT_EQ(read_text(file), kSampleAccepted);
  // No temporary files are left behind.
  int entries = 0;
  for (const auto& ent : fs::directory_iterator(dir.path())) {
    (void)ent;
    ++entries;
  }
  EXPECT_EQ(entries, 1);
}

TEST(ExpectInlineRewrite, FileOutOfOrderAndRelativePath) {
  TempDir dir;
  write_text(dir.path() / "src" / "sample.cpp", kSample);
  fs::create_directories(dir.path() / "build" / "sub");
  fs::path old_cwd = fs::current_path();
  // As if compiled from dir/ with a relative path and run from a nested
  // build directory.
  fs::current_path(dir.path() / "build" / "sub");
  for (int i : {3, 0, 4, 1, 2}) {
    const Edit& e = kEdits[i];
    std::string err = accept_inline("src/sample.cpp", e.line, e.new_value, e.old_value);
    EXPECT_EQ(err, "") << "line " << e.line;
  }
  fs::current_path(old_cwd);
  EXPECT_EQ(read_text(dir.path() / "src" / "sample.cpp"), kSampleAccepted);
}

// Accept mode end to end, through expect_inline itself (with an explicit
// file and line pointing at a copy of the sample).
TEST(ExpectInlineRewrite, AcceptModeRewritesInsteadOfFailing) {
  TempDir dir;
  fs::path file = dir.path() / "sample.cpp";
  write_text(file, kSample);
  AcceptEnv accept("1");
  for (const Edit& e : kEdits) {
    expect_inline(e.new_value, e.old_value, file.c_str(), e.line);
  }
  EXPECT_EQ(read_text(file), kSampleAccepted);
  // A file that is not there is reported as a failure.
  EXPECT_NONFATAL_FAILURE(
      expect_inline("a", "b", (dir.path() / "missing.cpp").c_str(), 1),
      "cannot find the source file");
}

// ---------------------------------------------------------------------------
// (3) A mismatch fails (without EXPECTTEST_ACCEPT).

TEST(ExpectInline, MismatchFails) {
  AcceptEnv no_accept(nullptr);
  EXPECT_NONFATAL_FAILURE(expect_inline("actual text", R"(expected text)"),
                          "rerun with EXPECTTEST_ACCEPT=1 to accept");
  EXPECT_NONFATAL_FAILURE(expect_inline("one\ntwo", "one\nthree"),
                          "first difference at line 2, column 2");
  AcceptEnv zero("0");
  EXPECT_NONFATAL_FAILURE(expect_inline("x", "y"), "--- expected (1 bytes)\ny\n");
}

// Where the failure of a call spanning several lines is reported: GCC puts
// __builtin_LINE() of a default argument on the line of the call's '('.
TEST(ExpectInline, MultiLineCallReportsLineOfOpeningParen) {
  AcceptEnv no_accept(nullptr);
  ::testing::TestPartResultArray results;
  int paren_line = 0;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD,
        &results);
    paren_line = __LINE__; ember::testing::expect_inline(
        "left",
        R"(right)");
  }
  ASSERT_EQ(results.size(), 1);
  const ::testing::TestPartResult& r = results.GetTestPartResult(0);
  EXPECT_TRUE(r.nonfatally_failed());
  EXPECT_EQ(fs::path(r.file_name()).filename(), "expect_inline_test.cpp");
#if defined(__GNUC__) && !defined(__clang__)
  EXPECT_EQ(r.line_number(), paren_line);
#else
  EXPECT_GE(r.line_number(), paren_line);
  EXPECT_LE(r.line_number(), paren_line + 2);
#endif
}

}  // namespace
