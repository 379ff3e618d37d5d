#pragma once
// Host memory that other processes can map: POSIX shared-memory objects
// mapped with mmap. A storage moves into one with share_memory_(); another
// process maps the same bytes, so a tensor crosses a process boundary
// without its data being copied. Two ways to share, as torch's strategies:
//
// - file_descriptor (the default): the object's name is unlinked as soon as
//   it is created, and other processes map it from a descriptor passed over
//   a Unix socket. It lives exactly as long as some process maps it or holds
//   a descriptor, and nothing is left in /dev/shm however processes exit.
// - file_system: the object keeps its name, which other processes open.
//   Whoever drops the last reference (see below) unlinks the name. Names of
//   processes that die holding references are unlinked by a manager process
//   (ember.multiprocessing) once every process that registered with it is
//   gone.
//
// Either way a count in the segment's first bytes, shared by all processes,
// holds one reference per mapping and one per copy in transit (taken by the
// sender, taken over by the receiver's mapping). It is what lets a process
// reuse a segment it made once no other process holds it.

#include <c10/core/Allocator.h>

#include <cstddef>
#include <string>

namespace c10 {

enum class SharingStrategy { FileDescriptor, FileSystem };
SharingStrategy sharing_strategy();
void set_sharing_strategy(SharingStrategy strategy);

// A fresh zero-filled segment of `nbytes` in the given strategy's form (at
// least one byte is mapped, so that an empty storage can be sent too), with
// one reference (this mapping). A named one is registered with the manager,
// if one is connected.
DataPtr new_shared_memory(size_t nbytes, SharingStrategy strategy = sharing_strategy());
// A segment of `nbytes` (file_descriptor form) whose contents are about to
// be overwritten whole and sent, e.g. a collated batch: one this process made
// earlier through this function and every other process has let go of (its
// old bytes still in it), or a new one. Reuse saves the kernel's zeroing and
// mapping of fresh pages, which costs more than filling them.
DataPtr recycled_shared_memory(size_t nbytes);
// Maps the segment behind `fd` (of at least `nbytes`); the DataPtr keeps its
// own duplicate of the descriptor, so the caller may close `fd`. The mapping
// takes over the sender's transit reference.
DataPtr map_shared_memory(int fd, size_t nbytes);
// Maps the named segment (of at least `nbytes`), taking over the sender's
// transit reference.
DataPtr map_shared_memory(const std::string& name, size_t nbytes);

// Whether `data` came from one of the functions above.
bool is_shared_memory(const DataPtr& data);
// The segment's descriptor (owned by the DataPtr: dup it to keep it), or -1.
int shared_memory_fd(const DataPtr& data);
// The segment's name for file_system sharing, or "" for an unnamed one.
std::string shared_memory_name(const DataPtr& data);
// A reference for a copy in transit: taken by the sender before the name or
// descriptor leaves; a receiver that maps the segment keeps it as its
// mapping's, one that already maps it (another view) drops it.
void shared_memory_incref(const DataPtr& data);
void shared_memory_decref(const DataPtr& data);

// Connects this process to the manager listening at `address` (a Unix
// socket in the abstract namespace, without its leading NUL); named
// segments created from now on are registered with it. Forked children keep
// the connection; other processes connect on their first named segment if
// EMBER_SHM_MANAGER holds the address.
void connect_shared_memory_manager(const std::string& address);

}  // namespace c10
