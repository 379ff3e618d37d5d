#include <aten/Parallel.h>
#include <c10/util/Exception.h>

#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <vector>

namespace ember {
namespace {

TEST(Parallel, CoversTheRangeExactlyOnce) {
  for (int threads : {1, 2, 4}) {
    set_num_threads(threads);
    std::vector<std::atomic<int>> hits(10007);
    parallel_for(0, 10007, 100, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) hits[i]++;
    });
    for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  }
}

TEST(Parallel, NestedCallsRunSeriallyAndErrorsPropagate) {
  set_num_threads(4);
  std::atomic<int64_t> total{0};
  parallel_for(0, 64, 1, [&](int64_t b, int64_t e) {
    EXPECT_TRUE(in_parallel_region());
    for (int64_t i = b; i < e; ++i) {
      parallel_for(0, 10, 1, [&](int64_t b2, int64_t e2) { total += e2 - b2; });
    }
  });
  EXPECT_EQ(total.load(), 640);
  EXPECT_FALSE(in_parallel_region());
  EXPECT_THROW(parallel_for(0, 1000, 1,
                            [](int64_t b, int64_t) {
                              if (b == 0) throw c10::ValueError("chunk failed");
                            }),
               c10::ValueError);
  // The pool is still usable after an error.
  std::atomic<int64_t> count{0};
  parallel_for(0, 1000, 10, [&](int64_t b, int64_t e) { count += e - b; });
  EXPECT_EQ(count.load(), 1000);
  EXPECT_THROW(set_num_threads(0), c10::ValueError);
}

}  // namespace
}  // namespace ember
