#include <c10/core/SharedMemory.h>

#include <c10/util/Exception.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace c10 {

namespace {

// The DataPtr's context: one mapping and the descriptor it came from.
struct Segment {
  void* base = nullptr;
  size_t mapped = 0;
  int fd = -1;
};

void release_segment(void* ctx) {
  auto* segment = static_cast<Segment*>(ctx);
  if (segment->base != nullptr) munmap(segment->base, segment->mapped);
  if (segment->fd >= 0) close(segment->fd);
  delete segment;
}

size_t mapped_size(size_t nbytes) { return nbytes == 0 ? 1 : nbytes; }

// `populate`: map every page at once (MAP_POPULATE). A new segment is about
// to be filled whole (a collated batch), and faulting its pages in one at a
// time costs more than the copy itself; a received one may be read only in
// part, so its pages come as they are touched.
DataPtr map_segment(int fd, size_t nbytes, bool populate, const char* what) {
  const size_t mapped = mapped_size(nbytes);
  void* base = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED | (populate ? MAP_POPULATE : 0), fd, 0);
  if (base == MAP_FAILED) {
    const int err = errno;
    close(fd);
    EMBER_CHECK(false, "{}: could not map {} bytes of shared memory: {}", what, mapped, std::strerror(err));
  }
  auto* segment = new Segment{base, mapped, fd};
  return DataPtr(base, segment, &release_segment, Device(DeviceType::CPU));
}

// A name no other process or call uses at the same moment; it exists only
// between shm_open and shm_unlink.
std::string fresh_name() {
  static std::atomic<uint64_t> counter{0};
  return "/ember_" + std::to_string(getpid()) + "_" + std::to_string(counter.fetch_add(1));
}

}  // namespace

DataPtr new_shared_memory(size_t nbytes) {
  const std::string name = fresh_name();
  const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, S_IRUSR | S_IWUSR);
  EMBER_CHECK(fd >= 0, "share_memory_: could not create shared memory {}: {}", name, std::strerror(errno));
  shm_unlink(name.c_str());  // from here on, only descriptors and mappings keep it alive
  if (ftruncate(fd, static_cast<off_t>(mapped_size(nbytes))) != 0) {
    const int err = errno;
    close(fd);
    EMBER_CHECK(false, "share_memory_: could not size shared memory to {} bytes: {}", nbytes, std::strerror(err));
  }
  return map_segment(fd, nbytes, /*populate=*/true, "share_memory_");
}

DataPtr map_shared_memory(int fd, size_t nbytes) {
  struct stat st {};
  EMBER_CHECK(fstat(fd, &st) == 0, "map_shared_memory: bad file descriptor {}: {}", fd, std::strerror(errno));
  EMBER_CHECK(static_cast<size_t>(st.st_size) >= mapped_size(nbytes),
              "map_shared_memory: the segment holds {} bytes, fewer than the {} expected", st.st_size, nbytes);
  const int own = dup(fd);
  EMBER_CHECK(own >= 0, "map_shared_memory: could not duplicate descriptor {}: {}", fd, std::strerror(errno));
  return map_segment(own, nbytes, /*populate=*/false, "map_shared_memory");
}

bool is_shared_memory(const DataPtr& data) { return data.deleter() == &release_segment; }

int shared_memory_fd(const DataPtr& data) {
  return is_shared_memory(data) ? static_cast<Segment*>(data.context())->fd : -1;
}

}  // namespace c10
