#pragma once
// A process group on Gloo (CPU tensors over TCP), as torch's
// ProcessGroupGloo: the ranks meet through a Store, Gloo connects every pair,
// and each collective runs on the group's one worker thread in the order it
// was issued (the order every rank must issue them in), so that calls can
// return at once (async_op=True) and run while Python goes on. Tensors are
// CPU and contiguous; the Python layer (ember.distributed) builds the list
// forms (all_gather into a list, scatter from one, ...) on these flat ones.

#include <aten/core/Tensor.h>
#include <distributed/Store.h>
#include <distributed/Work.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

namespace gloo {
class Context;
}

namespace ember::distributed {

// Values as torch.distributed.ReduceOp's.
enum class ReduceOp : int { SUM = 0, AVG = 1, PRODUCT = 2, MIN = 3, MAX = 4, BAND = 5, BOR = 6, BXOR = 7 };
const char* reduce_op_name(ReduceOp op);

class ProcessGroupGloo {
 public:
  // Joins `size` processes through `store` (blocks until all have joined or
  // `timeout` passes). `hostname`: the address peers reach this process at
  // (empty: this machine's hostname).
  ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size, std::chrono::milliseconds timeout,
                   const std::string& hostname);
  ~ProcessGroupGloo();
  ProcessGroupGloo(const ProcessGroupGloo&) = delete;
  ProcessGroupGloo& operator=(const ProcessGroupGloo&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  std::chrono::milliseconds timeout() const { return timeout_; }

  std::shared_ptr<Work> allreduce(const Tensor& tensor, ReduceOp op);
  std::shared_ptr<Work> reduce(const Tensor& tensor, int root, ReduceOp op);
  std::shared_ptr<Work> broadcast(const Tensor& tensor, int root);
  // output: size * input.numel() elements, rank r's input at [r * n, (r + 1) * n).
  std::shared_ptr<Work> allgather(const Tensor& output, const Tensor& input);
  // output (only read at the root): as allgather's.
  std::shared_ptr<Work> gather(const Tensor& output, const Tensor& input, int root);
  // input (only read at the root): size * output.numel() elements.
  std::shared_ptr<Work> scatter(const Tensor& output, const Tensor& input, int root);
  // Chunk r of input goes to rank r; chunk r of output comes from rank r. The
  // counts are elements per rank (empty: equal chunks).
  std::shared_ptr<Work> alltoall(const Tensor& output, const Tensor& input, const std::vector<int64_t>& output_counts,
                                 const std::vector<int64_t>& input_counts);
  std::shared_ptr<Work> barrier();
  std::shared_ptr<Work> send(const Tensor& tensor, int dst, int tag);
  // src -1: from whichever rank sends first (Work::source_rank() tells which).
  std::shared_ptr<Work> recv(const Tensor& tensor, int src, int tag);

 private:
  // Queues body to run on the worker thread with the next collective tag.
  std::shared_ptr<Work> enqueue(const std::string& description, std::function<void(uint32_t tag)> body);
  void check_tensor(const Tensor& tensor, const char* op, const char* what) const;
  void check_rank(int peer, const char* op, const char* what) const;
  void check_reduce_op(const Tensor& tensor, ReduceOp op, const char* name) const;
  std::string describe(const char* op) const;
  void worker_loop();

  int rank_, size_;
  std::chrono::milliseconds timeout_;
  std::shared_ptr<gloo::Context> context_;
  uint32_t next_tag_ = 0;
  std::mutex queue_mutex_;
  std::condition_variable queue_ready_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace ember::distributed
