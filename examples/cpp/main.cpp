// Builds a few tensors with Ember's C++ API, differentiates through them and
// checks what it computed, so the install test fails loudly if the installed
// library misbehaves. Given a file saved by Python's ember.save (a dict of
// tensors), it lists the tensors in it.
#include <aten/ember.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  using namespace ember;
  manual_seed(0);

  Tensor a = arange(12, TensorOptions(ScalarType::Float)).view({3, 4});
  Tensor column = a.select(1, 2);  // a view: elements 2, 6, 10
  Tensor b = a.t().contiguous();
  Tensor noise = randn({2, 3});
  Tensor halves = full({2}, 0.5, ScalarType::Half);

  std::printf("a is %lldx%lld, column = [%g, %g, %g]\n", static_cast<long long>(a.size(0)),
              static_cast<long long>(a.size(1)), column[0].item<double>(), column[1].item<double>(),
              column[2].item<double>());
  std::printf("b = a.t() has strides [%lld, %lld]; b[1][2] = %g\n", static_cast<long long>(b.stride(0)),
              static_cast<long long>(b.stride(1)), b[1][2].item<double>());
  std::printf("first of 6 normal draws: %g; half 0.5 reads back as %g\n",
              (noise.view({-1}).to(ScalarType::Double)[0].item<double>()), halves[1].item<double>());

  column.fill_(-1);  // writes through the view into `a`
  Tensor w = ones({3, 4}).set_requires_grad(true);
  (a * w * w).sum().backward();  // d/dw = 2 * a * w
  const bool grad_ok = w.grad()[1][2].item<double>() == -2 && w.grad()[2][3].item<double>() == 22;
  std::printf("autograd: d/dw sum(a * w^2) at [2][3] = %g\n", w.grad()[2][3].item<double>());

  if (argc > 1) {
    for (const auto& [name, t] : serialize::load_tensors(argv[1])) {
      std::printf("%s: %s of %lld elements, sum %g\n", name.c_str(), std::string(c10::python_name(t.scalar_type())).c_str(),
                  static_cast<long long>(t.numel()), t.sum().to(ScalarType::Double).item<double>());
    }
  }
  const bool ok = grad_ok && a[1][2].item<double>() == -1 && b[1][2].item<double>() == 9 &&
                  halves[1].item<double>() == 0.5;
  std::puts(ok ? "ember C++ example: OK" : "ember C++ example: WRONG RESULTS");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
