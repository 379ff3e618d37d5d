#include <c10/core/SharedMemory.h>

#include <c10/util/Exception.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <random>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <unistd.h>

namespace c10 {

namespace {

std::atomic<SharingStrategy> current_strategy{SharingStrategy::FileDescriptor};

// The first bytes of every segment: its reference count, shared by every
// process that maps it (a lock-free atomic works across processes): one per
// mapping and one per copy in transit. A named segment's last reference
// unlinks the name; a process that made a segment can tell from it when
// every other process has let go. 64 bytes keep the data after it as
// aligned as a fresh allocation.
struct SegmentHeader {
  std::atomic<int64_t> references;
};
constexpr size_t kHeaderBytes = 64;
static_assert(sizeof(SegmentHeader) <= kHeaderBytes && std::atomic<int64_t>::is_always_lock_free);

// The DataPtr's context: one mapping, the descriptor it came from, the
// header and, for a named segment, its name.
struct Segment {
  void* base = nullptr;
  size_t mapped = 0;
  int fd = -1;
  std::string name;
  SegmentHeader* header = nullptr;
};

void release_segment(void* ctx) {
  auto* segment = static_cast<Segment*>(ctx);
  if (segment->header->references.fetch_sub(1) == 1 && !segment->name.empty()) {
    shm_unlink(segment->name.c_str());
  }
  if (segment->base != nullptr) munmap(segment->base, segment->mapped);
  if (segment->fd >= 0) close(segment->fd);
  delete segment;
}

size_t mapped_size(size_t nbytes) { return nbytes == 0 ? 1 : nbytes; }

// The data bytes of a segment of this size (for messages: without the header).
int64_t data_bytes(const struct stat& st) {
  return std::max<int64_t>(0, static_cast<int64_t>(st.st_size) - static_cast<int64_t>(kHeaderBytes));
}

// `populate`: map every page at once (MAP_POPULATE). A new segment is about
// to be filled whole (a collated batch), and faulting its pages in one at a
// time costs more than the copy itself; a received one may be read only in
// part, so its pages come as they are touched.
DataPtr map_segment(int fd, size_t nbytes, bool populate, const char* what, std::string name = {}) {
  const size_t header = kHeaderBytes;
  const size_t mapped = header + mapped_size(nbytes);
  void* base = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED | (populate ? MAP_POPULATE : 0), fd, 0);
  if (base == MAP_FAILED) {
    const int err = errno;
    close(fd);
    EMBER_CHECK(false, "{}: could not map {} bytes of shared memory: {}", what, mapped, std::strerror(err));
  }
  auto* segment = new Segment{base, mapped, fd, std::move(name), static_cast<SegmentHeader*>(base)};
  return DataPtr(static_cast<char*>(base) + header, segment, &release_segment, Device(DeviceType::CPU));
}

// A name no other process or call uses at the same moment. Named segments
// add random bits: a name left by a dead process with the same pid must not
// be taken for ours.
std::string fresh_name(bool named) {
  static std::atomic<uint64_t> counter{0};
  std::string name = (named ? "/ember_fs_" : "/ember_") + std::to_string(getpid()) + "_" +
                     std::to_string(counter.fetch_add(1));
  if (named) {
    static thread_local std::mt19937_64 bits{std::random_device{}()};
    name += "_" + std::to_string(bits() & 0xffffffffULL);
  }
  return name;
}

int create_object(std::string& name, bool named) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    name = fresh_name(named);
    const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, S_IRUSR | S_IWUSR);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

// ---- the manager connection -------------------------------------------------

std::mutex manager_mutex;
int manager_fd = -1;  // inherited by forked children on purpose

int connect_to_manager(const std::string& address) {
  const int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const size_t length = std::min(address.size(), sizeof(addr.sun_path) - 1);
  std::memcpy(addr.sun_path + 1, address.data(), length);  // sun_path[0] == 0: the abstract namespace
  const auto addr_size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + length);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), addr_size) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Tells the manager about a new name, so that it unlinks the name if every
// process dies before the count reaches zero. Best effort: without a manager
// a name can outlive only processes that die holding references.
void register_with_manager(const std::string& name) {
  std::lock_guard<std::mutex> lock(manager_mutex);
  if (manager_fd < 0) {
    const char* address = std::getenv("EMBER_SHM_MANAGER");
    if (address == nullptr || *address == '\0') return;
    manager_fd = connect_to_manager(address);
    if (manager_fd < 0) return;
  }
  (void)send(manager_fd, name.data(), name.size(), MSG_NOSIGNAL);
}

Segment* segment_of(const DataPtr& data) {
  return is_shared_memory(data) ? static_cast<Segment*>(data.context()) : nullptr;
}

}  // namespace

SharingStrategy sharing_strategy() { return current_strategy.load(); }
void set_sharing_strategy(SharingStrategy strategy) { current_strategy.store(strategy); }

DataPtr new_shared_memory(size_t nbytes, SharingStrategy strategy) {
  const bool named = strategy == SharingStrategy::FileSystem;
  std::string name;
  const int fd = create_object(name, named);
  EMBER_CHECK(fd >= 0, "share_memory_: could not create shared memory {}: {}", name, std::strerror(errno));
  // Unnamed: from here on, only descriptors and mappings keep it alive.
  if (!named) shm_unlink(name.c_str());
  const size_t total = kHeaderBytes + mapped_size(nbytes);
  if (ftruncate(fd, static_cast<off_t>(total)) != 0) {
    const int err = errno;
    close(fd);
    if (named) shm_unlink(name.c_str());
    EMBER_CHECK(false, "share_memory_: could not size shared memory to {} bytes: {}", nbytes, std::strerror(err));
  }
  DataPtr data;
  try {
    data = map_segment(fd, nbytes, /*populate=*/true, "share_memory_", named ? name : std::string());
  } catch (...) {
    if (named) shm_unlink(name.c_str());
    throw;
  }
  new (segment_of(data)->header) SegmentHeader{{1}};
  if (named) register_with_manager(name);
  return data;
}

