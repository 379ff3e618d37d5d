// Trains two models in pure C++ with Ember's frontend (nn, optim, data,
// serialization), on data generated here:
//  * an MLP that learns which of four Gaussian blobs a 2-d point came from;
//  * a small CNN that tells horizontal from vertical bars in 8x8 images.
// Each prints a progress line per epoch; the program fails (exit 1) unless
// both losses fall and both models end up accurate, so the install test
// notices if training breaks. With a path argument it saves the CNN there.
#include <api/nn.h>

#include <cstdio>
#include <string>

using namespace ember;

namespace {

// Points around four centers, labelled by center.
std::pair<Tensor, Tensor> blobs(int64_t n) {
  Tensor labels = randint(0, 4, {n});
  Tensor centers = tensor({2.0f, 2.0f, -2.0f, 2.0f, -2.0f, -2.0f, 2.0f, -2.0f}).view({4, 2});
  return {centers.index_select(0, labels) + randn({n, 2}) * 0.7, labels};
}

// 8x8 images holding one horizontal (label 0) or vertical (label 1) bar, noisy.
std::pair<Tensor, Tensor> bars(int64_t n) {
  Tensor labels = randint(0, 2, {n});
  Tensor images = randn({n, 1, 8, 8}) * 0.3;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t where = randint(1, 7, {1}).item<int64_t>();
    Tensor bar = labels[i].item<int64_t>() == 0 ? images[i][0].select(0, where) : images[i][0].select(1, where);
    bar.add_(1.5);
  }
  return {images, labels};
}

double accuracy(const Tensor& logits, const Tensor& labels) {
  return logits.argmax(1).eq(labels).to(ScalarType::Double).mean().item<double>();
}

// Shuffled minibatches of 32 from a DataLoader (two worker threads
// collating ahead) for `epochs` epochs. Returns {first epoch's loss, last's}.
std::pair<double, double> train(nn::Module& model, optim::Optimizer& optimizer, const Tensor& x, const Tensor& y,
                                int epochs, const char* name) {
  data::DataLoader loader(std::make_shared<data::TensorDataset>(x, y),
                          data::DataLoaderOptions(32).shuffle(true).num_workers(2));
  optim::StepLR schedule(optimizer, 4, 0.5);
  double first = 0, last = 0;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    model.train();
    double total = 0;
    for (const data::Example& batch : loader) {
      optimizer.zero_grad();
      Tensor loss = nn::functional::cross_entropy(model.forward(batch.data), batch.target);
      loss.backward();
      optimizer.step();
      total += loss.item<double>();
    }
    schedule.step();
    last = total / double(loader.size());
    if (epoch == 1) first = last;
    model.eval();
    c10::NoGradGuard no_grad;
    std::printf("%s epoch %d/%d  loss %.4f  accuracy %.3f  lr %g\n", name, epoch, epochs, last,
                accuracy(model.forward(x), y), schedule.get_last_lr()[0]);
  }
  return {first, last};
}

}  // namespace

int main(int argc, char** argv) {
  manual_seed(0);
  bool ok = true;

  auto [points, point_labels] = blobs(512);
  nn::Sequential mlp(nn::Linear(2, 32), nn::ReLU(), nn::Linear(32, 32), nn::ReLU(), nn::Linear(32, 4));
  std::printf("%s\n", mlp->repr().c_str());
  optim::Adam adam(mlp->parameters(), optim::AdamOptions(1e-2));
  auto [mlp_first, mlp_last] = train(*mlp, adam, points, point_labels, 8, "mlp");
  {
    c10::NoGradGuard no_grad;
    ok = ok && mlp_last < 0.5 * mlp_first && accuracy(mlp(points), point_labels) > 0.9;
  }

  auto [images, image_labels] = bars(256);
  nn::Sequential cnn(nn::Conv2d(nn::Conv2dOptions(1, 8, 3).padding(1)), nn::BatchNorm2d(8), nn::ReLU(),
                     nn::MaxPool2d(2), nn::Conv2d(nn::Conv2dOptions(8, 8, 3).padding(1)), nn::ReLU(),
                     nn::MaxPool2d(2), nn::Flatten(), nn::Dropout(0.1), nn::Linear(8 * 2 * 2, 2));
  std::printf("%s\n", cnn->repr().c_str());
  optim::SGD sgd(cnn->parameters(), optim::SGDOptions(0.05).momentum(0.9));
  auto [cnn_first, cnn_last] = train(*cnn, sgd, images, image_labels, 6, "cnn");
  {
    c10::NoGradGuard no_grad;
    cnn->eval();
    ok = ok && cnn_last < 0.5 * cnn_first && accuracy(cnn(images), image_labels) > 0.9;
  }

  if (argc > 1) {
    save(*cnn, argv[1]);
    std::printf("saved the CNN's state_dict to %s\n", argv[1]);
  }
  std::printf("%s\n", ok ? "training OK" : "training FAILED");
  return ok ? 0 : 1;
}
