// SPDX-License-Identifier: LGPL-2.1-or-later
// A first-in first-out queue that keeps its storage. A std::deque used as a
// queue allocates a block each time its back enters a new one and frees the
// block its front leaves, however few items it holds: the frames in flight
// and the held outputs of a read-back path allocated once every 32 frames
// (traced on an NVIDIA H200, docs/BENCHMARKS.md). This one is a ring in a
// vector that grows only past the most items it has held, so a queue of a
// steady few allocates nothing once warm.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace ef::gst {

template <typename T>  // default-constructible and movable
class Fifo {
 public:
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  size_t capacity() const { return slots_.size(); }

  T &front() { return slots_[head_]; }
  const T &front() const { return slots_[head_]; }
  // The i-th oldest.
  T &operator[](size_t i) { return slots_[slot(i)]; }
  const T &operator[](size_t i) const { return slots_[slot(i)]; }

  void push_back(T value) {
    if (count_ == slots_.size())
      grow();
    slots_[slot(count_)] = std::move(value);
    ++count_;
  }
  // The oldest goes; its slot is reset, so nothing it owned stays alive.
  void pop_front() {
    slots_[head_] = T();
    head_ = (head_ + 1) % slots_.size();
    --count_;
  }
  void clear() {
    while (!empty())
      pop_front();
  }

  // Oldest first.
  template <typename Q, typename V>
  class Iterator {
   public:
    Iterator(Q *queue, size_t i) : queue_(queue), i_(i) {}
    V &operator*() const { return (*queue_)[i_]; }
    Iterator &operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const Iterator &other) const { return i_ != other.i_; }

   private:
    Q *queue_;
    size_t i_;
  };
  Iterator<Fifo, T> begin() { return {this, 0}; }
  Iterator<Fifo, T> end() { return {this, count_}; }
  Iterator<const Fifo, const T> begin() const { return {this, 0}; }
  Iterator<const Fifo, const T> end() const { return {this, count_}; }

 private:
  size_t slot(size_t i) const { return (head_ + i) % slots_.size(); }

  void grow() {
    std::vector<T> bigger(slots_.empty() ? 4 : 2 * slots_.size());
    for (size_t i = 0; i < count_; ++i)
      bigger[i] = std::move(slots_[slot(i)]);
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;  // stays as grown
  size_t head_ = 0, count_ = 0;
};

}  // namespace ef::gst
