// The C++ frontend: module trees, options, printing, state_dict, clone,
// optimizers. Parity with the Python modules on the same weights is
// test/python/test_cpp_frontend.py's (it runs PythonParity below).

#include <api/nn.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

#include "error_of.h"
#include "expect/expect_inline.h"

namespace {

using namespace ember;
using ember::testing::error_of;
using ember::testing::expect_inline;

template <typename F>
void expect_error(F&& f, const std::string& text) {
  const std::string message = error_of(f);
  EXPECT_NE(message.find(text), std::string::npos) << "expected an error containing \"" << text << "\", got: " << message;
}

// A user-defined model, as a libtorch user writes one.
class NetImpl : public nn::Cloneable<NetImpl> {
 public:
  NetImpl() : Cloneable("Net") { reset(); }
  void reset() override {
    features = register_module("features", nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 4, 3).padding(1)),
                                                          nn::BatchNorm2d(4), nn::ReLU(), nn::MaxPool2d(2)));
    head = register_module("head", nn::Linear(4 * 2 * 2, 3));
    register_buffer("scale", ember::ones({1}));
  }
  Tensor forward(const Tensor& x) override { return head(features(x).flatten(1)); }

  nn::Sequential features = nullptr;
  nn::Linear head = nullptr;
};
EMBER_MODULE(Net);

// One of each of the other modules, run by PythonParity against Python's Net2.
class Net2Impl : public nn::Cloneable<Net2Impl> {
 public:
  Net2Impl() : Cloneable("Net2") { reset(); }
  void reset() override {
    conv = register_module("conv", nn::Conv1d(nn::Conv1dOptions(2, 4, 3).padding(1)));
    gn = register_module("gn", nn::GroupNorm(2, 4));
    bn = register_module("bn", nn::BatchNorm1d(4));
    pool = register_module("pool", nn::AdaptiveAvgPool2d(nn::IntPair{3, 2}));
    // One at a time: the arguments of one call are made in no set order
    // (right to left under GCC), and Python's draws come left to right.
    blocks = register_module("blocks", nn::ModuleList());
    blocks->push_back(nn::Linear(6, 6));
    blocks->push_back(nn::Linear(6, 6));
    bil = register_module("bil", nn::Bilinear(6, 6, 3));
  }
  Tensor forward(const Tensor& x) override {
    Tensor h = bn(gn(conv(x))).relu();            // [N, 4, 6]
    Tensor p = pool(h.unsqueeze(1)).flatten(1);  // [N, 6]
    for (const auto& block : *blocks) p = block->forward(p).tanh();
    return bil(p, p);
  }
  nn::Conv1d conv = nullptr;
  nn::GroupNorm gn = nullptr;
  nn::BatchNorm1d bn = nullptr;
  nn::AdaptiveAvgPool2d pool = nullptr;
  nn::ModuleList blocks = nullptr;
  nn::Bilinear bil = nullptr;
};
EMBER_MODULE(Net2);

std::vector<std::string> names(const nn::NamedTensors& named) {
  std::vector<std::string> out;
  for (const auto& e : named) out.push_back(e.first);
  return out;
}

TEST(Module, NamesAreDottedPathsInRegistrationOrder) {
  Net net;
  EXPECT_EQ(names(net->named_parameters()),
            (std::vector<std::string>{"features.0.weight", "features.0.bias", "features.1.weight", "features.1.bias",
                                      "head.weight", "head.bias"}));
  EXPECT_EQ(names(net->named_buffers()),
            (std::vector<std::string>{"scale", "features.1.running_mean", "features.1.running_var",
                                      "features.1.num_batches_tracked"}));
  EXPECT_EQ(names(net->state_dict()),
            (std::vector<std::string>{"scale", "features.0.weight", "features.0.bias", "features.1.weight",
                                      "features.1.bias", "features.1.running_mean", "features.1.running_var",
                                      "features.1.num_batches_tracked", "head.weight", "head.bias"}));
  std::vector<std::string> modules;
  for (const auto& [name, m] : net->named_modules()) modules.push_back(name + ":" + m->name());
  EXPECT_EQ(modules, (std::vector<std::string>{":Net", "features:Sequential", "features.0:Conv2d",
                                               "features.1:BatchNorm2d", "features.2:ReLU", "features.3:MaxPool2d",
                                               "head:Linear"}));
  EXPECT_EQ(net->parameters(false).size(), 0u);
  EXPECT_EQ(net->children().size(), 2u);
}

