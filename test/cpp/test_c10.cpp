// c10 building blocks: reference counting, reduced floats, dtypes, devices,
// dispatch key sets, scalars.

#include <c10/core/Allocator.h>
#include <c10/core/Device.h>
#include <c10/core/DispatchKey.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/core/TensorImpl.h>
#include <c10/util/SmallVector.h>
#include <c10/util/TypeCast.h>
#include <c10/util/intrusive_ptr.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <thread>

#include "expect/expect_inline.h"

using ember::testing::expect_inline;

namespace c10 {
namespace {

struct Counted : intrusive_ptr_target {
  explicit Counted(int* alive) : alive(alive) { ++*alive; }
  ~Counted() override { --*alive; }
  void release_resources() override { released = true; }
  int* alive;
  bool released = false;
};

TEST(IntrusivePtr, StrongCountsShareOneObject) {
  int alive = 0;
  {
    auto a = make_intrusive<Counted>(&alive);
    EXPECT_EQ(a.use_count(), 1u);
    EXPECT_EQ(a.weak_use_count(), 1u);  // the strong side holds one weak count
    auto b = a;
    EXPECT_EQ(a.use_count(), 2u);
    // A raw pointer becomes an owner again, because the count is intrusive.
    intrusive_ptr<Counted> c(b.get());
    EXPECT_EQ(a.use_count(), 3u);
    EXPECT_EQ(alive, 1);
  }
  EXPECT_EQ(alive, 0);
}

TEST(IntrusivePtr, WeakOutlivesStrongAndLockFails) {
  int alive = 0;
  weak_intrusive_ptr<Counted> weak;
  Counted* raw = nullptr;
  {
    auto strong = make_intrusive<Counted>(&alive);
    raw = strong.get();
    weak = weak_intrusive_ptr<Counted>(strong);
    EXPECT_EQ(strong.weak_use_count(), 2u);
    auto locked = weak.lock();
    EXPECT_EQ(locked.get(), raw);
    EXPECT_EQ(strong.use_count(), 2u);
  }
  // Resources released with the last strong ref; memory kept for the weak one.
  EXPECT_TRUE(raw->released);
  EXPECT_EQ(alive, 1);
  EXPECT_TRUE(weak.expired());
  EXPECT_FALSE(weak.lock());
  weak.reset();
  EXPECT_EQ(alive, 0);
}

TEST(IntrusivePtr, ReleaseAndReclaim) {
  int alive = 0;
  auto p = make_intrusive<Counted>(&alive);
  Counted* raw = p.release();
  EXPECT_FALSE(p);
  auto back = intrusive_ptr<Counted>::reclaim(raw);
  EXPECT_EQ(back.use_count(), 1u);
  back.reset();
  EXPECT_EQ(alive, 0);
}

TEST(Half, EveryBitPatternRoundTripsThroughFloat) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const Half h(static_cast<uint16_t>(bits), Half::from_bits());
    const float f = h;
    const Half back(f);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(static_cast<float>(back)));
    } else {
      EXPECT_EQ(back.x, bits) << "bits " << bits;
    }
  }
}

TEST(Half, RoundsToNearestEven) {
  EXPECT_EQ(Half(1.0f).x, 0x3c00);
  EXPECT_EQ(Half(65504.0f).x, 0x7bff);                  // largest finite
  EXPECT_EQ(Half(65520.0f).x, 0x7c00);                  // halfway to 2^16 rounds up to inf
  EXPECT_EQ(Half(65519.0f).x, 0x7bff);
  EXPECT_EQ(Half(std::ldexp(1.0f, -24)).x, 0x0001);     // smallest subnormal
  EXPECT_EQ(Half(std::ldexp(1.0f, -25)).x, 0x0000);     // exactly half of it: ties to even (0)
  EXPECT_EQ(Half(std::ldexp(1.5f, -24)).x, 0x0002);     // 1.5 ulp: ties to even (2)
  EXPECT_EQ(Half(1.0f + std::ldexp(1.0f, -11)).x, 0x3c00);  // tie between 1 and next: even
  EXPECT_EQ(Half(-0.0f).x, 0x8000);
  EXPECT_EQ(Half(-std::numeric_limits<float>::infinity()).x, 0xfc00);
}

TEST(BFloat16, RoundsToNearestEvenAndKeepsNaN) {
  EXPECT_EQ(BFloat16(1.0f).x, 0x3f80);
  EXPECT_EQ(static_cast<float>(BFloat16(3.140625f)), 3.140625f);
  // 1 + 2^-8 is exactly between 1 and 1 + 2^-7: ties to even keeps 1.
  EXPECT_EQ(BFloat16(1.0f + std::ldexp(1.0f, -8)).x, 0x3f80);
  EXPECT_EQ(BFloat16(1.0f + 3 * std::ldexp(1.0f, -8)).x, 0x3f82);
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(std::nanf("")))));
}

