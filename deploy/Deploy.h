#pragma once
// ember::deploy: many Python interpreters in one process, as torch::deploy
// had, so that a C++ program serves a Python model from many threads at
// once without one GIL in the way.
//
// Each interpreter is a private copy of libpython (PrivateCopies.h) loaded
// with dlopen(RTLD_LOCAL): its own GIL, modules and objects, and its own
// copy of ember._C. All of them share the one C++ core of this process:
// a tensor passed in or out is the same TensorImpl and storage, no copy;
// only its Python wrapper belongs to an interpreter.
//
//   ember::deploy::InterpreterManager manager(4);
//   auto session = manager.acquire_one();              // a free interpreter, its GIL held
//   ember::Tensor y = session.global("mymodel", "predict")({x}).toIValue().toTensor();
//
// The host program must not itself contain a Python (it must not link
// libpython): the interpreters' copies would bind to that one instead.

#include <aten/core/Tensor.h>
#include <aten/core/dispatch/IValue.h>
#include <c10/core/PythonInterpreter.h>
#include <c10/util/Exception.h>

#include <condition_variable>
#include <memory>
#include <functional>
#include <mutex>
#include <thread>
#include <string>
#include <unordered_map>
#include <vector>

struct _object;  // CPython's PyObject

namespace ember::deploy {

struct Options {
  // The CPython shared library to copy; empty: $EMBER_DEPLOY_LIBPYTHON, else
  // the one Ember was built against.
  std::string libpython;
  // Put first on each interpreter's sys.path (and $EMBER_DEPLOY_PYTHONPATH's
  // folders after them): where `ember` and the model's code are, if they
  // are not installed.
  std::vector<std::string> python_path;
};

// A Python exception, with its traceback as Python prints it.
class PythonError : public c10::Error {
 public:
  PythonError(std::string type, std::string traceback)
      : c10::Error(traceback), type_(std::move(type)) {}
  // The exception's class name ("ValueError").
  const std::string& type() const { return type_; }

 private:
  std::string type_;
};

class Interpreter;
class InterpreterSession;

// A Python object of one interpreter, valid while the session that made it
// lasts. Objects never pass to another interpreter: convert values with
// toIValue() (tensors cross without copies).
class Obj {
 public:
  Obj() = default;
  // Calls it with positional and keyword arguments.
  Obj operator()(const std::vector<IValue>& args) const { return call(args); }
  Obj call(const std::vector<IValue>& args, const std::unordered_map<std::string, IValue>& kwargs = {}) const;
  // Its attribute `name`.
  Obj attr(const char* name) const;
  // Its value: a tensor, number, string, None, or a list of tensors or numbers.
  IValue toIValue() const;
  // Element `i` of a sequence (a tuple of outputs).
  Obj operator[](int64_t i) const;
  // str(obj).
  std::string str() const;
  bool defined() const { return object_ != nullptr; }

 private:
  friend class InterpreterSession;
  Obj(const InterpreterSession* session, _object* object);
  void check_usable() const;
  const InterpreterSession* session_ = nullptr;
  std::shared_ptr<const bool> session_alive_;
  _object* object_ = nullptr;  // owned by the session
};

// One interpreter held by this thread: its GIL is held until the session
// ends. A session stays on the thread that acquired it.
class InterpreterSession {
 public:
  InterpreterSession(const InterpreterSession&) = delete;
  InterpreterSession& operator=(const InterpreterSession&) = delete;
  ~InterpreterSession();

  // module.name (the module imported first).
  Obj global(const char* module, const char* name);
  // `value` as an object of this interpreter.
  Obj fromIValue(const IValue& value);
  // Runs Python source in the interpreter's __main__.
  void exec(const std::string& source);
  // Which of its manager's interpreters this is.
  size_t interpreter_index() const;

 private:
  friend class InterpreterManager;
  friend class Obj;
  InterpreterSession(Interpreter& interpreter, std::function<void()> on_release);
  Obj own(_object* object) const;  // a new reference, or the pending Python error raised
  Interpreter* interpreter_;
  std::function<void()> on_release_;
  c10::PythonInterpreterGuard current_;  // this thread's interpreter for the core
  std::thread::id thread_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  mutable std::vector<_object*> owned_;
};

class InterpreterManager;

// A model with a copy in each interpreter of a manager: each call runs on
// whichever interpreter is free. Valid while its manager lives.
class ReplicatedObj {
 public:
  // model(*args, **kwargs), without recording gradients (serving).
  IValue operator()(const std::vector<IValue>& args,
                    const std::unordered_map<std::string, IValue>& kwargs = {}) const;
  // The interpreter's copy of the model, in a session you hold (to reach
  // its other methods and attributes).
  Obj in(InterpreterSession& session) const;

 private:
  friend class Package;
  ReplicatedObj(InterpreterManager* manager, std::string key) : manager_(manager), key_(std::move(key)) {}
  InterpreterManager* manager_;
  std::string key_;  // its name in each interpreter's ember.deploy._models
};

// A file written by Python's ember.deploy.save_package: a model's code (a
// source archive) and its weights (Ember's file format).
class Package {
 public:
  // The package's model, built once in every interpreter.
  ReplicatedObj load_model();
  const std::string& path() const { return path_; }

 private:
  friend class InterpreterManager;
  Package(InterpreterManager* manager, std::string path) : manager_(manager), path_(std::move(path)) {}
  InterpreterManager* manager_;
  std::string path_;
};

class InterpreterManager {
 public:
  // Starts `n` interpreters, each importing ember. Raises where this process
  // cannot have them (a Python already in it; no shared libpython; no
  // patchelf), saying why.
  explicit InterpreterManager(size_t n, Options options = {});
  ~InterpreterManager();
  InterpreterManager(const InterpreterManager&) = delete;
  InterpreterManager& operator=(const InterpreterManager&) = delete;

  size_t size() const { return interpreters_.size(); }
  // A session on a free interpreter, waiting for one if all are busy.
  InterpreterSession acquire_one();
  // A session on interpreter `index` (for work every interpreter must do),
  // waiting until it is free.
  InterpreterSession acquire(size_t index);
  // The package at `path` (ember.deploy.save_package).
  Package load_package(const std::string& path);

 private:
  InterpreterSession take(size_t index, std::unique_lock<std::mutex>& lock);
  std::vector<std::unique_ptr<Interpreter>> interpreters_;
  std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<bool> busy_;
};

}  // namespace ember::deploy
