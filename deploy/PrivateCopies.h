#pragma once
// Private copies of shared libraries, one set per interpreter slot, so that
// every interpreter gets its own CPython and its own extension modules.
//
// dlopen gives back the already loaded object for a file it has seen, so an
// interpreter's libpython and each extension module it imports must be a
// file of its own. The copies are patched with patchelf: libpython's copy
// for slot N gets the soname "libember-deploy-pythonN.so", and each
// extension module's copy for slot N names that soname as a needed library,
// so that its references to the Python C API bind to its interpreter's copy
// (the host program links no libpython: nothing else defines those names).
// Copies are cached on disk ($EMBER_DEPLOY_CACHE, else
// $XDG_CACHE_HOME/ember/deploy or ~/.cache/ember/deploy) by the original
// file's path, size and modification time, so a process pays for patching
// only the first time.

#include <string>

namespace ember::deploy {

// The soname that slot `slot`'s copy of libpython has.
std::string python_soname(int slot);

// Slot `slot`'s copy of the CPython shared library at `libpython`.
std::string private_python_library(const std::string& libpython, int slot);

// Slot `slot`'s copy of the extension module at `extension`: it needs that
// slot's libpython, and its library search path ($ORIGIN included) still
// finds what the original found.
std::string private_extension(const std::string& extension, int slot);

}  // namespace ember::deploy
