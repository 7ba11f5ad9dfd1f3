// A FIFO on a ring of slots that is allocated by Reserve() and reused from then on, so a simulator
// that reserves what its protocol bounds (token queue depth, outstanding bursts) allocates nothing
// while it runs. A push into a full ring still succeeds by doubling it: a model must stay correct
// when the master it checks breaks the bound (the checker reports that separately).
#ifndef LOOM_SIM_COMMON_RING_H_
#define LOOM_SIM_COMMON_RING_H_

#include <cstddef>
#include <utility>
#include <vector>

namespace loom::sim {

template <typename T>
class Ring {
 public:
  // Empties the ring and makes room for `capacity` elements (at least one).
  void Reserve(size_t capacity) {
    clear();
    if (slots_.size() < capacity || slots_.empty()) slots_.resize(capacity == 0 ? 1 : capacity);
  }
  void clear() { head_ = size_ = 0; }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  T& front() { return slots_[head_]; }
  const T& front() const { return slots_[head_]; }
  void pop_front() {
    head_ = (head_ + 1) % slots_.size();
    --size_;
  }
  void push_back(const T& v) {
    if (size_ == slots_.size()) Grow();
    slots_[(head_ + size_) % slots_.size()] = v;
    ++size_;
  }

 private:
  void Grow() {
    std::vector<T> bigger(slots_.size() * 2 + 1);
    for (size_t i = 0; i < size_; ++i) bigger[i] = std::move(slots_[(head_ + i) % slots_.size()]);
    slots_ = std::move(bigger);
    head_ = 0;
  }
  std::vector<T> slots_;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace loom::sim

#endif  // LOOM_SIM_COMMON_RING_H_
