#pragma once
// One interpreter of an InterpreterManager: a private copy of libpython
// loaded RTLD_LOCAL, started with its own sys.path and import hook, with
// ember imported. Its C API is reached through the function pointers below,
// looked up in that copy: ember_deploy links no libpython, so a stray
// Py_DECREF (an inline that names a libpython symbol) fails to link.

#include <deploy/Deploy.h>
#include <deploy/PythonBridge.h>

#include <Python.h>

#include <string>

namespace ember::deploy {

// The part of the CPython API ember::deploy calls, from one copy.
struct PythonApi {
  void (*Py_SetPythonHome)(const wchar_t*);
  void (*Py_InitializeEx)(int);
  int (*Py_FinalizeEx)();
  PyThreadState* (*PyEval_SaveThread)();
  void (*PyEval_RestoreThread)(PyThreadState*);
  PyGILState_STATE (*PyGILState_Ensure)();
  void (*PyGILState_Release)(PyGILState_STATE);
  void (*Py_IncRef)(PyObject*);
  void (*Py_DecRef)(PyObject*);
  PyObject* (*PyErr_Occurred)();
  void (*PyErr_Fetch)(PyObject**, PyObject**, PyObject**);
  void (*PyErr_NormalizeException)(PyObject**, PyObject**, PyObject**);
  int (*PyException_SetTraceback)(PyObject*, PyObject*);
  void (*PyErr_SetString)(PyObject*, const char*);
  PyObject* (*PyImport_ImportModule)(const char*);
  PyObject* (*PyObject_GetAttrString)(PyObject*, const char*);
  PyObject* (*PyObject_Call)(PyObject*, PyObject*, PyObject*);
  PyObject* (*PyObject_Str)(PyObject*);
  PyObject* (*PySequence_GetItem)(PyObject*, Py_ssize_t);
  PyObject* (*PyTuple_New)(Py_ssize_t);
  int (*PyTuple_SetItem)(PyObject*, Py_ssize_t, PyObject*);
  PyObject* (*PyDict_New)();
  int (*PyDict_SetItemString)(PyObject*, const char*, PyObject*);
  PyObject* (*PyUnicode_FromString)(const char*);
  const char* (*PyUnicode_AsUTF8)(PyObject*);
  PyObject* (*PyUnicode_Join)(PyObject*, PyObject*);
  PyObject* (*PyList_New)(Py_ssize_t);
  int (*PyList_Append)(PyObject*, PyObject*);
  PyObject* (*PyRun_StringFlags)(const char*, int, PyObject*, PyObject*, PyCompilerFlags*);
  PyObject* (*PyEval_GetBuiltins)();
  void* (*PyCapsule_Import)(const char*, int);
  PyObject* (*PyCMethod_New)(PyMethodDef*, PyObject*, PyObject*, PyTypeObject*);
  PyObject** PyExc_ImportError;
};

class Interpreter {
 public:
  // Copies libpython for `slot` (a number no other interpreter of this
  // process had), starts it and imports ember. Leaves its GIL released.
  Interpreter(int slot, size_t index, const std::string& libpython, const std::vector<std::string>& python_path);
  ~Interpreter();

  const PythonApi& api() const { return api_; }
  const PythonBridge& bridge() const { return *bridge_; }
  size_t index() const { return index_; }
  int slot() const { return slot_; }

  // The pending Python error as a PythonError (clears it). With the GIL.
  [[noreturn]] void raise_python_error(const char* context) const;

  // Takes the GIL on this thread, with this thread's Python thread state:
  // made by the thread's first session here and kept for its later ones
  // (rather than a new state, with a new frame stack, per request), deleted
  // when the thread exits.
  void enter();
  // Releases the GIL, keeping the thread state.
  void leave();

 private:
  void load(const std::string& libpython);
  void run_bootstrap(const std::vector<std::string>& python_path);

  int slot_;
  size_t index_;
  void* library_ = nullptr;
  PythonApi api_{};
  const PythonBridge* bridge_ = nullptr;
  PyThreadState* main_thread_ = nullptr;
  PyMethodDef private_extension_def_{};
};

}  // namespace ember::deploy
