#pragma once
// The key-value store processes meet through (torch's c10d::Store): a rank
// publishes its address under a key, the others wait for the key. Values
// are bytes. Implementations: the Python stores of
// ember.distributed (TCPStore, FileStore, HashStore, PrefixStore), reached
// through the binding.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ember::distributed {

class Store {
 public:
  virtual ~Store() = default;
  virtual void set(const std::string& key, const std::vector<uint8_t>& value) = 0;
  // Waits up to the store's timeout for the key.
  virtual std::vector<uint8_t> get(const std::string& key) = 0;
  // Waits until every key exists; a timeout error names the missing keys.
  virtual void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) = 0;
};

}  // namespace ember::distributed
