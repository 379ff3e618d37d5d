// ProcessGroupGloo with its ranks as threads of this process, meeting through
// an in-memory store: the reductions of every op, the byte-moving
// collectives, transfers from any source, argument errors and Work's
// waiting. (test/python/test_distributed.py runs them across processes.)
#include <aten/ember.h>
#include <distributed/ProcessGroupGloo.h>
#include <gtest/gtest.h>

#include "error_of.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace ember {
namespace {

using distributed::ProcessGroupGloo;
using distributed::ReduceOp;
using distributed::Work;

class MemoryStore : public distributed::Store {
 public:
  void set(const std::string& key, const std::vector<uint8_t>& value) override {
    std::lock_guard<std::mutex> lock(mutex_);
    values_[key] = value;
    changed_.notify_all();
  }
  std::vector<uint8_t> get(const std::string& key) override {
    wait({key}, std::chrono::seconds(30));
    std::lock_guard<std::mutex> lock(mutex_);
    return values_.at(key);
  }
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override {
    std::unique_lock<std::mutex> lock(mutex_);
    const bool found = changed_.wait_for(lock, timeout, [&] {
      for (const auto& key : keys) {
        if (!values_.count(key)) return false;
      }
      return true;
    });
    EMBER_CHECK(found, "MemoryStore: timed out");
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::vector<uint8_t>> values_;
};

// Runs body(group, rank) on `size` ranks at once; rethrows the first failure.
template <typename Body>
void on_ranks(int size, Body body) {
  auto store = std::make_shared<MemoryStore>();
  std::vector<std::exception_ptr> errors(size);
  std::vector<std::thread> ranks;
  for (int rank = 0; rank < size; ++rank) {
    ranks.emplace_back([&, rank] {
      try {
        ProcessGroupGloo group(store, rank, size, std::chrono::seconds(20), "127.0.0.1");
        body(group, rank);
      } catch (...) {
        errors[rank] = std::current_exception();
      }
    });
  }
  for (auto& t : ranks) t.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

std::vector<double> values(const Tensor& t) {
  const Tensor d = t.to(ScalarType::Double).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

TEST(ProcessGroupGloo, AllReduceOfEveryOp) {
  on_ranks(3, [](ProcessGroupGloo& group, int rank) {
    // rank r holds r + 1 (floats) and (r + 1) * 3 (integers: 3, 6, 9)
    const auto reduce = [&](ScalarType dtype, double value, ReduceOp op) {
      Tensor t = full({5}, value, TensorOptions().dtype(dtype));
      group.allreduce(t, op)->wait();
      return values(t)[0];
    };
    for (ScalarType dtype : {ScalarType::Float, ScalarType::Double, ScalarType::Half, ScalarType::BFloat16}) {
      EXPECT_EQ(reduce(dtype, rank + 1, ReduceOp::SUM), 6);
      EXPECT_EQ(reduce(dtype, rank + 1, ReduceOp::AVG), 2);
      EXPECT_EQ(reduce(dtype, rank + 1, ReduceOp::PRODUCT), 6);
      EXPECT_EQ(reduce(dtype, rank + 1, ReduceOp::MIN), 1);
      EXPECT_EQ(reduce(dtype, rank + 1, ReduceOp::MAX), 3);
    }
    for (ScalarType dtype : {ScalarType::Long, ScalarType::Int, ScalarType::Short, ScalarType::Byte}) {
      EXPECT_EQ(reduce(dtype, (rank + 1) * 3, ReduceOp::SUM), 18);
      EXPECT_EQ(reduce(dtype, (rank + 1) * 3, ReduceOp::BAND), 3 & 6 & 9);
      EXPECT_EQ(reduce(dtype, (rank + 1) * 3, ReduceOp::BOR), 3 | 6 | 9);
      EXPECT_EQ(reduce(dtype, (rank + 1) * 3, ReduceOp::BXOR), 3 ^ 6 ^ 9);
    }
    EXPECT_EQ(reduce(ScalarType::Bool, rank == 1, ReduceOp::MAX), 1);
    EXPECT_EQ(reduce(ScalarType::Bool, rank == 1, ReduceOp::MIN), 0);
  });
}

TEST(ProcessGroupGloo, BroadcastGatherScatterAndUnevenAllToAll) {
  on_ranks(2, [](ProcessGroupGloo& group, int rank) {
    Tensor t = full({3}, rank == 1 ? 7.0 : 0.0);
    group.broadcast(t, 1)->wait();
    EXPECT_EQ(values(t), std::vector<double>(3, 7));
    Tensor gathered = empty({4});
    group.allgather(gathered, full({2}, static_cast<double>(rank)))->wait();
    EXPECT_EQ(values(gathered), (std::vector<double>{0, 0, 1, 1}));
    Tensor piece = empty({2});
    group.scatter(piece, rank == 0 ? arange(4.0) : Tensor(), 0)->wait();
    EXPECT_EQ(values(piece), rank == 0 ? (std::vector<double>{0, 1}) : (std::vector<double>{2, 3}));
    // rank 0 sends 1 element to itself and 2 to rank 1; rank 1 sends 3 to rank 0 and 1 to itself
    Tensor in = rank == 0 ? full({3}, 10.0) : full({4}, 20.0);
    Tensor out = empty({rank == 0 ? 4 : 3});
    const std::vector<int64_t> in_counts = rank == 0 ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{3, 1};
    const std::vector<int64_t> out_counts = rank == 0 ? std::vector<int64_t>{1, 3} : std::vector<int64_t>{2, 1};
    group.alltoall(out, in, out_counts, in_counts)->wait();
    EXPECT_EQ(values(out), rank == 0 ? (std::vector<double>{10, 20, 20, 20}) : (std::vector<double>{10, 10, 20}));
  });
}

TEST(ProcessGroupGloo, ReceiveFromAnySourceTellsTheSender) {
  on_ranks(3, [](ProcessGroupGloo& group, int rank) {
    if (rank == 2) {
      for (int i = 0; i < 2; ++i) {
        Tensor box = empty({1});
        auto work = group.recv(box, -1, 5);
        work->wait();
        EXPECT_EQ(values(box)[0], 100 + work->source_rank());
      }
    } else {
      group.send(full({1}, 100.0 + rank), 2, 5)->wait();
    }
    group.barrier()->wait();
  });
}

TEST(ProcessGroupGloo, BadArgumentsNameTheCollective) {
  on_ranks(1, [](ProcessGroupGloo& group, int) {
    EXPECT_EQ(testing::error_of([&] { group.allreduce(ones({2, 3}).t(), ReduceOp::SUM); }),
              "ember.distributed.all_reduce (rank 0 of 1): Tensors must be contiguous (the tensor is not)");
    EXPECT_EQ(testing::error_of([&] { group.allreduce(ones({2}), ReduceOp::BXOR); }),
              "ember.distributed.all_reduce (rank 0 of 1): ReduceOp.BXOR is not defined for float32 tensors");
    EXPECT_EQ(testing::error_of([&] { group.broadcast(ones({2}), 4); }),
              "ember.distributed.broadcast (rank 0 of 1): src 4 is not a rank of the group (0 to 0)");
    EXPECT_EQ(testing::error_of([&] { group.allgather(empty({3}), ones({2})); }),
              "ember.distributed.all_gather (rank 0 of 1): the output must hold world_size (1) times the input's 2 "
              "elements of its dtype");
  });
}

TEST(Work, WaitRethrowsTheErrorAndTimesOut) {
  Work failed("test work");
  failed.run([] { EMBER_CHECK(false, "it broke"); });
  EXPECT_TRUE(failed.is_completed());
  EXPECT_FALSE(failed.is_success());
  EXPECT_EQ(testing::error_of([&] { failed.wait(); }), "it broke");
  Work never("stuck work");
  EXPECT_EQ(testing::error_of([&] { never.wait(std::chrono::milliseconds(20)); }),
            "stuck work: timed out after 20 ms waiting for the work to complete");
}

}  // namespace
}  // namespace ember