TEST(Module, PrintsAsPythonsRepr) {
  Net net;
  expect_inline(net->repr(), R"(Net(
  (features): Sequential(
    (0): Conv2d(1, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
    (1): BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    (2): ReLU()
    (3): MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
  )
  (head): Linear(in_features=16, out_features=3, bias=True)
))");
  nn::Sequential more(nn::Dropout(nn::DropoutOptions(0.25)), nn::GELU("tanh"), nn::Softmax(1),
                      nn::LayerNorm(nn::LayerNormOptions({8}).eps(1e-6)),
                      nn::Embedding(nn::EmbeddingOptions(10, 3).padding_idx(-1)), nn::Flatten(), nn::SiLU(),
                      nn::Tanh(), nn::Linear(nn::LinearOptions(2, 2).bias(false)));
  expect_inline(more->repr(), R"(Sequential(
  (0): Dropout(p=0.25, inplace=False)
  (1): GELU(approximate='tanh')
  (2): Softmax(dim=1)
  (3): LayerNorm((8,), eps=1e-06, elementwise_affine=True, bias=True)
  (4): Embedding(10, 3, padding_idx=9)
  (5): Flatten(start_dim=1, end_dim=-1)
  (6): SiLU()
  (7): Tanh()
  (8): Linear(in_features=2, out_features=2, bias=False)
))");
}

TEST(Module, ContainersPrintAndIndexAsPythons) {
  Net2 net;
  expect_inline(net->repr(), R"(Net2(
  (conv): Conv1d(2, 4, kernel_size=(3,), stride=(1,), padding=(1,))
  (gn): GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
  (bn): BatchNorm1d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
  (pool): AdaptiveAvgPool2d(output_size=(3, 2))
  (blocks): ModuleList(
    (0-1): 2 x Linear(in_features=6, out_features=6, bias=True)
  )
  (bil): Bilinear(in1_features=6, in2_features=6, out_features=3, bias=True)
))");
  EXPECT_EQ(names(net->blocks->named_parameters()),
            (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias"}));
  nn::ModuleDict heads;
  heads->insert("cls", nn::Linear(6, 2));
  heads->insert("box", nn::Linear(6, 4));
  EXPECT_EQ(heads->keys(), (std::vector<std::string>{"cls", "box"}));
  EXPECT_TRUE(heads->contains("box") && !heads->contains("mask"));
  EXPECT_EQ(heads["box"]->forward(ember::zeros({1, 6})).size(1), 4);
  expect_error([&] { heads["mask"]; }, "no module named \"mask\"");
  auto copy = std::dynamic_pointer_cast<nn::ModuleDictImpl>(heads->clone());
  EXPECT_EQ(copy->keys(), heads->keys());
  EXPECT_FALSE((*copy)["cls"]->parameters()[0].is_alias_of((*heads)["cls"]->parameters()[0]));
  EXPECT_EQ(net(ember::randn({3, 2, 6})).sizes(), (std::vector<int64_t>{3, 3}));
}

TEST(Module, AttentionShapesAndErrors) {
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(8, 2).batch_first(true));
  EXPECT_EQ(names(mha->named_parameters()),
            (std::vector<std::string>{"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"}));
  Tensor x = ember::randn({3, 5, 8});
  auto [out, weights] = mha->forward(x, x, x);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{3, 5, 8}));
  EXPECT_EQ(weights.sizes(), (std::vector<int64_t>{3, 5, 5}));
  EXPECT_TRUE(weights.sum(IntArrayRef({-1})).allclose(ember::ones({3, 5})));
  auto [single, single_weights] = mha->forward(x[0], x[0], x[0], Tensor(), false);
  EXPECT_EQ(single.sizes(), (std::vector<int64_t>{5, 8}));
  EXPECT_FALSE(single_weights.defined());
  EXPECT_TRUE(single.allclose(out[0], 1e-5, 1e-6));
  expect_error([&] { mha->forward(x, x, x, Tensor(), true, ember::zeros({4, 4})); },
               "The shape of the 2D attn_mask is [4, 4], but should be (5, 5).");
  expect_error([&] { mha->forward(x, x, x, ember::zeros({3, 5}, ScalarType::Long)); },
               "only bool and floating types of key_padding_mask");
  expect_error([&] { nn::MultiheadAttention(7, 2); }, "embed_dim must be divisible by num_heads");
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).norm_first(true));
  EXPECT_EQ(layer(ember::randn({5, 3, 8})).sizes(), (std::vector<int64_t>{5, 3, 8}));
  expect_error([&] { nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(8, 2).activation("tanh")); },
               "activation should be relu/gelu, not tanh");
}

