#include <c10/util/CacheDir.h>

#include <cstdlib>

namespace c10 {

std::string ember_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/ember";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/ember";
  return "";
}

}  // namespace c10
