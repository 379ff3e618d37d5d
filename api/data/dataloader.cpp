#include <api/data/dataloader.h>

#include <aten/Functions.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

namespace ember::data {

TensorDataset::TensorDataset(Tensor data, Tensor target) : data_(std::move(data)), target_(std::move(target)) {
  EMBER_CHECK_VALUE(data_.dim() > 0, "TensorDataset: data must have a dimension to index, got a 0-d tensor");
  EMBER_CHECK_VALUE(!target_.defined() || (target_.dim() > 0 && target_.size(0) == data_.size(0)),
                    "Size mismatch between tensors: data has {} rows, target {}", data_.size(0),
                    target_.defined() && target_.dim() > 0 ? target_.size(0) : 0);
}

Example TensorDataset::get(int64_t index) const {
  EMBER_CHECK_INDEX(index >= 0 && index < size(), "TensorDataset: index {} is out of range for {} examples", index,
                    size());
  return {data_[index], target_.defined() ? target_[index] : Tensor()};
}

std::vector<int64_t> SequentialSampler::epoch(int64_t size) {
  std::vector<int64_t> order(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) order[i] = i;
  return order;
}

std::vector<int64_t> RandomSampler::epoch(int64_t size) {
  const Tensor perm = ember::randperm(size);
  const int64_t* p = perm.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + size);
}

Example collate(const std::vector<Example>& examples) {
  EMBER_CHECK_VALUE(!examples.empty(), "collate: no examples");
  std::vector<Tensor> data, targets;
  for (const auto& e : examples) {
    EMBER_CHECK_VALUE(e.data.sizes() == examples[0].data.sizes(),
                      "collate: examples of unequal shapes cannot be stacked into a batch ({} and {})",
                      c10::str_sizes(examples[0].data.sizes()), c10::str_sizes(e.data.sizes()));
    data.push_back(e.data);
    if (e.target.defined()) targets.push_back(e.target);
  }
  EMBER_CHECK_VALUE(targets.empty() || targets.size() == examples.size(),
                    "collate: some examples have a target and some do not");
  return {ember::stack(data), targets.empty() ? Tensor() : ember::stack(targets)};
}

// One pass over the data: the batches' indices, and (with workers) the
// threads that collate them ahead of the reader, at most 2 per worker ahead.
class DataLoader::Epoch {
 public:
  Epoch(std::shared_ptr<Dataset> dataset, std::vector<std::vector<int64_t>> batches, int64_t workers)
      : dataset_(std::move(dataset)), batches_(std::move(batches)) {
    for (int64_t w = 0; w < workers; ++w) threads_.emplace_back([this, workers] { work(2 * workers); });
  }
  ~Epoch() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    for (auto& t : threads_) t.join();
  }

  bool done() const { return next_ >= batches_.size(); }

  // The next batch, in order; rethrows what making it raised.
  Example take() {
    const size_t index = next_++;
    if (threads_.empty()) return make(index);
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return ready_.count(index) > 0; });
    Result result = std::move(ready_[index]);
    ready_.erase(index);
    taken_ = index + 1;
    lock.unlock();
    changed_.notify_all();
    if (result.error) std::rethrow_exception(result.error);
    return std::move(result.batch);
  }

 private:
  struct Result {
    Example batch;
    std::exception_ptr error;
  };

  Example make(size_t index) const {
    std::vector<Example> examples;
    for (int64_t i : batches_[index]) examples.push_back(dataset_->get(i));
    return collate(examples);
  }

  void work(size_t ahead) {
    for (;;) {
      size_t index;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return stopping_ || claimed_ >= batches_.size() || claimed_ < taken_ + ahead; });
        if (stopping_ || claimed_ >= batches_.size()) return;
        index = claimed_++;
      }
      Result result;
      try {
        result.batch = make(index);
      } catch (...) {
        result.error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ready_[index] = std::move(result);
      }
      changed_.notify_all();
    }
  }

  std::shared_ptr<Dataset> dataset_;
  std::vector<std::vector<int64_t>> batches_;
  size_t next_ = 0;  // the reader's next batch
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t claimed_ = 0, taken_ = 0;
  bool stopping_ = false;
  std::map<size_t, Result> ready_;
  std::vector<std::thread> threads_;
};

DataLoader::DataLoader(std::shared_ptr<Dataset> dataset, const DataLoaderOptions& options,
                       std::shared_ptr<Sampler> sampler)
    : dataset_(std::move(dataset)), options_(options), sampler_(std::move(sampler)) {
  EMBER_CHECK_VALUE(dataset_ != nullptr, "DataLoader: no dataset");
  EMBER_CHECK_VALUE(options_.batch_size() > 0, "batch_size should be a positive integer value, but got batch_size={}",
                    options_.batch_size());
  EMBER_CHECK_VALUE(options_.num_workers() >= 0,
                    "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.");
  EMBER_CHECK_VALUE(!(sampler_ && options_.shuffle()), "sampler option is mutually exclusive with shuffle");
  if (!sampler_) {
    sampler_ = options_.shuffle() ? std::shared_ptr<Sampler>(std::make_shared<RandomSampler>())
                                  : std::shared_ptr<Sampler>(std::make_shared<SequentialSampler>());
  }
}

DataLoader::~DataLoader() = default;

int64_t DataLoader::size() const {
  const int64_t n = dataset_->size(), b = options_.batch_size();
  return options_.drop_last() ? n / b : (n + b - 1) / b;
}

DataLoader::Iterator DataLoader::begin() {
  const std::vector<int64_t> order = sampler_->epoch(dataset_->size());
  std::vector<std::vector<int64_t>> batches;
  for (size_t start = 0; start < order.size(); start += static_cast<size_t>(options_.batch_size())) {
    const size_t end = std::min(order.size(), start + static_cast<size_t>(options_.batch_size()));
    if (options_.drop_last() && end - start < static_cast<size_t>(options_.batch_size())) break;
    batches.emplace_back(order.begin() + start, order.begin() + end);
  }
  return Iterator(std::make_shared<Epoch>(dataset_, std::move(batches), options_.num_workers()));
}

DataLoader::Iterator::Iterator(std::shared_ptr<Epoch> epoch) : epoch_(std::move(epoch)) {
  if (epoch_ && epoch_->done()) epoch_.reset();
  if (epoch_) current_ = epoch_->take();
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  if (epoch_->done()) {
    epoch_.reset();
  } else {
    current_ = epoch_->take();
  }
  return *this;
}

}  // namespace ember::data
