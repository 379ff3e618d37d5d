#include <distributed/ProcessGroupGloo.h>

#include <aten/Functions.h>
#include <c10/util/TypeCast.h>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>

#include <netdb.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <type_traits>

namespace ember::distributed {

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM: return "SUM";
    case ReduceOp::AVG: return "AVG";
    case ReduceOp::PRODUCT: return "PRODUCT";
    case ReduceOp::MIN: return "MIN";
    case ReduceOp::MAX: return "MAX";
    case ReduceOp::BAND: return "BAND";
    case ReduceOp::BOR: return "BOR";
    case ReduceOp::BXOR: return "BXOR";
  }
  return "?";
}

namespace {

// Gloo's view of an Ember store, for its rendezvous.
class GlooStore : public gloo::rendezvous::Store {
 public:
  GlooStore(std::shared_ptr<distributed::Store> store, std::chrono::milliseconds timeout)
      : store_(std::move(store)), timeout_(timeout) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    store_->set(key, std::vector<uint8_t>(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    const std::vector<uint8_t> value = store_->get(key);
    return std::vector<char>(value.begin(), value.end());
  }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    store_->wait(keys, timeout);
  }

 private:
  std::shared_ptr<distributed::Store> store_;
  std::chrono::milliseconds timeout_;
};

// The address peers reach this process at: `hostname` if given, else this
// machine's name where it resolves, else the loopback address (one machine).
gloo::transport::tcp::attr device_attr(const std::string& hostname) {
  gloo::transport::tcp::attr attr;
  if (const char* iface = std::getenv("GLOO_SOCKET_IFNAME"); iface && *iface) {
    attr.iface = iface;
    return attr;
  }
  if (!hostname.empty()) {
    attr.hostname = hostname;
    return attr;
  }
  char name[256] = {0};
  addrinfo* found = nullptr;
  if (gethostname(name, sizeof(name) - 1) == 0 && getaddrinfo(name, nullptr, nullptr, &found) == 0) {
    freeaddrinfo(found);
    attr.hostname = name;
  } else {
    attr.hostname = "127.0.0.1";
  }
  return attr;
}

template <typename T>
constexpr bool is_reduced_float = std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>;

template <typename T>
bool supports(ReduceOp op) {
  const bool bitwise = op == ReduceOp::BAND || op == ReduceOp::BOR || op == ReduceOp::BXOR;
  if constexpr (c10::is_complex_v<T>) {
    return op == ReduceOp::SUM || op == ReduceOp::AVG || op == ReduceOp::PRODUCT;
  } else if constexpr (std::is_integral_v<T>) {
    return op != ReduceOp::AVG || std::is_same_v<T, bool>;
  } else {
    return !bitwise;
  }
}

template <typename T, ReduceOp Op>
T combine(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    if constexpr (Op == ReduceOp::PRODUCT || Op == ReduceOp::MIN || Op == ReduceOp::BAND) return a && b;
    else if constexpr (Op == ReduceOp::BXOR) return a != b;
    else return a || b;
  } else if constexpr (is_reduced_float<T>) {
    return c10::convert<T>(combine<float, Op>(static_cast<float>(a), static_cast<float>(b)));
  } else if constexpr (c10::is_complex_v<T>) {
    if constexpr (Op == ReduceOp::PRODUCT) return a * b;
    else return a + b;
  } else if constexpr (Op == ReduceOp::PRODUCT) {
    return a * b;
  } else if constexpr (Op == ReduceOp::MIN) {
    return std::min(a, b);
  } else if constexpr (Op == ReduceOp::MAX) {
    return std::max(a, b);
  } else if constexpr (std::is_integral_v<T> && Op == ReduceOp::BAND) {
    return a & b;
  } else if constexpr (std::is_integral_v<T> && Op == ReduceOp::BOR) {
    return a | b;
  } else if constexpr (std::is_integral_v<T> && Op == ReduceOp::BXOR) {
    return a ^ b;
  } else {
    return static_cast<T>(a + b);
  }
}