TEST(ScalarType, PromotionMatchesPyTorch) {
  using S = ScalarType;
  EXPECT_EQ(promoteTypes(S::Byte, S::Char), S::Short);
  EXPECT_EQ(promoteTypes(S::Byte, S::Long), S::Long);
  EXPECT_EQ(promoteTypes(S::Bool, S::Byte), S::Byte);
  EXPECT_EQ(promoteTypes(S::Int, S::Half), S::Half);
  EXPECT_EQ(promoteTypes(S::Half, S::BFloat16), S::Float);
  EXPECT_EQ(promoteTypes(S::Float, S::Double), S::Double);
  EXPECT_EQ(promoteTypes(S::ComplexFloat, S::Double), S::ComplexDouble);
  EXPECT_EQ(promoteTypes(S::ComplexFloat, S::Long), S::ComplexFloat);
  EXPECT_EQ(promoteTypes(S::Half, S::ComplexFloat), S::ComplexFloat);
  for (int i = 0; i < kNumScalarTypes; ++i) {
    for (int j = 0; j < kNumScalarTypes; ++j) {
      const auto a = static_cast<S>(i), b = static_cast<S>(j);
      EXPECT_EQ(promoteTypes(a, b), promoteTypes(b, a)) << toString(a) << " " << toString(b);
    }
  }
}

TEST(ScalarType, TableAndTypeListAgree) {
  EXPECT_EQ(cpp_to_scalar_type<float>, ScalarType::Float);
  EXPECT_EQ(cpp_to_scalar_type<complex<double>>, ScalarType::ComplexDouble);
  for (int i = 0; i < kNumScalarTypes; ++i) {
    const auto t = static_cast<ScalarType>(i);
    const size_t size = visit_scalar_type(t, [](auto tag) { return sizeof(typename decltype(tag)::type); });
    EXPECT_EQ(size, elementSize(t)) << toString(t);
  }
}

TEST(TypeCast, FollowsTensorToSemantics) {
  EXPECT_EQ((convert<float>(complex<double>(2.5, -1))), 2.5f);
  EXPECT_EQ((convert<bool>(complex<float>(0, 1))), true);
  EXPECT_EQ((convert<bool>(Half(0.0f))), false);
  EXPECT_EQ((convert<int32_t>(BFloat16(-3.0f))), -3);
  EXPECT_EQ((convert<uint8_t>(true)), 1);
  EXPECT_EQ((convert<complex<float>>(int64_t{7})), complex<float>(7, 0));
}

TEST(Device, ParsesAndPrints) {
  EXPECT_EQ(Device("cpu").type, DeviceType::CPU);
  EXPECT_EQ(Device("cuda:1"), Device(DeviceType::CUDA, 1));
  EXPECT_EQ(Device("cuda:1").str(), "cuda:1");
  EXPECT_EQ(Device("meta").str(), "meta");
  try {
    Device("tpu");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    expect_inline(e.what(), R"(Expected one of cpu, cuda, meta, privateuseone, lazy device type at start of device string: tpu)");
  }
  EXPECT_THROW(Device("cuda:x"), Error);
  EXPECT_THROW(Device("cuda:-1"), Error);
}

TEST(DispatchKeySet, HighestPriorityWins) {
  DispatchKeySet ks{DispatchKey::CPU, DispatchKey::Autograd};
  EXPECT_EQ(ks.highestPriorityKey(), DispatchKey::Autograd);
  EXPECT_EQ(ks.remove(DispatchKey::Autograd).highestPriorityKey(), DispatchKey::CPU);
  EXPECT_EQ(DispatchKeySet().highestPriorityKey(), DispatchKey::Undefined);
  EXPECT_TRUE((ks | DispatchKeySet(DispatchKey::Python)).has(DispatchKey::Python));
  EXPECT_EQ(backendKey(DeviceType::Meta), DispatchKey::Meta);
  EXPECT_EQ(toString(DispatchKey::ADInplaceOrView), "ADInplaceOrView");
}

