#pragma once
// ember::data: datasets of (data, target) examples, samplers that order
// them, and a DataLoader that stacks them into batches, as Python's
// ember.utils.data. Worker threads (num_workers > 0) collate the next
// batches while the caller trains on the current one, keeping the order.

#include <aten/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace ember::data {

struct Example {
  Tensor data;
  Tensor target;  // undefined for unlabelled data
};

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual Example get(int64_t index) const = 0;
  virtual int64_t size() const = 0;
};

// Rows of data (and of target) along dim 0.
class TensorDataset : public Dataset {
 public:
  explicit TensorDataset(Tensor data, Tensor target = Tensor());
  Example get(int64_t index) const override;
  int64_t size() const override { return data_.size(0); }

 private:
  Tensor data_, target_;
};

// The order of indices for one epoch: 0..n-1, or a fresh permutation of
// them from the default generator (as Python's RandomSampler) each epoch.
class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual std::vector<int64_t> epoch(int64_t size) = 0;
};
class SequentialSampler : public Sampler {
 public:
  std::vector<int64_t> epoch(int64_t size) override;
};
class RandomSampler : public Sampler {
 public:
  std::vector<int64_t> epoch(int64_t size) override;
};

struct DataLoaderOptions {
  DataLoaderOptions(int64_t batch_size = 1) : batch_size_(batch_size) {}
  DataLoaderOptions& batch_size(int64_t v) { batch_size_ = v; return *this; }
  DataLoaderOptions& shuffle(bool v) { shuffle_ = v; return *this; }
  DataLoaderOptions& drop_last(bool v) { drop_last_ = v; return *this; }
  DataLoaderOptions& num_workers(int64_t v) { num_workers_ = v; return *this; }
  int64_t batch_size() const { return batch_size_; }
  bool shuffle() const { return shuffle_; }
  bool drop_last() const { return drop_last_; }
  int64_t num_workers() const { return num_workers_; }

 private:
  int64_t batch_size_;
  bool shuffle_ = false;
  bool drop_last_ = false;
  int64_t num_workers_ = 0;
};

// Batches of examples stacked along a new dim 0:
//   for (const data::Example& batch : loader) { ... batch.data, batch.target ... }
// Each range-for over the loader is one epoch. Errors a worker meets (an
// index the dataset refuses, examples of unequal shapes) reach the caller
// when it asks for that batch.
class DataLoader {
 public:
  DataLoader(std::shared_ptr<Dataset> dataset, const DataLoaderOptions& options = {},
             std::shared_ptr<Sampler> sampler = nullptr);
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  // Batches per epoch.
  int64_t size() const;

  class Epoch;
  class Iterator {
   public:
    const Example& operator*() const { return current_; }
    const Example* operator->() const { return &current_; }
    Iterator& operator++();
    bool operator!=(const Iterator& other) const { return epoch_ != other.epoch_; }

   private:
    friend class DataLoader;
    explicit Iterator(std::shared_ptr<Epoch> epoch);
    std::shared_ptr<Epoch> epoch_;  // null at the end
    Example current_;
  };
  Iterator begin();
  Iterator end() { return Iterator(nullptr); }

 private:
  std::shared_ptr<Dataset> dataset_;
  DataLoaderOptions options_;
  std::shared_ptr<Sampler> sampler_;
};

// Stacks examples into a batch (the targets too, where defined).
Example collate(const std::vector<Example>& examples);

}  // namespace ember::data