namespace {

// Segments this process made for recycled_shared_memory, each mapped once
// more here (a reference of the pool's own), most recently used last.
std::mutex pool_mutex;
std::vector<DataPtr> recycling_pool;
pid_t pool_owner = getpid();
constexpr size_t kPoolSegments = 8;

// A forked child inherits the pool's entries but not their references: they
// are its parent's, and reusing one would write into a segment the parent
// may hand out too. The child forgets them without letting go (a release
// would drop the parent's reference); the inherited mappings stay mapped.
void forget_inherited_pool() {
  if (pool_owner == getpid()) return;
  new std::vector<DataPtr>(std::move(recycling_pool));  // NOLINT: deliberately never destroyed
  recycling_pool.clear();
  pool_owner = getpid();
}

// Another mapping of `pooled` for a new owner, taking a reference.
DataPtr remap(const DataPtr& pooled, size_t nbytes, bool populate) {
  const int fd = dup(segment_of(pooled)->fd);
  EMBER_CHECK(fd >= 0, "shared memory: could not duplicate a descriptor: {}", std::strerror(errno));
  DataPtr data = map_segment(fd, nbytes, populate, "shared memory");
  segment_of(data)->header->references.fetch_add(1);
  return data;
}

}  // namespace

DataPtr recycled_shared_memory(size_t nbytes) {
  std::lock_guard<std::mutex> lock(pool_mutex);
  forget_inherited_pool();
  for (auto it = recycling_pool.begin(); it != recycling_pool.end(); ++it) {
    const Segment* segment = segment_of(*it);
    // Only the pool's own reference left: no other mapping, nothing in transit.
    if (segment->mapped == kHeaderBytes + mapped_size(nbytes) && segment->header->references.load() == 1) {
      DataPtr pooled = std::move(*it);
      recycling_pool.erase(it);
      DataPtr data = remap(pooled, nbytes, /*populate=*/true);
      recycling_pool.push_back(std::move(pooled));
      return data;
    }
  }
  DataPtr data = new_shared_memory(nbytes, SharingStrategy::FileDescriptor);
  if (recycling_pool.size() == kPoolSegments) recycling_pool.erase(recycling_pool.begin());
  recycling_pool.push_back(remap(data, nbytes, /*populate=*/false));
  return data;
}

DataPtr map_shared_memory(int fd, size_t nbytes) {
  struct stat st {};
  EMBER_CHECK(fstat(fd, &st) == 0, "map_shared_memory: bad file descriptor {}: {}", fd, std::strerror(errno));
  EMBER_CHECK(static_cast<size_t>(st.st_size) >= kHeaderBytes + mapped_size(nbytes),
              "map_shared_memory: the segment holds {} bytes, fewer than the {} expected", data_bytes(st), nbytes);
  const int own = dup(fd);
  EMBER_CHECK(own >= 0, "map_shared_memory: could not duplicate descriptor {}: {}", fd, std::strerror(errno));
  // The sender's reference for this copy in transit becomes this mapping's.
  return map_segment(own, nbytes, /*populate=*/false, "map_shared_memory");
}

DataPtr map_shared_memory(const std::string& name, size_t nbytes) {
  EMBER_CHECK(name.size() > 1 && name[0] == '/' && name.find('/', 1) == std::string::npos && name.size() < 256,
              "map_shared_memory: '{}' is not a shared-memory name", name);
  const int fd = shm_open(name.c_str(), O_RDWR, 0);
  EMBER_CHECK(fd >= 0, "map_shared_memory: could not open shared memory {}: {} (was every reference to it dropped "
              "before it arrived?)", name, std::strerror(errno));
  struct stat st {};
  const bool sized = fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) >= kHeaderBytes + mapped_size(nbytes);
  if (!sized) {
    close(fd);
    EMBER_CHECK(false, "map_shared_memory: the segment {} holds {} bytes, fewer than the {} expected", name,
                data_bytes(st), nbytes);
  }
  // The sender's reference for this copy in transit becomes this mapping's.
  return map_segment(fd, nbytes, /*populate=*/false, "map_shared_memory", name);
}

bool is_shared_memory(const DataPtr& data) { return data.deleter() == &release_segment; }

int shared_memory_fd(const DataPtr& data) {
  const Segment* segment = segment_of(data);
  return segment != nullptr ? segment->fd : -1;
}

std::string shared_memory_name(const DataPtr& data) {
  const Segment* segment = segment_of(data);
  return segment != nullptr ? segment->name : std::string();
}

void shared_memory_incref(const DataPtr& data) {
  Segment* segment = segment_of(data);
  EMBER_CHECK(segment != nullptr, "shared_memory_incref: not a shared-memory segment");
  segment->header->references.fetch_add(1);
}

void shared_memory_decref(const DataPtr& data) {
  Segment* segment = segment_of(data);
  EMBER_CHECK(segment != nullptr, "shared_memory_decref: not a shared-memory segment");
  // This mapping holds a reference of its own, so the count stays positive.
  segment->header->references.fetch_sub(1);
}

void connect_shared_memory_manager(const std::string& address) {
  std::lock_guard<std::mutex> lock(manager_mutex);
  if (manager_fd >= 0) close(manager_fd);
  manager_fd = connect_to_manager(address);
  EMBER_CHECK(manager_fd >= 0, "ember.multiprocessing: could not connect to the shared-memory manager: {}",
              std::strerror(errno));
}

}  // namespace c10