// One loop per (type, op), with the op fixed at compile time so that the
// compiler vectorizes it: Gloo calls this on every chunk it receives.
template <typename T, ReduceOp Op>
void reduce_loop(void* out, const void* a, const void* b, size_t n) {
  T* o = static_cast<T*>(out);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) o[i] = combine<T, Op>(x[i], y[i]);
}

template <typename T>
std::function<void(void*, const void*, const void*, size_t)> reduction(ReduceOp op) {
  switch (op) {
    case ReduceOp::PRODUCT: return &reduce_loop<T, ReduceOp::PRODUCT>;
    case ReduceOp::MIN: return &reduce_loop<T, ReduceOp::MIN>;
    case ReduceOp::MAX: return &reduce_loop<T, ReduceOp::MAX>;
    case ReduceOp::BAND: return &reduce_loop<T, ReduceOp::BAND>;
    case ReduceOp::BOR: return &reduce_loop<T, ReduceOp::BOR>;
    case ReduceOp::BXOR: return &reduce_loop<T, ReduceOp::BXOR>;
    default: return &reduce_loop<T, ReduceOp::SUM>;  // SUM, and AVG (divided afterwards)
  }
}

// Runs f with the C++ type of the tensor's dtype.
template <typename F>
void with_type(const Tensor& t, F&& f) {
  c10::visit_scalar_type(t.scalar_type(), std::forward<F>(f));
}

}  // namespace

ProcessGroupGloo::ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size, std::chrono::milliseconds timeout,
                                   const std::string& hostname)
    : rank_(rank), size_(size), timeout_(timeout) {
  EMBER_CHECK_OF(c10::ValueError, size >= 1, "ProcessGroupGloo: world_size must be at least 1, got {}", size);
  EMBER_CHECK_OF(c10::ValueError, rank >= 0 && rank < size, "ProcessGroupGloo: rank {} is not in [0, {})", rank, size);
  try {
    auto device = gloo::transport::tcp::CreateDevice(device_attr(hostname));
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    context->setTimeout(timeout);
    GlooStore gloo_store(std::move(store), timeout);
    context->connectFullMesh(gloo_store, device);
    context_ = std::move(context);
  } catch (const c10::Error&) {
    throw;
  } catch (const std::exception& e) {
    EMBER_CHECK_OF(DistBackendError, false, "{}: could not connect to the other ranks: {}",
                   describe("init_process_group"), e.what());
  }
  worker_ = std::thread([this] { worker_loop(); });
}

ProcessGroupGloo::~ProcessGroupGloo() {
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    stopping_ = true;
  }
  queue_ready_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void ProcessGroupGloo::worker_loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(queue_mutex_);
      queue_ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, with nothing left to run
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job();
  }
}

std::string ProcessGroupGloo::describe(const char* op) const {
  return fmt::format("ember.distributed.{} (rank {} of {})", op, rank_, size_);
}

std::shared_ptr<Work> ProcessGroupGloo::enqueue(const std::string& op, std::function<void(uint32_t tag)> body) {
  auto work = std::make_shared<Work>(describe(op.c_str()));
  std::lock_guard<std::mutex> lock(queue_mutex_);
  EMBER_CHECK_OF(DistBackendError, !stopping_, "{}: the process group was destroyed", work->description());
  const uint32_t tag = next_tag_++;
  queue_.push_back([work, body = std::move(body), tag] {
    work->run([&] {
      try {
        body(tag);
      } catch (const c10::Error&) {
        throw;
      } catch (const std::exception& e) {
        EMBER_CHECK_OF(DistBackendError, false, "{} failed: {}", work->description(), e.what());
      }
    });
  });
  queue_ready_.notify_one();
  return work;
}