TEST(Scalar, KeepsKindAndConverts) {
  EXPECT_EQ(Scalar(3).type(), ScalarType::Long);
  EXPECT_EQ(Scalar(3.5).type(), ScalarType::Double);
  EXPECT_EQ(Scalar(true).type(), ScalarType::Bool);
  EXPECT_EQ(Scalar(complex<double>(1, 2)).type(), ScalarType::ComplexDouble);
  EXPECT_EQ(Scalar(int64_t{1} << 60).toLong(), int64_t{1} << 60);  // no precision lost through double
  EXPECT_EQ(Scalar(2.75).to<int32_t>(), 2);
  EXPECT_EQ(Scalar(2.75).to<Half>().x, Half(2.75f).x);
  EXPECT_EQ((-Scalar(complex<double>(1, -2))).toComplexDouble(), complex<double>(-1, 2));
  EXPECT_EQ(Scalar(complex<double>(1, -2)).str(), "(1-2j)");
  EXPECT_TRUE(Scalar(2).equal(Scalar(2.0)));
}

// Large CPU blocks are cached for the next request they fit: a training
// loop's repeated shapes reuse the same memory instead of fresh pages.
TEST(CPUAllocator, ReusesAFreedLargeBlockThatFits) {
  Allocator* cpu = GetCPUAllocator();
  void* first = nullptr;
  {
    DataPtr block = cpu->allocate(size_t{8} << 20);
    first = block.get();
  }
  DataPtr again = cpu->allocate(size_t{8} << 20);
  EXPECT_EQ(again.get(), first);
  DataPtr slightly_smaller = cpu->allocate((size_t{8} << 20) - 4096);  // a fresh block: the cached one is taken
  EXPECT_NE(slightly_smaller.get(), first);
}

// Blocks from 128 KiB (glibc's mmap threshold) are cached too: without it a
// 512 KiB result came from fresh pages or from the heap depending on what
// glibc had trimmed, a 5x difference in a 256x256 complex FFT.
TEST(CPUAllocator, ReusesAFreedMediumBlock) {
  Allocator* cpu = GetCPUAllocator();
  void* first = nullptr;
  {
    DataPtr block = cpu->allocate(size_t{320} << 10);
    first = block.get();
  }
  DataPtr again = cpu->allocate((size_t{320} << 10) - 100);  // the same 32 KiB class
  EXPECT_EQ(again.get(), first);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(again.get()) % kCPUAlignment, 0u);
}

// Of several cached blocks of one size, a request takes the one freed last:
// it is the one still in the CPU's caches. (9 MiB: larger than the blocks
// the tests before this one leave cached, so both blocks here are fresh.)
TEST(CPUAllocator, EqualCachedBlocksAreReusedLastFreedFirst) {
  Allocator* cpu = GetCPUAllocator();
  const size_t size = size_t{9} << 20;
  DataPtr first = cpu->allocate(size), second = cpu->allocate(size);
  void* freed_last = second.get();
  first.clear();
  second.clear();
  for (int i = 0; i < 3; ++i) {
    DataPtr again = cpu->allocate(size);
    EXPECT_EQ(again.get(), freed_last) << "round " << i;
  }
}

// SmallVector keeps its first N values inline and moves to the heap beyond,
// with the same values whichever storage it is in.
TEST(SmallVector, GrowsPastItsInlineStorageAndCopiesAndMovesEitherWay) {
  SmallVector<int64_t, 3> v{1, 2};
  v.push_back(3);
  v.push_back(4);  // now on the heap
  v.resize(6, 9);
  EXPECT_EQ(v.vec(), (std::vector<int64_t>{1, 2, 3, 4, 9, 9}));
  SmallVector<int64_t, 3> copy = v;
  SmallVector<int64_t, 3> moved = std::move(copy);
  EXPECT_TRUE(copy.empty());
  EXPECT_TRUE(moved == ArrayRef<int64_t>(v));
  SmallVector<int64_t, 3> small{5, 6};
  SmallVector<int64_t, 3> small_moved = std::move(small);
  EXPECT_EQ(small_moved.vec(), (std::vector<int64_t>{5, 6}));
  moved.assign(moved.begin() + 2, moved.end());  // from its own elements
  EXPECT_EQ(moved.vec(), (std::vector<int64_t>{3, 4, 9, 9}));
  std::vector<int64_t> reversed(v.rbegin(), v.rend());
  EXPECT_EQ(reversed, (std::vector<int64_t>{9, 9, 4, 3, 2, 1}));
  DimVector strides = contiguous_strides({2, 3, 4});
  EXPECT_EQ(strides.vec(), (std::vector<int64_t>{12, 4, 1}));
}

