// Serves a packaged model (examples/deploy/export_char_model.py) from N
// Python interpreters on N threads, in one process, and checks every
// output against what a single Python interpreter computed.
//
//   ember_deploy_serve PACKAGE REQUESTS [--interpreters 1,2,4] [--rounds 4] [--json]
//
// For each count n it serves every request `rounds` times from n threads,
// each call on whichever of n interpreters is free, and prints requests per
// second. The interpreters import `ember` (and whatever the package's code
// imports) like any Python: set EMBER_DEPLOY_PYTHONPATH where ember is not
// installed.

#include <aten/ember.h>
#include <aten/Parallel.h>
#include <aten/serialize/Serialization.h>
#include <deploy/Deploy.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using ember::Tensor;

namespace {

std::vector<size_t> parse_counts(const std::string& list) {
  std::vector<size_t> counts;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) counts.push_back(std::stoul(item));
  return counts;
}

struct Result {
  double requests_per_second;
  size_t served;
  size_t mismatched;
};

Result serve(const ember::deploy::ReplicatedObj& model, const Tensor& tokens, const Tensor& expected, size_t threads,
             size_t rounds) {
  const size_t distinct = static_cast<size_t>(tokens.size(0));
  const size_t total = distinct * rounds;
  std::vector<Tensor> requests, outputs(total);
  for (size_t r = 0; r < distinct; ++r) requests.push_back(tokens[static_cast<int64_t>(r)]);
  std::atomic<size_t> next{0};
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (size_t t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (size_t i; (i = next++) < total;) outputs[i] = model({requests[i % distinct]}).toTensor();
    });
  }
  for (auto& w : workers) w.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Checked after the clock stops: the table times serving alone.
  size_t mismatched = 0;
  for (size_t i = 0; i < total; ++i)
    mismatched += ember::allclose(outputs[i], expected[static_cast<int64_t>(i % distinct)], 1e-4, 1e-5) ? 0 : 1;
  return {static_cast<double>(total) / seconds, total, mismatched};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s PACKAGE REQUESTS [--interpreters 1,2,4] [--rounds 4] [--json]\n", argv[0]);
    return 2;
  }
  std::vector<size_t> counts{1, 2, 4};
  size_t rounds = 4;
  bool json = false;
  for (int i = 3; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--interpreters") && i + 1 < argc) counts = parse_counts(argv[++i]);
    else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = std::stoul(argv[++i]);
    else if (!std::strcmp(argv[i], "--json")) json = true;
  }
  std::map<std::string, Tensor> requests;
  for (auto& [name, t] : ember::serialize::load_tensors(argv[2])) requests[name] = t;
  const Tensor tokens = requests.at("tokens"), expected = requests.at("logits");

  // Requests run side by side: one thread each, none inside an op.
  ember::set_num_threads(1);
  size_t most = 1;
  for (size_t n : counts) most = std::max(most, n);
  ember::deploy::InterpreterManager manager(most);
  ember::deploy::ReplicatedObj model = manager.load_package(argv[1]).load_model();
  serve(model, tokens, expected, most, 1);  // warm every interpreter

  if (!json) {
    std::printf("serving %s: %lld requests of %s tokens, %zu rounds\n", argv[1],
                static_cast<long long>(tokens.size(0)), "1x64", rounds);
    std::printf("%-14s %-12s %s\n", "interpreters", "requests/s", "vs 1 interpreter");
  }
  double base = 0;
  size_t mismatched = 0, served = 0;
  for (size_t n : counts) {
    const Result r = serve(model, tokens, expected, n, rounds);
    if (base == 0) base = r.requests_per_second;
    mismatched += r.mismatched;
    served += r.served;
    if (json) {
      std::printf("{\"interpreters\": %zu, \"requests_per_second\": %.2f, \"mismatched\": %zu}\n", n,
                  r.requests_per_second, r.mismatched);
    } else {
      std::printf("%-14zu %-12.1f %.2fx\n", n, r.requests_per_second, r.requests_per_second / base);
    }
  }
  if (!json) {
    std::printf(mismatched == 0 ? "outputs match single-interpreter Python: all %zu requests\n"
                                : "OUTPUTS DIFFER from single-interpreter Python in %zu of %zu requests\n",
                mismatched == 0 ? served : mismatched, served);
  }
  return mismatched == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
