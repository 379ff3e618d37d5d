#pragma once
// What each interpreter's copy of ember._C hands to ember::deploy: value
// conversions made by that copy (its pybind11 types, its interpreter's
// objects), as plain function pointers in a capsule named
// "ember._C._deploy_bridge". Compiled into both sides; no Python headers.

#include <aten/core/dispatch/IValue.h>
#include <c10/core/PythonInterpreter.h>

#include <cstdint>

struct _object;  // CPython's PyObject

namespace ember::deploy {

struct PythonBridge {
  static constexpr uint32_t kVersion = 1;
  uint32_t version = kVersion;
  // A new reference to `value` as a Python object, or null with a Python
  // error set. Called with the interpreter's GIL held.
  _object* (*to_python)(const IValue& value) = nullptr;
  // `object` as an IValue (tensors, numbers, strings, None, lists of
  // tensors or numbers), or false with a Python error set.
  bool (*from_python)(_object* object, IValue* out) = nullptr;
  // The interpreter as the core knows it: a session makes it its thread's.
  c10::PythonInterpreter* interpreter = nullptr;
};

inline constexpr const char* kPythonBridgeCapsule = "ember._C._deploy_bridge";

}  // namespace ember::deploy