// Values that are not trivially copyable (tensors, strings) are constructed,
// moved and destroyed one by one, inline or on the heap.
TEST(SmallVector, HoldsValuesWithConstructorsAndDestructors) {
  auto token = std::make_shared<int>(7);  // its use count counts the live copies
  {
    SmallVector<std::shared_ptr<int>, 2> v;
    v.push_back(token);
    v.emplace_back(token);
    EXPECT_EQ(token.use_count(), 3);
    v.push_back(v.front());  // from its own element, while growing onto the heap
    EXPECT_EQ(v.size(), 3u);
    EXPECT_EQ(token.use_count(), 4);
    SmallVector<std::shared_ptr<int>, 2> copy = v;
    EXPECT_EQ(token.use_count(), 7);
    SmallVector<std::shared_ptr<int>, 2> moved = std::move(copy);
    EXPECT_TRUE(copy.empty());
    EXPECT_EQ(token.use_count(), 7);
    moved.resize(1);
    EXPECT_EQ(token.use_count(), 5);
    SmallVector<std::shared_ptr<int>, 2> inline_moved = std::move(moved);  // inline storage: moved element-wise
    EXPECT_EQ(inline_moved.size(), 1u);
    EXPECT_EQ(token.use_count(), 5);
    v.assign(v.begin() + 1, v.end());  // from its own elements
    EXPECT_EQ(v.size(), 2u);
    EXPECT_EQ(token.use_count(), 4);
    v.clear();
    EXPECT_EQ(token.use_count(), 2);
  }
  EXPECT_EQ(token.use_count(), 1);
  SmallVector<std::string, 1> words(3, "ember");
  words.resize(4, words[0]);
  EXPECT_EQ(words.vec(), (std::vector<std::string>{"ember", "ember", "ember", "ember"}));
}

// Small blocks come back from the thread's free list for the next request
// of their size class, aligned like any CPU block; a block freed by a thread
// that then exits goes back to malloc with the rest of its list.
TEST(CPUAllocator, ReusesASmallBlockFreedOnTheSameThread) {
  Allocator* cpu = GetCPUAllocator();
  void* first = nullptr;
  {
    DataPtr block = cpu->allocate(40);
    first = block.get();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % kCPUAlignment, 0u);
  }
  DataPtr again = cpu->allocate(64);  // the same class (64 bytes)
#if !defined(__SANITIZE_ADDRESS__)
  EXPECT_EQ(again.get(), first);
#endif
  DataPtr other_class = cpu->allocate(65);
  EXPECT_NE(other_class.get(), first);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(other_class.get()) % kCPUAlignment, 0u);
  std::thread([cpu] {
    DataPtr mine = cpu->allocate(1000);
    std::memset(mine.get(), 1, 1000);
  }).join();
  DataPtr crossing;
  std::thread([&] { crossing = cpu->allocate(100); }).join();  // made on a thread that is gone
  std::memset(crossing.get(), 2, 100);
  crossing.clear();  // freed onto this thread's list
}

// A smaller request takes the smallest cached block that holds it (down to
// an eighth of the block's size), and the block goes back under its own size.
TEST(CPUAllocator, ASmallerRequestReusesACachedLargerBlock) {
  Allocator* cpu = GetCPUAllocator();
  constexpr size_t kMiB = size_t{1} << 20;
  {
    DataPtr block = cpu->allocate(21 * kMiB);
    *static_cast<int*>(block.get()) = 7;
  }
  void* reused = nullptr;
  {
    DataPtr smaller = cpu->allocate(19 * kMiB);
    EXPECT_EQ(*static_cast<int*>(smaller.get()), 7);
    reused = smaller.get();
  }
  DataPtr again = cpu->allocate(21 * kMiB);
  EXPECT_EQ(again.get(), reused);
}

// A full cache makes room for the block freed last by dropping the one freed
// longest ago. A block that stayed cached keeps what was written into it (a
// fresh one from the kernel is zeroed), which tells the two apart.
TEST(CPUAllocator, AFullCacheDropsTheBlockFreedLongestAgo) {
  Allocator* cpu = GetCPUAllocator();
  constexpr size_t kMiB = size_t{1} << 20;
  auto mark = [](const DataPtr& block, int value) { *static_cast<int*>(block.get()) = value; };
  auto marked = [](const DataPtr& block, int value) { return *static_cast<int*>(block.get()) == value; };
  {
    DataPtr old_a = cpu->allocate(126 * kMiB), old_b = cpu->allocate(126 * kMiB);
    mark(old_a, 1);
    mark(old_b, 2);
  }  // the cache (256 MiB) now holds both
  {
    DataPtr recent = cpu->allocate(12 * kMiB);
    mark(recent, 3);
  }  // too small for a cached block to serve, and no room: the block freed first goes
  DataPtr recent = cpu->allocate(12 * kMiB);
  EXPECT_TRUE(marked(recent, 3));
  DataPtr kept = cpu->allocate(126 * kMiB);
  EXPECT_TRUE(marked(kept, 1) || marked(kept, 2));
}

}  // namespace
}  // namespace c10