void ProcessGroupGloo::check_tensor(const Tensor& tensor, const char* op, const char* what) const {
  EMBER_CHECK_OF(c10::ValueError, tensor.defined(), "{}: {} is undefined", describe(op), what);
  EMBER_CHECK_OF(c10::ValueError, tensor.is_cpu(), "{}: Gloo takes CPU tensors, but {} is on {}", describe(op), what,
                 tensor.device().str());
  EMBER_CHECK_OF(c10::ValueError, tensor.is_contiguous(), "{}: Tensors must be contiguous ({} is not)", describe(op),
                 what);
}

void ProcessGroupGloo::check_reduce_op(const Tensor& tensor, ReduceOp op, const char* name) const {
  bool supported = false;
  with_type(tensor, [&](auto tag) { supported = supports<typename decltype(tag)::type>(op); });
  EMBER_CHECK_OF(c10::ValueError, supported, "{}: ReduceOp.{} is not defined for {} tensors", describe(name),
                 reduce_op_name(op), c10::python_name(tensor.dtype()));
}

void ProcessGroupGloo::check_rank(int peer, const char* op, const char* what) const {
  EMBER_CHECK_OF(c10::ValueError, peer >= 0 && peer < size_, "{}: {} {} is not a rank of the group (0 to {})",
                 describe(op), what, peer, size_ - 1);
}

