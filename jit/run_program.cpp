// ember_run_program PROGRAM INPUTS OUTPUTS
//
// Runs a program saved by ember.jit.save (or jit::save) on the tensors of
// INPUTS (an Ember file of tensors, in order, e.g. ember.save({"x": x}))
// and saves its outputs to OUTPUTS as "output0", "output1", ...: inference
// from C++ with no Python and no autograd. Built against static libraries
// with an operator allow-list it is the selective build of a program
// (scripts/selective_build.sh).

#include <jit/module.h>

#include <aten/serialize/Serialization.h>
#include <c10/core/GradMode.h>

#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char** argv) {
  using namespace ember;
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s PROGRAM INPUTS OUTPUTS\n", argv[0]);
    return 2;
  }
  try {
    c10::NoGradGuard inference;
    const jit::Module program = jit::load(argv[1]);
    std::vector<IValue> inputs;
    for (const auto& [name, tensor] : serialize::load_tensors(argv[2])) inputs.emplace_back(tensor);
    const auto outputs = program.forward(std::move(inputs));
    std::vector<std::pair<std::string, Tensor>> named;
    for (size_t i = 0; i < outputs.size(); ++i) named.emplace_back("output" + std::to_string(i), outputs[i].toTensor());
    serialize::save_tensors(named, argv[3]);
    std::printf("%s: %zu operator calls, %zu outputs -> %s\n", argv[1], program.graph().nodes().size(), outputs.size(),
                argv[3]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ember_run_program: %s\n", e.what());
    return 1;
  }
  return 0;
}