TEST(Module, OptionsDefaultsArePythonsKeywordDefaults) {
  nn::Conv2dOptions conv(3, 16, 3);
  EXPECT_TRUE(conv.stride().all(1) && conv.padding().all(0) && conv.dilation().all(1));
  EXPECT_EQ(conv.groups(), 1);
  EXPECT_TRUE(conv.bias());
  nn::BatchNormOptions bn(4);
  EXPECT_EQ(bn.eps(), 1e-5);
  EXPECT_EQ(bn.momentum(), 0.1);
  EXPECT_TRUE(bn.affine() && bn.track_running_stats());
  EXPECT_EQ(nn::DropoutOptions().p(), 0.5);
  EXPECT_EQ(nn::FlattenOptions().start_dim(), 1);
  EXPECT_EQ(nn::MaxPool2dOptions(3).stride()[0], 3);
  EXPECT_EQ(optim::AdamOptions().beta2(), 0.999);
  EXPECT_EQ(optim::AdamOptions().eps(), 1e-8);
  EXPECT_EQ(nn::functional::CrossEntropyFuncOptions().ignore_index(), -100);
}

TEST(Module, ForwardIsTheOpsOfTheModule) {
  manual_seed(0);
  nn::Linear fc(4, 3);
  Tensor x = randn({2, 4});
  Tensor expected = x.matmul(fc->weight.t()) + fc->bias;
  EXPECT_TRUE(fc(x).allclose(expected));
  // Python's initialization bounds: U(-1/sqrt(in), 1/sqrt(in)).
  EXPECT_LE(fc->weight.abs().max().item<double>(), 0.5);
  EXPECT_TRUE(fc->weight.requires_grad() && fc->weight.is_leaf());

  Net net;
  Tensor y = net(randn({5, 1, 4, 4}));
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{5, 3}));
  y.sum().backward();
  for (const auto& [name, p] : net->named_parameters()) EXPECT_TRUE(p.grad().defined()) << name;
  EXPECT_EQ(net->features[1]->named_buffers()[2].second.item<int64_t>(), 1);  // num_batches_tracked
}

TEST(Module, TrainEvalZeroGradApplyTo) {
  Net net;
  net->eval();
  EXPECT_FALSE(net->features[1]->is_training());
  net->train();
  EXPECT_TRUE(net->features[1]->is_training());

  net(randn({2, 1, 4, 4})).sum().backward();
  net->zero_grad();
  for (const auto& p : net->parameters()) EXPECT_FALSE(p.grad().defined());

  int count = 0;
  net->apply([&](nn::Module&) { ++count; });
  EXPECT_EQ(count, 7);

  Tensor weight = net->head->weight;  // a handle the conversion must update
  net->to(ScalarType::Double);
  EXPECT_EQ(weight.scalar_type(), ScalarType::Double);
  EXPECT_EQ(net->features[1]->named_buffers()[2].second.scalar_type(), ScalarType::Long);
  EXPECT_EQ(net(randn({1, 1, 4, 4}).to(ScalarType::Double)).scalar_type(), ScalarType::Double);
  expect_error([&] { net->to(ScalarType::Int); }, "floating point or complex dtypes");
}

