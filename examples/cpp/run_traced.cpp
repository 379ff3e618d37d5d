// Runs programs traced in Python (examples/trace_models.py) without Python:
// loads each with its weights, runs it on the saved input and compares with
// the output Python computed.
//   ember_run_traced DIR
#include <aten/ember.h>
#include <aten/serialize/Serialization.h>
#include <c10/core/GradMode.h>
#include <jit/module.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  using namespace ember;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR (written by examples/trace_models.py)\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  c10::NoGradGuard inference;
  bool all_identical = true;
  for (const std::string name : {"mlp", "cnn", "transformer"}) {
    const jit::Module program = jit::load(dir + "/" + name + ".ember");
    const auto io = serialize::load_tensors(dir + "/" + name + "_io.ember");
    const Tensor output = program.forward(io[0].second);
    const bool identical = equal(output, io[1].second);
    all_identical = all_identical && identical;
    std::printf("%-11s %zu operators, %zu parameters, output %s, first value %.6f: %s\n", name.c_str(),
                program.operator_names().size(), program.named_parameters().size(),
                c10::str_sizes(output.sizes()).c_str(), output.reshape({-1})[0].item<double>(),
                identical ? "identical to Python" : "DIFFERENT from Python");
  }
  std::printf(all_identical ? "all programs match Python\n" : "some programs differ from Python\n");
  return all_identical ? 0 : 1;
}
