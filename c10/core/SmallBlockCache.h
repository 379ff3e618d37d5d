#pragma once
// Per-thread free lists of small CPU blocks.
//
// A tiny op allocates its result's few bytes and frees them soon after; from
// glibc, a 64-byte-aligned block costs an aligned allocation that splits a
// chunk and, when freed, merges it back (a quarter of the time of a 10-float
// add). Blocks up to kSmallBlockMax bytes are therefore rounded up to a power
// of two and, when freed, kept on the freeing thread's list for that size
// (at most kSmallBlockCacheBytes per size and thread) for the next request.
// A thread's lists are returned to malloc when it exits. Under
// AddressSanitizer nothing is cached, so that a use after free is still
// caught.

#include <c10/core/Allocator.h>

namespace c10 {

constexpr size_t kSmallBlockMax = size_t{32} << 10;
constexpr size_t kSmallBlockCacheBytes = size_t{256} << 10;

// A CPU block of at least `nbytes` (1 to kSmallBlockMax), aligned to
// kCPUAlignment, or a null DataPtr when memory is exhausted.
DataPtr allocate_small_block(size_t nbytes);

}  // namespace c10