TEST(Module, CloneCopiesValuesIntoFreshTensors) {
  Net net;
  auto copy = std::dynamic_pointer_cast<NetImpl>(net->clone());
  ASSERT_NE(copy, nullptr);
  const auto original = net->state_dict(), cloned = copy->state_dict();
  ASSERT_EQ(names(original), names(cloned));
  for (size_t i = 0; i < original.size(); ++i) {
    EXPECT_TRUE(original[i].second.equal(cloned[i].second)) << original[i].first;
    EXPECT_FALSE(original[i].second.is_alias_of(cloned[i].second)) << original[i].first;
  }
  // The copy's members are its own registered tensors.
  EXPECT_TRUE(copy->head->weight.is_alias_of(copy->named_parameters()[4].second));
  Tensor x = randn({2, 1, 4, 4});
  net->eval();
  copy->eval();
  EXPECT_TRUE(net(x).allclose(copy->forward(x)));
}

TEST(Module, LoadStateDictListsEveryProblem) {
  Net net, other;
  other->load_state_dict(net->state_dict());
  EXPECT_TRUE(other->head->weight.equal(net->head->weight));
  auto state = net->state_dict();
  state.erase(state.begin() + 1);                         // features.0.weight missing
  state.emplace_back("head.extra", ember::zeros({1}));    // unexpected
  state[7].second = ember::zeros({2, 2});                 // head.weight of the wrong shape
  const std::string error = error_of([&] { other->load_state_dict(state); });
  EXPECT_NE(error.find("Error(s) in loading state_dict for Net"), std::string::npos) << error;
  EXPECT_NE(error.find("Missing key(s) in state_dict: \"features.0.weight\""), std::string::npos) << error;
  EXPECT_NE(error.find("Unexpected key(s) in state_dict: \"head.extra\""), std::string::npos) << error;
  EXPECT_NE(error.find("size mismatch for head.weight: copying a param with shape [2, 2] from checkpoint, the shape "
                       "in current model is [3, 16]"),
            std::string::npos)
      << error;
}

TEST(Module, RegistrationErrors) {
  nn::Linear fc(2, 2);
  expect_error([&] { fc->register_parameter("a.b", ember::zeros({1})); }, "can't contain \".\"");
  expect_error([&] { fc->register_buffer("", ember::zeros({1})); }, "can't be empty");
  expect_error([&] { nn::Sequential(nn::Softmax(0))[3]; }, "out of range");
  expect_error([&] { nn::BatchNorm2d(3)(ember::zeros({3})); }, "expected 4D input");
  expect_error([&] { nn::Module("Bare").forward(ember::zeros({1})); }, "Bare has no forward");
}

TEST(Optim, SgdWithMomentumIsPythonsUpdate) {
  Tensor p = ember::tensor({1.0, -2.0}, ScalarType::Double).set_requires_grad(true);
  optim::SGD sgd({p}, optim::SGDOptions(0.1).momentum(0.9).weight_decay(0.01));
  for (int step = 0; step < 2; ++step) {
    sgd.zero_grad();
    (p * p).sum().backward();
    sgd.step();
  }
  // By hand: g = 2p + 0.01p; buf = g, then 0.9 buf + g; p -= 0.1 buf.
  double x = 1.0, buf = 0;
  for (int step = 0; step < 2; ++step) {
    const double g = 2.01 * x;
    buf = step == 0 ? g : 0.9 * buf + g;
    x -= 0.1 * buf;
  }
  EXPECT_NEAR(p[0].item<double>(), x, 1e-12);
}

TEST(Optim, AdamFirstStepMovesByLr) {
  Tensor p = ember::tensor({1.0, -2.0}).set_requires_grad(true);
  optim::Adam adam({p}, optim::AdamOptions(0.01));
  (p * p).sum().backward();
  adam.step();
  // Bias-corrected, the first step is lr * sign(grad) (up to eps).
  EXPECT_NEAR(p[0].item<double>(), 0.99, 1e-6);
  EXPECT_NEAR(p[1].item<double>(), -1.99, 1e-6);
  EXPECT_EQ(adam.state(p)["step"].item<double>(), 1.0);
  optim::AdamW adamw({ember::ones({1}).set_requires_grad(true)});
  EXPECT_EQ(static_cast<const optim::AdamOptions&>(*adamw.param_groups()[0].options).weight_decay(), 0.01);
  expect_error([&] { optim::SGD({p, p}, optim::SGDOptions(0.1)); }, "more than one parameter group");
}

