#include <deploy/Interpreter.h>

#include <deploy/PrivateCopies.h>

#include <fmt/format.h>

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_set>
#include <vector>

namespace ember::deploy {

namespace {

// Run in each interpreter once it has started: its sys.path, and an import
// hook that loads every extension module (ember._C, numpy's, the standard
// library's) from this interpreter's own patched copy.
constexpr const char* kBootstrap = R"(
import sys
import importlib.machinery as _machinery

sys.argv = [""]
sys.path[:0] = _python_path


class EmberDeployFinder:
    """Loads extension modules from this interpreter's own copies (ember::deploy)."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        spec = _machinery.PathFinder.find_spec(name, path, target)
        if spec is None or not isinstance(spec.loader, _machinery.ExtensionFileLoader):
            return spec
        copy = _private_extension(spec.origin)
        return _machinery.ModuleSpec(name, _machinery.ExtensionFileLoader(name, copy), origin=copy)

    @staticmethod
    def invalidate_caches():
        pass


sys.meta_path.insert(0, EmberDeployFinder)
import ember
)";

// _private_extension's `self` object -> its interpreter: the C function
// has no other way to know which copy of the C API it may call.
std::mutex owners_mutex;
std::map<PyObject*, const Interpreter*>& owners() {
  static auto* map = new std::map<PyObject*, const Interpreter*>();
  return *map;
}

void forget_owner(const Interpreter* interpreter) {
  std::lock_guard<std::mutex> lock(owners_mutex);
  for (auto it = owners().begin(); it != owners().end();) it = it->second == interpreter ? owners().erase(it) : std::next(it);
}

PyObject* private_extension_entry(PyObject* self, PyObject* path) {
  const Interpreter* interpreter;
  {
    std::lock_guard<std::mutex> lock(owners_mutex);
    interpreter = owners().at(self);
  }
  const PythonApi& api = interpreter->api();
  const char* origin = api.PyUnicode_AsUTF8(path);
  if (origin == nullptr) return nullptr;
  try {
    return api.PyUnicode_FromString(private_extension(origin, interpreter->slot()).c_str());
  } catch (const std::exception& e) {
    api.PyErr_SetString(*api.PyExc_ImportError, e.what());
    return nullptr;
  }
}

// Interpreters alive, by slot (never reused): a thread's kept state is
// deleted at its exit only while its interpreter lives (finalizing one
// deletes every state it had).
std::mutex live_mutex;
std::unordered_set<int>& live_slots() {
  static auto* slots = new std::unordered_set<int>();
  return *slots;
}

struct KeptState {
  int slot;
  PyThreadState* state;
  void (*restore)(PyThreadState*);
  void (*release)(PyGILState_STATE);
};

// This thread's kept Python thread states, one per interpreter it entered.
struct ThreadStates {
  std::vector<KeptState> kept;
  ~ThreadStates() {
    std::lock_guard<std::mutex> lock(live_mutex);
    for (const KeptState& k : kept) {
      if (live_slots().count(k.slot) == 0) continue;
      k.restore(k.state);
      k.release(PyGILState_UNLOCKED);  // balances the first session's Ensure: deletes the state, drops the GIL
    }
  }
};
thread_local ThreadStates thread_states;

template <typename F>
void resolve(void* library, const char* name, F& slot) {
  void* symbol = dlsym(library, name);
  EMBER_CHECK(symbol != nullptr, "ember::deploy: libpython has no {}: {}", name, dlerror());
  slot = reinterpret_cast<F>(symbol);
}

}  // namespace

Interpreter::Interpreter(int slot, size_t index, const std::string& libpython, const std::vector<std::string>& python_path)
    : slot_(slot), index_(index) {
  load(libpython);
  api_.Py_InitializeEx(0);  // 0: the host program's signal handlers stay its own
  try {
    run_bootstrap(python_path);
    auto* bridge = static_cast<const PythonBridge*>(api_.PyCapsule_Import(kPythonBridgeCapsule, 0));
    if (bridge == nullptr) raise_python_error("getting ember._C's bridge");
    EMBER_CHECK(bridge->version == PythonBridge::kVersion,
                "ember::deploy: the ember package found by interpreter {} was built for another version of "
                "ember::deploy (bridge version {}, expected {})",
                index, bridge->version, PythonBridge::kVersion);
    bridge_ = bridge;
  } catch (...) {
    api_.Py_FinalizeEx();
    forget_owner(this);
    throw;
  }
  main_thread_ = api_.PyEval_SaveThread();
  std::lock_guard<std::mutex> lock(live_mutex);
  live_slots().insert(slot_);
}

void Interpreter::enter() {
  for (const KeptState& k : thread_states.kept) {
    if (k.slot == slot_) return api_.PyEval_RestoreThread(k.state);
  }
  api_.PyGILState_Ensure();  // a new state for this thread (or the main one), kept
  PyThreadState* state = api_.PyEval_SaveThread();
  thread_states.kept.push_back(KeptState{slot_, state, api_.PyEval_RestoreThread, api_.PyGILState_Release});
  api_.PyEval_RestoreThread(state);
}

void Interpreter::leave() { api_.PyEval_SaveThread(); }

Interpreter::~Interpreter() {
  if (main_thread_ == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(live_mutex);
    live_slots().erase(slot_);
  }
  api_.PyEval_RestoreThread(main_thread_);
  api_.Py_FinalizeEx();
  forget_owner(this);
  // The library stays loaded: the extension modules it loaded need it, and
  // Python never unloads those.
}

void Interpreter::load(const std::string& libpython) {
  const std::string copy = private_python_library(libpython, slot_);
  library_ = dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
  EMBER_CHECK(library_ != nullptr, "ember::deploy: cannot load interpreter {}'s copy of libpython: {}", index_,
              dlerror());
#define EMBER_DEPLOY_RESOLVE(name) resolve(library_, #name, api_.name)
  EMBER_DEPLOY_RESOLVE(Py_SetPythonHome);
  EMBER_DEPLOY_RESOLVE(Py_InitializeEx);
  EMBER_DEPLOY_RESOLVE(Py_FinalizeEx);
  EMBER_DEPLOY_RESOLVE(PyEval_SaveThread);
  EMBER_DEPLOY_RESOLVE(PyEval_RestoreThread);
  EMBER_DEPLOY_RESOLVE(PyGILState_Ensure);
  EMBER_DEPLOY_RESOLVE(PyGILState_Release);
  EMBER_DEPLOY_RESOLVE(Py_IncRef);
  EMBER_DEPLOY_RESOLVE(Py_DecRef);
  EMBER_DEPLOY_RESOLVE(PyErr_Occurred);
  EMBER_DEPLOY_RESOLVE(PyErr_Fetch);
  EMBER_DEPLOY_RESOLVE(PyErr_NormalizeException);
  EMBER_DEPLOY_RESOLVE(PyException_SetTraceback);
  EMBER_DEPLOY_RESOLVE(PyErr_SetString);
  EMBER_DEPLOY_RESOLVE(PyImport_ImportModule);
  EMBER_DEPLOY_RESOLVE(PyObject_GetAttrString);
  EMBER_DEPLOY_RESOLVE(PyObject_Call);
  EMBER_DEPLOY_RESOLVE(PyObject_Str);
  EMBER_DEPLOY_RESOLVE(PySequence_GetItem);
  EMBER_DEPLOY_RESOLVE(PyTuple_New);
  EMBER_DEPLOY_RESOLVE(PyTuple_SetItem);
  EMBER_DEPLOY_RESOLVE(PyDict_New);
  EMBER_DEPLOY_RESOLVE(PyDict_SetItemString);
  EMBER_DEPLOY_RESOLVE(PyUnicode_FromString);
  EMBER_DEPLOY_RESOLVE(PyUnicode_AsUTF8);
  EMBER_DEPLOY_RESOLVE(PyUnicode_Join);
  EMBER_DEPLOY_RESOLVE(PyList_New);
  EMBER_DEPLOY_RESOLVE(PyList_Append);
  EMBER_DEPLOY_RESOLVE(PyRun_StringFlags);
  EMBER_DEPLOY_RESOLVE(PyEval_GetBuiltins);
  EMBER_DEPLOY_RESOLVE(PyCapsule_Import);
  EMBER_DEPLOY_RESOLVE(PyCMethod_New);
  EMBER_DEPLOY_RESOLVE(PyExc_ImportError);
#undef EMBER_DEPLOY_RESOLVE
  // Python finds its standard library from its home, the prefix the
  // library was installed under (the host program's path tells it nothing).
  static std::mutex home_mutex;
  static std::vector<std::unique_ptr<std::wstring>> homes;  // Py_SetPythonHome keeps the pointer
  std::string home = std::getenv("EMBER_DEPLOY_PYTHONHOME") ? std::getenv("EMBER_DEPLOY_PYTHONHOME") : "";
#ifdef EMBER_DEPLOY_PYTHON_HOME
  if (home.empty()) home = EMBER_DEPLOY_PYTHON_HOME;
#endif
  if (!home.empty()) {
    std::lock_guard<std::mutex> lock(home_mutex);
    homes.push_back(std::make_unique<std::wstring>(home.begin(), home.end()));
    api_.Py_SetPythonHome(homes.back()->c_str());
  }
}

void Interpreter::run_bootstrap(const std::vector<std::string>& python_path) {
  PyObject* globals = api_.PyDict_New();
  api_.PyDict_SetItemString(globals, "__builtins__", api_.PyEval_GetBuiltins());
  PyObject* paths = api_.PyList_New(0);
  for (const std::string& p : python_path) {
    PyObject* s = api_.PyUnicode_FromString(p.c_str());
    api_.PyList_Append(paths, s);
    api_.Py_DecRef(s);
  }
  api_.PyDict_SetItemString(globals, "_python_path", paths);
  api_.Py_DecRef(paths);
  PyObject* self = api_.PyUnicode_FromString("ember::deploy");
  {
    std::lock_guard<std::mutex> lock(owners_mutex);
    owners()[self] = this;  // `self` lives as long as the function, which the finder keeps
  }
  private_extension_def_ = PyMethodDef{"_private_extension", &private_extension_entry, METH_O,
                                       "This interpreter's own copy of an extension module"};
  PyObject* fn = api_.PyCMethod_New(&private_extension_def_, self, nullptr, nullptr);
  api_.Py_DecRef(self);
  api_.PyDict_SetItemString(globals, "_private_extension", fn);
  api_.Py_DecRef(fn);
  PyObject* result = api_.PyRun_StringFlags(kBootstrap, Py_file_input, globals, globals, nullptr);
  api_.Py_DecRef(globals);
  if (result == nullptr) raise_python_error("starting the interpreter (importing ember)");
  api_.Py_DecRef(result);
}

void Interpreter::raise_python_error(const char* context) const {
  PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
  api_.PyErr_Fetch(&type, &value, &traceback);
  EMBER_CHECK(type != nullptr, "ember::deploy: {} failed without a Python error", context);
  api_.PyErr_NormalizeException(&type, &value, &traceback);
  if (traceback != nullptr) api_.PyException_SetTraceback(value, traceback);
  std::string type_name = "Exception", text;
  if (PyObject* name = api_.PyObject_GetAttrString(type, "__name__")) {
    if (const char* s = api_.PyUnicode_AsUTF8(name)) type_name = s;
    api_.Py_DecRef(name);
  }
  // The traceback as Python prints it.
  PyObject* module = api_.PyImport_ImportModule("traceback");
  PyObject* format = module ? api_.PyObject_GetAttrString(module, "format_exception") : nullptr;
  PyObject* args = api_.PyTuple_New(1);
  api_.Py_IncRef(value);
  api_.PyTuple_SetItem(args, 0, value);
  PyObject* lines = format ? api_.PyObject_Call(format, args, nullptr) : nullptr;
  PyObject* empty = api_.PyUnicode_FromString("");
  PyObject* joined = lines ? api_.PyUnicode_Join(empty, lines) : nullptr;
  if (const char* s = joined ? api_.PyUnicode_AsUTF8(joined) : nullptr) text = s;
  for (PyObject* o : {joined, empty, lines, args, format, module}) {
    if (o != nullptr) api_.Py_DecRef(o);
  }
  if (text.empty()) {
    if (api_.PyErr_Occurred() != nullptr) {
      PyObject *t2, *v2, *tb2;
      api_.PyErr_Fetch(&t2, &v2, &tb2);  // formatting failed: say what we have
      for (PyObject* o : {t2, v2, tb2}) {
        if (o != nullptr) api_.Py_DecRef(o);
      }
    }
    PyObject* str = api_.PyObject_Str(value);
    text = type_name + ": " + (str && api_.PyUnicode_AsUTF8(str) ? api_.PyUnicode_AsUTF8(str) : "");
    if (str != nullptr) api_.Py_DecRef(str);
  }
  for (PyObject* o : {type, value, traceback}) {
    if (o != nullptr) api_.Py_DecRef(o);
  }
  throw PythonError(type_name, fmt::format("ember::deploy: interpreter {}, {}:\n{}", index_, context, text));
}

}  // namespace ember::deploy
