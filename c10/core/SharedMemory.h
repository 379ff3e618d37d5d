#pragma once
// Host memory that other processes can map: a POSIX shared-memory object
// mapped with mmap. A storage moves into one with share_memory_(); another
// process maps the same bytes from a file descriptor passed to it (over a
// Unix socket, by Python's multiprocessing), so a tensor crosses a process
// boundary without its data being copied.
//
// The object's name is unlinked as soon as it is created: the memory lives
// exactly as long as some process maps it or holds a descriptor of it, and
// nothing is left in /dev/shm when processes exit, however they exit (even
// killed with SIGKILL).

#include <c10/core/Allocator.h>

#include <cstddef>

namespace c10 {

// A fresh zero-filled segment of `nbytes` (at least one page is mapped, so
// that an empty storage has a descriptor to send too).
DataPtr new_shared_memory(size_t nbytes);
// Maps the segment behind `fd` (of at least `nbytes`); the DataPtr keeps its
// own duplicate of the descriptor, so the caller may close `fd`.
DataPtr map_shared_memory(int fd, size_t nbytes);

// Whether `data` came from one of the two functions above.
bool is_shared_memory(const DataPtr& data);
// The segment's descriptor (owned by the DataPtr: dup it to keep it), or -1.
int shared_memory_fd(const DataPtr& data);

}  // namespace c10