TEST(Optim, StateDictRoundTripsAndChecksGroups) {
  Tensor p = ember::ones({2}).set_requires_grad(true), q = ember::ones({3}).set_requires_grad(true);
  optim::Adam adam({p, q}, optim::AdamOptions(0.1).beta1(0.8));
  (p.sum() + q.pow(2).sum()).backward();
  adam.step();
  optim::Adam other({p.detach().clone().set_requires_grad(true), q.detach().clone().set_requires_grad(true)},
                    optim::AdamOptions(0.5));
  other.load_state_dict(adam.state_dict());
  const auto& loaded = static_cast<const optim::AdamOptions&>(*other.param_groups()[0].options);
  EXPECT_EQ(loaded.lr(), 0.1);
  EXPECT_EQ(loaded.beta1(), 0.8);
  EXPECT_TRUE(other.state(other.param_groups()[0].params[1])["exp_avg"].equal(adam.state(q)["exp_avg"]));
  EXPECT_EQ(other.state(other.param_groups()[0].params[0])["step"].item<double>(), 1.0);
  optim::Adam one({p}, optim::AdamOptions());
  expect_error([&] { one.load_state_dict(adam.state_dict()); }, "doesn't match the size of optimizer's group");
  optim::SGD sgd({p}, optim::SGDOptions(0.1));
  expect_error([&] { sgd.load_state_dict(serialize::Value::dict({})); }, "has no \"param_groups\"");
}

TEST(Optim, AdamOnStridedParametersMatchesTheFusedKernel) {
  // A transposed parameter takes the op-by-op update; it must agree with the kernel's.
  manual_seed(3);
  Tensor dense = randn({3, 4}).set_requires_grad(true);
  Tensor strided = dense.detach().t().contiguous().t().set_requires_grad(true);
  ASSERT_FALSE(strided.is_contiguous());
  for (auto decoupled : {false, true}) {
    optim::Adam fused({dense}, optim::AdamOptions(0.1).weight_decay(0.1).decoupled_weight_decay(decoupled));
    optim::Adam composite({strided}, optim::AdamOptions(0.1).weight_decay(0.1).decoupled_weight_decay(decoupled));
    for (int step = 0; step < 3; ++step) {
      for (auto* p : {&dense, &strided}) {
        p->mutable_grad() = Tensor();
        (*p * *p * *p).sum().backward();
      }
      fused.step();
      composite.step();
    }
    EXPECT_TRUE(dense.allclose(strided, 1e-5, 1e-6)) << (dense - strided).abs().max().item<double>();
  }
}

