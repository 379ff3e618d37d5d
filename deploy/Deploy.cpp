#include <deploy/Deploy.h>

#include <deploy/Interpreter.h>

#include <fmt/format.h>

#include <dlfcn.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <sstream>

namespace ember::deploy {

namespace {

// Interpreter slots are never reused in a process: a finished copy of
// libpython stays loaded (its extension modules need it), and extension
// modules such as numpy's cannot start twice.
std::atomic<int> next_slot{0};

std::string default_libpython() {
  if (const char* env = std::getenv("EMBER_DEPLOY_LIBPYTHON"); env && *env) return env;
#ifdef EMBER_DEPLOY_LIBPYTHON
  return EMBER_DEPLOY_LIBPYTHON;
#else
  return "";
#endif
}

std::vector<std::string> split_path(const char* list) {
  std::vector<std::string> out;
  if (list == nullptr) return out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ':');)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

// ---- InterpreterManager ------------------------------------------------------

InterpreterManager::InterpreterManager(size_t n, Options options) {
  EMBER_CHECK_VALUE(n > 0, "ember::deploy::InterpreterManager needs at least one interpreter, got {}", n);
  // A Python already in the process: the copies' references to the C API
  // would bind to it (the global scope comes first), not to their own.
  EMBER_CHECK(dlsym(RTLD_DEFAULT, "Py_IsInitialized") == nullptr,
              "ember::deploy::InterpreterManager cannot run in a process that already contains a Python (a Python "
              "program, or a host linked with libpython): each interpreter's copy would use that one's C API. Host "
              "the interpreters from a C++ program that does not link libpython");
  std::string libpython = options.libpython.empty() ? default_libpython() : options.libpython;
  EMBER_CHECK(!libpython.empty(),
              "ember::deploy: this build knows no shared libpython to copy (Ember was built without one); set "
              "EMBER_DEPLOY_LIBPYTHON or Options::libpython to a CPython built with --enable-shared");
  std::vector<std::string> path = options.python_path;
  for (std::string& p : split_path(std::getenv("EMBER_DEPLOY_PYTHONPATH"))) path.push_back(std::move(p));
  for (size_t i = 0; i < n; ++i)
    interpreters_.push_back(std::make_unique<Interpreter>(next_slot++, i, libpython, path));
  busy_.assign(n, false);
}

InterpreterManager::~InterpreterManager() {
  std::unique_lock<std::mutex> lock(mutex_);
  freed_.wait(lock, [&] {
    for (bool b : busy_)
      if (b) return false;
    return true;
  });
  // In reverse: a later interpreter's finalization may still reach an earlier one's objects.
  while (!interpreters_.empty()) interpreters_.pop_back();
}

InterpreterSession InterpreterManager::take(size_t index, std::unique_lock<std::mutex>& lock) {
  busy_[index] = true;
  lock.unlock();
  return InterpreterSession(*interpreters_[index], [this, index] {
    std::lock_guard<std::mutex> guard(mutex_);
    busy_[index] = false;
    freed_.notify_all();
  });
}

InterpreterSession InterpreterManager::acquire_one() {
  std::unique_lock<std::mutex> lock(mutex_);
  size_t found = 0;
  freed_.wait(lock, [&] {
    for (size_t i = 0; i < busy_.size(); ++i) {
      if (!busy_[i]) {
        found = i;
        return true;
      }
    }
    return false;
  });
  return take(found, lock);
}

InterpreterSession InterpreterManager::acquire(size_t index) {
  EMBER_CHECK_INDEX(index < interpreters_.size(), "ember::deploy: interpreter {} of {}", index, interpreters_.size());
  std::unique_lock<std::mutex> lock(mutex_);
  freed_.wait(lock, [&] { return !busy_[index]; });
  return take(index, lock);
}

Package InterpreterManager::load_package(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  EMBER_CHECK(file != nullptr, "ember::deploy: cannot open the package {}: {}", path, std::strerror(errno));
  std::fclose(file);
  return Package(this, path);
}

// ---- Package and ReplicatedObj -------------------------------------------------

ReplicatedObj Package::load_model() {
  static std::atomic<uint64_t> next_key{0};
  std::string key = fmt::format("model{}", next_key++);
  for (size_t i = 0; i < manager_->size(); ++i) {
    InterpreterSession session = manager_->acquire(i);
    session.global("ember.deploy", "_load_model")({IValue(key), IValue(path_)});
  }
  return ReplicatedObj(manager_, std::move(key));
}

IValue ReplicatedObj::operator()(const std::vector<IValue>& args,
                                 const std::unordered_map<std::string, IValue>& kwargs) const {
  InterpreterSession session = manager_->acquire_one();
  std::vector<IValue> with_key{IValue(key_)};
  with_key.insert(with_key.end(), args.begin(), args.end());
  return session.global("ember.deploy", "_call_model").call(with_key, kwargs).toIValue();
}

Obj ReplicatedObj::in(InterpreterSession& session) const {
  return session.global("ember.deploy", "_models").attr("__getitem__")({IValue(key_)});
}

// ---- InterpreterSession ------------------------------------------------------

InterpreterSession::InterpreterSession(Interpreter& interpreter, std::function<void()> on_release)
    : interpreter_(&interpreter),
      on_release_(std::move(on_release)),
      current_(interpreter.bridge().interpreter),
      thread_(std::this_thread::get_id()) {
  interpreter_->enter();
}

InterpreterSession::~InterpreterSession() {
  *alive_ = false;
  const PythonApi& api = interpreter_->api();
  for (auto it = owned_.rbegin(); it != owned_.rend(); ++it) api.Py_DecRef(*it);
  interpreter_->leave();
  if (on_release_) on_release_();
}

size_t InterpreterSession::interpreter_index() const { return interpreter_->index(); }

Obj InterpreterSession::own(_object* object) const {
  if (object == nullptr) interpreter_->raise_python_error("calling into Python");
  owned_.push_back(object);
  return Obj(this, object);
}

Obj InterpreterSession::global(const char* module, const char* name) {
  const PythonApi& api = interpreter_->api();
  PyObject* m = api.PyImport_ImportModule(module);
  if (m == nullptr) interpreter_->raise_python_error(fmt::format("importing {}", module).c_str());
  PyObject* value = api.PyObject_GetAttrString(m, name);
  api.Py_DecRef(m);
  return own(value);
}

Obj InterpreterSession::fromIValue(const IValue& value) { return own(interpreter_->bridge().to_python(value)); }

void InterpreterSession::exec(const std::string& source) {
  const PythonApi& api = interpreter_->api();
  PyObject* main = api.PyImport_ImportModule("__main__");
  if (main == nullptr) interpreter_->raise_python_error("importing __main__");
  PyObject* globals = api.PyObject_GetAttrString(main, "__dict__");
  api.Py_DecRef(main);
  PyObject* result = api.PyRun_StringFlags(source.c_str(), Py_file_input, globals, globals, nullptr);
  api.Py_DecRef(globals);
  if (result == nullptr) interpreter_->raise_python_error("running Python source");
  api.Py_DecRef(result);
}

// ---- Obj ----------------------------------------------------------------------

Obj::Obj(const InterpreterSession* session, _object* object)
    : session_(session), session_alive_(session->alive_), object_(object) {}

void Obj::check_usable() const {
  EMBER_CHECK(session_ != nullptr && object_ != nullptr, "ember::deploy: this Obj holds no Python object");
  EMBER_CHECK(*session_alive_,
              "ember::deploy: this Obj's session has ended: a Python object lives only as long as the session that "
              "made it (pass values on as IValues)");
  EMBER_CHECK(session_->thread_ == std::this_thread::get_id(),
              "ember::deploy: an Obj (and its session) is used only on the thread that acquired the session");
}

Obj Obj::call(const std::vector<IValue>& args, const std::unordered_map<std::string, IValue>& kwargs) const {
  check_usable();
  Interpreter& interpreter = *session_->interpreter_;
  const PythonApi& api = interpreter.api();
  PyObject* tuple = api.PyTuple_New(static_cast<Py_ssize_t>(args.size()));
  PyObject* dict = kwargs.empty() ? nullptr : api.PyDict_New();
  auto drop = [&] {
    api.Py_DecRef(tuple);
    if (dict != nullptr) api.Py_DecRef(dict);
  };
  for (size_t i = 0; i < args.size(); ++i) {
    PyObject* v = interpreter.bridge().to_python(args[i]);
    if (v == nullptr) {
      drop();
      interpreter.raise_python_error(fmt::format("converting argument {}", i).c_str());
    }
    api.PyTuple_SetItem(tuple, static_cast<Py_ssize_t>(i), v);  // steals v
  }
  for (const auto& [name, value] : kwargs) {
    PyObject* v = interpreter.bridge().to_python(value);
    if (v == nullptr) {
      drop();
      interpreter.raise_python_error(fmt::format("converting argument '{}'", name).c_str());
    }
    api.PyDict_SetItemString(dict, name.c_str(), v);
    api.Py_DecRef(v);
  }
  PyObject* result = api.PyObject_Call(object_, tuple, dict);
  drop();
  return session_->own(result);
}

Obj Obj::attr(const char* name) const {
  check_usable();
  return session_->own(session_->interpreter_->api().PyObject_GetAttrString(object_, name));
}

Obj Obj::operator[](int64_t i) const {
  check_usable();
  return session_->own(session_->interpreter_->api().PySequence_GetItem(object_, static_cast<Py_ssize_t>(i)));
}

IValue Obj::toIValue() const {
  check_usable();
  IValue out;
  if (!session_->interpreter_->bridge().from_python(object_, &out))
    session_->interpreter_->raise_python_error("converting a Python value for C++");
  return out;
}

std::string Obj::str() const {
  check_usable();
  const PythonApi& api = session_->interpreter_->api();
  Obj s = session_->own(api.PyObject_Str(object_));
  const char* text = api.PyUnicode_AsUTF8(s.object_);
  if (text == nullptr) session_->interpreter_->raise_python_error("str()");
  return text;
}

}  // namespace ember::deploy
