#include <lazy/Executor.h>

#include <c10/util/Exception.h>

#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>

namespace ember::lazy {

std::shared_ptr<Executor> make_builtin_executor();  // BuiltinExecutor.cpp

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<Executor>> executors;
  std::string current;  // empty: EMBER_LAZY_EXECUTOR's choice, read at first use
  std::unordered_map<std::string, std::shared_ptr<Executable>> compiled;
};

Registry& registry() {
  static Registry* r = [] {
    auto* made = new Registry();  // lives to exit: executors may run from atexit syncs
    auto builtin = make_builtin_executor();
    made->executors[builtin->name()] = builtin;
    return made;
  }();
  return *r;
}

std::string known(const Registry& r) {
  std::vector<std::string> names;
  for (const auto& [name, e] : r.executors) names.push_back(name);
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

void register_executor(std::shared_ptr<Executor> executor) {
  EMBER_CHECK(executor != nullptr, "register_executor: no executor given");
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.executors[executor->name()] = std::move(executor);
}

void set_executor(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  EMBER_CHECK_VALUE(r.executors.count(name) != 0,
                    "ember.lazy.set_executor: unknown executor '{}' (known: {}; 'xla' needs jax and jaxlib, "
                    "installed by scripts/install_deps.sh)", name, known(r));
  r.current = name;
}

std::shared_ptr<Executor> current_executor() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.current.empty()) {
    const char* env = std::getenv("EMBER_LAZY_EXECUTOR");
    r.current = env && *env ? env : "builtin";
  }
  auto found = r.executors.find(r.current);
  EMBER_CHECK_VALUE(found != r.executors.end(),
                    "the lazy executor '{}' (EMBER_LAZY_EXECUTOR) is not available (known: {}; 'xla' registers "
                    "when ember.lazy is imported with jax and jaxlib installed)", r.current, known(r));
  return found->second;
}

std::vector<std::string> executor_names() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, e] : r.executors) names.push_back(name);
  return names;
}

std::shared_ptr<Executable> find_compiled(const std::string& key) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto found = r.compiled.find(key);
  return found == r.compiled.end() ? nullptr : found->second;
}

void add_compiled(const std::string& key, std::shared_ptr<Executable> executable) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.compiled[key] = std::move(executable);
}

void clear_compiled() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.compiled.clear();
}

size_t num_compiled() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.compiled.size();
}

}  // namespace ember::lazy