// Run by test_cpp_frontend.py with EMBER_PARITY_DIR set: loads the weights
// and input Python saved, writes this frontend's output, trains a few steps
// and saves the weights for Python to compare.
TEST(PythonParity, SameWeightsSameOutputsAndTraining) {
  const char* dir = std::getenv("EMBER_PARITY_DIR");
  if (dir == nullptr) GTEST_SKIP() << "run by test/python/test_cpp_frontend.py";
  const std::string d(dir);
  Net net;
  load(*net, d + "/python_weights.ember");
  const auto inputs = serialize::load_tensors(d + "/inputs.ember");
  const Tensor x = inputs[0].second, y = inputs[1].second;
  net->eval();
  Tensor eval_out = net(x);
  net->train();
  optim::SGD sgd(net->parameters(), optim::SGDOptions(0.05).momentum(0.9));
  std::vector<Tensor> losses;
  for (int step = 0; step < 3; ++step) {
    sgd.zero_grad();
    Tensor loss = nn::functional::cross_entropy(net(x), y, nn::functional::CrossEntropyFuncOptions().label_smoothing(0.1));
    loss.backward();
    sgd.step();
    losses.push_back(loss.detach());
  }
  serialize::save_tensors({{"eval_out", eval_out.detach()}, {"losses", ember::stack(losses)}}, d + "/cpp_outputs.ember");
  save(*net, d + "/cpp_weights.ember");
  save(sgd, d + "/cpp_sgd.ember");

  // Python's model and Adam after one step: one more step here.
  Net2 resumed;
  load(*resumed, d + "/python_weights3.ember");
  optim::Adam resumed_adam(resumed->parameters(), optim::AdamOptions(0.5));  // the file's lr replaces 0.5
  load(resumed_adam, d + "/python_adam3.ember");
  const Tensor x3 = serialize::load_tensors(d + "/inputs2.ember")[0].second;
  resumed_adam.zero_grad();
  resumed(x3).pow(2).mean().backward();
  resumed_adam.step();
  save(*resumed, d + "/cpp_weights3.ember");
  manual_seed(0);
  Net seeded;
  save(*seeded, d + "/cpp_seeded.ember");

  // The second model: same weights, same outputs and losses.
  Net2 net2;
  load(*net2, d + "/python_weights2.ember");
  const Tensor x2 = serialize::load_tensors(d + "/inputs2.ember")[0].second;
  net2->eval();
  Tensor eval2 = net2(x2);
  net2->train();
  optim::Adam adam(net2->parameters(), optim::AdamOptions(0.01));
  std::vector<Tensor> losses2;
  for (int step = 0; step < 3; ++step) {
    adam.zero_grad();
    Tensor loss = net2(x2).pow(2).mean();
    loss.backward();
    adam.step();
    losses2.push_back(loss.detach());
  }
  serialize::save_tensors({{"eval_out", eval2.detach()}, {"losses", ember::stack(losses2)}},
                          d + "/cpp_outputs2.ember");
  manual_seed(0);
  Net2 seeded2;
  save(*seeded2, d + "/cpp_seeded2.ember");

  // A transformer encoder layer (masks, attention weights, the seeded draws).
  const auto encoder_options =
      nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0).batch_first(true).activation("gelu");
  nn::TransformerEncoderLayer encoder(encoder_options);
  load(*encoder, d + "/python_weights4.ember");
  const auto inputs4 = serialize::load_tensors(d + "/inputs4.ember");
  const Tensor x4 = inputs4[0].second, causal = inputs4[1].second, padding = inputs4[2].second;
  encoder->eval();
  Tensor encoded = encoder->forward(x4, causal, padding);
  Tensor attention = std::get<1>(encoder->self_attn->forward(x4, x4, x4, padding, true, causal));
  Tensor per_head = std::get<1>(encoder->self_attn->forward(x4, x4 * 2, x4, Tensor(), true, Tensor(), false));
  serialize::save_tensors({{"encoded", encoded.detach()}, {"attention", attention.detach()},
                           {"per_head", per_head.detach()}},
                          d + "/cpp_outputs4.ember");
  manual_seed(0);
  nn::TransformerEncoderLayer seeded4(encoder_options);
  save(*seeded4, d + "/cpp_seeded4.ember");

  // A transposed convolution: seeded weights, and the output on them.
  manual_seed(0);
  nn::ConvTranspose2d up(nn::ConvTranspose2dOptions(4, 6, 3).stride(2).padding(1).output_padding(1).groups(2));
  const Tensor x5 = serialize::load_tensors(d + "/inputs5.ember")[0].second;
  serialize::save_tensors({{"weight", up->weight.detach()}, {"bias", up->bias.detach()}, {"out", up(x5).detach()}},
                          d + "/cpp_outputs5.ember");
  expect_inline(up->repr(),
                R"(ConvTranspose2d(4, 6, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), output_padding=(1, 1), groups=2))");

  // Attention with every option: separate key/value sizes, bias_kv, zero attention.
  manual_seed(0);
  nn::MultiheadAttention cross(
      nn::MultiheadAttentionOptions(8, 2).kdim(6).vdim(5).add_bias_kv(true).add_zero_attn(true).batch_first(true));
  const auto inputs6 = serialize::load_tensors(d + "/inputs6.ember");
  const Tensor q6 = inputs6[0].second, k6 = inputs6[1].second, v6 = inputs6[2].second, pad6 = inputs6[3].second;
  cross->eval();
  const auto [attended, attention6] = cross->forward(q6, k6, v6, pad6);
  save(*cross, d + "/cpp_seeded6.ember");
  serialize::save_tensors({{"out", attended.detach()}, {"weights", attention6.detach()}}, d + "/cpp_outputs6.ember");
  expect_inline(cross->repr(), R"(MultiheadAttention(
  (out_proj): NonDynamicallyQuantizableLinear(in_features=8, out_features=8, bias=True)
))");

  // The lr schedules, step by step.
  Tensor p = ember::zeros({1}).set_requires_grad(true);
  optim::SGD cosine_sgd({p}, optim::SGDOptions(0.1)), step_sgd({p}, optim::SGDOptions(0.1));
  optim::CosineAnnealingLR cosine(cosine_sgd, 4, 0.001);
  optim::StepLR step_lr(step_sgd, 2, 0.5);
  std::vector<double> lrs;
  for (int epoch = 0; epoch < 10; ++epoch) {
    cosine.step();
    step_lr.step();
    lrs.push_back(cosine.get_last_lr()[0]);
    lrs.push_back(step_lr.get_last_lr()[0]);
  }
  Tensor lr_tensor = ember::empty({static_cast<int64_t>(lrs.size())}, ScalarType::Double);
  for (size_t i = 0; i < lrs.size(); ++i) lr_tensor[static_cast<int64_t>(i)].fill_(lrs[i]);
  serialize::save_tensors({{"lrs", lr_tensor}}, d + "/cpp_lrs.ember");
}