std::shared_ptr<Work> ProcessGroupGloo::allreduce(const Tensor& tensor, ReduceOp op) {
  check_tensor(tensor, "all_reduce", "the tensor");
  check_reduce_op(tensor, op, "all_reduce");
  return enqueue("all_reduce", [this, tensor, op](uint32_t tag) {
    with_type(tensor, [&](auto type_tag) {
      using T = typename decltype(type_tag)::type;
      gloo::AllreduceOptions opts(context_);
      opts.setOutput<T>(tensor.data_ptr<T>(), tensor.numel());
      opts.setReduceFunction(reduction<T>(op));
      opts.setTag(tag);
      opts.setTimeout(timeout_);
      gloo::allreduce(opts);
    });
    if (op == ReduceOp::AVG) tensor.div_(size_);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::reduce(const Tensor& tensor, int root, ReduceOp op) {
  check_tensor(tensor, "reduce", "the tensor");
  check_rank(root, "reduce", "dst");
  check_reduce_op(tensor, op, "reduce");
  return enqueue("reduce", [this, tensor, root, op](uint32_t tag) {
    with_type(tensor, [&](auto type_tag) {
      using T = typename decltype(type_tag)::type;
      gloo::ReduceOptions opts(context_);
      opts.setOutput<T>(tensor.data_ptr<T>(), tensor.numel());
      opts.setRoot(root);
      opts.setReduceFunction(reduction<T>(op));
      opts.setTag(tag);
      opts.setTimeout(timeout_);
      gloo::reduce(opts);
    });
    if (op == ReduceOp::AVG && rank_ == root) tensor.div_(size_);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::broadcast(const Tensor& tensor, int root) {
  check_tensor(tensor, "broadcast", "the tensor");
  check_rank(root, "broadcast", "src");
  return enqueue("broadcast", [this, tensor, root](uint32_t tag) {
    gloo::BroadcastOptions opts(context_);
    auto* bytes = static_cast<uint8_t*>(tensor.data_ptr());
    if (rank_ == root) opts.setInput<uint8_t>(bytes, tensor.nbytes());
    opts.setOutput<uint8_t>(bytes, tensor.nbytes());
    opts.setRoot(root);
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    gloo::broadcast(opts);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::allgather(const Tensor& output, const Tensor& input) {
  check_tensor(input, "all_gather", "the input");
  check_tensor(output, "all_gather", "the output");
  EMBER_CHECK_OF(c10::ValueError, output.scalar_type() == input.scalar_type() &&
                                      output.numel() == input.numel() * size_,
                 "{}: the output must hold world_size ({}) times the input's {} elements of its dtype",
                 describe("all_gather"), size_, input.numel());
  return enqueue("all_gather", [this, output, input](uint32_t tag) {
    gloo::AllgatherOptions opts(context_);
    opts.setInput<uint8_t>(static_cast<uint8_t*>(input.data_ptr()), input.nbytes());
    opts.setOutput<uint8_t>(static_cast<uint8_t*>(output.data_ptr()), output.nbytes());
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    gloo::allgather(opts);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::gather(const Tensor& output, const Tensor& input, int root) {
  check_tensor(input, "gather", "the input");
  check_rank(root, "gather", "dst");
  if (rank_ == root) {
    check_tensor(output, "gather", "the output");
    EMBER_CHECK_OF(c10::ValueError, output.scalar_type() == input.scalar_type() &&
                                        output.numel() == input.numel() * size_,
                   "{}: the gather list must hold world_size ({}) tensors like the input", describe("gather"), size_);
  }
  return enqueue("gather", [this, output, input, root](uint32_t tag) {
    gloo::GatherOptions opts(context_);
    opts.setInput<uint8_t>(static_cast<uint8_t*>(input.data_ptr()), input.nbytes());
    if (rank_ == root) opts.setOutput<uint8_t>(static_cast<uint8_t*>(output.data_ptr()), output.nbytes());
    opts.setRoot(root);
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    gloo::gather(opts);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::scatter(const Tensor& output, const Tensor& input, int root) {
  check_tensor(output, "scatter", "the output");
  check_rank(root, "scatter", "src");
  if (rank_ == root) {
    check_tensor(input, "scatter", "the input");
    EMBER_CHECK_OF(c10::ValueError, output.scalar_type() == input.scalar_type() &&
                                        input.numel() == output.numel() * size_,
                   "{}: the scatter list must hold world_size ({}) tensors like the output", describe("scatter"), size_);
  }
  return enqueue("scatter", [this, output, input, root](uint32_t tag) {
    gloo::ScatterOptions opts(context_);
    if (rank_ == root) {
      std::vector<uint8_t*> chunks;
      for (int r = 0; r < size_; ++r) chunks.push_back(static_cast<uint8_t*>(input.data_ptr()) + r * output.nbytes());
      opts.setInputs<uint8_t>(chunks, output.nbytes());
    }
    opts.setOutput<uint8_t>(static_cast<uint8_t*>(output.data_ptr()), output.nbytes());
    opts.setRoot(root);
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    gloo::scatter(opts);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::alltoall(const Tensor& output, const Tensor& input,
                                                 const std::vector<int64_t>& output_counts,
                                                 const std::vector<int64_t>& input_counts) {
  check_tensor(input, "all_to_all", "the input");
  check_tensor(output, "all_to_all", "the output");
  EMBER_CHECK_OF(c10::ValueError, output.scalar_type() == input.scalar_type(),
                 "{}: input and output must have one dtype", describe("all_to_all"));
  const bool even = output_counts.empty() && input_counts.empty();
  if (even) {
    EMBER_CHECK_OF(c10::ValueError, output.numel() == input.numel() && input.numel() % size_ == 0,
                   "{}: input and output must have one size, divisible by world_size ({})", describe("all_to_all"),
                   size_);
  } else {
    for (const auto& [counts, tensor, what] : {std::tuple{&output_counts, &output, "output"},
                                               std::tuple{&input_counts, &input, "input"}}) {
      int64_t total = 0;
      for (int64_t c : *counts) {
        EMBER_CHECK_OF(c10::ValueError, c >= 0, "{}: negative {} split {}", describe("all_to_all"), what, c);
        total += c;
      }
      EMBER_CHECK_OF(c10::ValueError, static_cast<int>(counts->size()) == size_ && total == tensor->numel(),
                     "{}: the {} splits must be world_size ({}) counts adding up to its {} elements",
                     describe("all_to_all"), what, size_, tensor->numel());
    }
  }
  return enqueue("all_to_all", [this, output, input, output_counts, input_counts, even](uint32_t tag) {
    auto* in = static_cast<uint8_t*>(input.data_ptr());
    auto* out = static_cast<uint8_t*>(output.data_ptr());
    if (even) {
      gloo::AlltoallOptions opts(context_);
      opts.setInput<uint8_t>(in, input.nbytes());
      opts.setOutput<uint8_t>(out, output.nbytes());
      opts.setTag(tag);
      opts.setTimeout(timeout_);
      gloo::alltoall(opts);
      return;
    }
    const auto bytes = [&](const std::vector<int64_t>& counts) {
      std::vector<int64_t> result;
      for (int64_t c : counts) result.push_back(c * static_cast<int64_t>(input.element_size()));
      return result;
    };
    gloo::AlltoallvOptions opts(context_);
    opts.setInput<uint8_t>(in, bytes(input_counts));
    opts.setOutput<uint8_t>(out, bytes(output_counts));
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    gloo::alltoallv(opts);
  });
}

std::shared_ptr<Work> ProcessGroupGloo::barrier() {
  return enqueue("barrier", [this](uint32_t tag) {
    gloo::BarrierOptions opts(context_);
    opts.setTag(tag);
    opts.setTimeout(timeout_);
    gloo::barrier(opts);
  });
}

namespace {

// A transfer posted now and finished by wait(): Gloo moves the bytes in the
// background; waiting tells whether the peer took part in time.
std::shared_ptr<Work> transfer(std::string description, std::shared_ptr<gloo::transport::UnboundBuffer> buffer,
                               Tensor tensor, bool sending, std::chrono::milliseconds default_timeout) {
  auto completion = [buffer, tensor, sending, default_timeout, description](std::chrono::milliseconds timeout,
                                                                           Work& work) {
    const auto limit = timeout.count() > 0 ? timeout : default_timeout;
    bool done = false;
    int peer = -1;
    try {
      done = sending ? buffer->waitSend(&peer, limit) : buffer->waitRecv(&peer, limit);
    } catch (const std::exception& e) {
      EMBER_CHECK_OF(DistBackendError, false, "{} failed: {}", description, e.what());
    }
    EMBER_CHECK_OF(DistBackendError, done, "{} was aborted", description);
    if (!sending) work.set_source_rank(peer);
  };
  return std::make_shared<Work>(std::move(description), std::move(completion));
}

}  // namespace

std::shared_ptr<Work> ProcessGroupGloo::send(const Tensor& tensor, int dst, int tag) {
  check_tensor(tensor, "send", "the tensor");
  check_rank(dst, "send", "dst");
  EMBER_CHECK_OF(c10::ValueError, dst != rank_, "{}: a rank cannot send to itself", describe("send"));
  std::shared_ptr<gloo::transport::UnboundBuffer> buffer =
      context_->createUnboundBuffer(tensor.data_ptr(), tensor.nbytes());
  try {
    buffer->send(dst, static_cast<uint64_t>(tag));
  } catch (const std::exception& e) {
    EMBER_CHECK_OF(DistBackendError, false, "{} failed: {}", describe("send"), e.what());
  }
  return transfer(describe("send"), buffer, tensor, true, timeout_);
}

std::shared_ptr<Work> ProcessGroupGloo::recv(const Tensor& tensor, int src, int tag) {
  check_tensor(tensor, "recv", "the tensor");
  if (src != -1) check_rank(src, "recv", "src");
  EMBER_CHECK_OF(c10::ValueError, src != rank_, "{}: a rank cannot receive from itself", describe("recv"));
  std::shared_ptr<gloo::transport::UnboundBuffer> buffer =
      context_->createUnboundBuffer(tensor.data_ptr(), tensor.nbytes());
  try {
    if (src == -1) {
      std::vector<int> peers;
      for (int r = 0; r < size_; ++r) {
        if (r != rank_) peers.push_back(r);
      }
      buffer->recv(peers, static_cast<uint64_t>(tag));
    } else {
      buffer->recv(src, static_cast<uint64_t>(tag));
    }
  } catch (const std::exception& e) {
    EMBER_CHECK_OF(DistBackendError, false, "{} failed: {}", describe("recv"), e.what());
  }
  return transfer(describe("recv"), buffer, tensor, false, timeout_);
}

}  // namespace ember::distributed