TEST(Data, DataLoaderBatchesInOrderOrShuffled) {
  Tensor x = ember::arange(10, TensorOptions(ScalarType::Float)).view({10, 1});
  Tensor y = ember::arange(10);
  auto dataset = std::make_shared<data::TensorDataset>(x, y);
  for (int64_t workers : {0, 3}) {
    data::DataLoader loader(dataset, data::DataLoaderOptions(4).num_workers(workers));
    EXPECT_EQ(loader.size(), 3);
    std::vector<int64_t> seen, sizes;
    for (const data::Example& batch : loader) {
      sizes.push_back(batch.data.size(0));
      EXPECT_TRUE(batch.data.view({-1}).to(ScalarType::Long).equal(batch.target));
      for (int64_t i = 0; i < batch.target.size(0); ++i) seen.push_back(batch.target[i].item<int64_t>());
    }
    EXPECT_EQ(sizes, (std::vector<int64_t>{4, 4, 2})) << workers;
    EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})) << workers;

    data::DataLoader shuffled(dataset, data::DataLoaderOptions(3).shuffle(true).drop_last(true).num_workers(workers));
    EXPECT_EQ(shuffled.size(), 3);
    std::vector<int64_t> order;
    for (const auto& batch : shuffled) {
      EXPECT_EQ(batch.data.size(0), 3);
      for (int64_t i = 0; i < 3; ++i) order.push_back(batch.target[i].item<int64_t>());
    }
    std::vector<int64_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_TRUE(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());  // no repeats
    EXPECT_NE(order, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  }
  // Leaving an epoch early stops its workers.
  data::DataLoader loader(dataset, data::DataLoaderOptions(1).num_workers(2));
  for (const auto& batch : loader) {
    if (batch.target.item<int64_t>() == 2) break;
  }
}

TEST(Data, ErrorsReachTheCaller) {
  class Ragged : public data::Dataset {
   public:
    data::Example get(int64_t i) const override { return {ember::zeros({i + 1}), Tensor()}; }
    int64_t size() const override { return 4; }
  };
  for (int64_t workers : {0, 2}) {
    data::DataLoader loader(std::make_shared<Ragged>(), data::DataLoaderOptions(2).num_workers(workers));
    expect_error([&] {
      for (const auto& batch : loader) (void)batch;
    }, "examples of unequal shapes");
  }
  expect_error([&] { data::TensorDataset(ember::zeros({3, 2}), ember::zeros({4})); }, "Size mismatch");
  expect_error([&] { data::DataLoader(std::make_shared<data::TensorDataset>(ember::zeros({3})),
                                      data::DataLoaderOptions(0)); }, "batch_size should be a positive integer");
}

}  // namespace
