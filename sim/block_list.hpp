// A list that grows by blocks of a fixed number of elements: appending never moves what is
// there, so it never holds a second buffer while it grows and never copies (a std::vector
// of millions of rows doubles: its old and new buffers are both resident during the copy,
// and its capacity runs up to twice its size). For the rows a run keeps until its end
// (the trace recorder's /preemptions: 3.2 million in the saturated las case of
// docs/scheduling.md). Element i is in block i / PER_BLOCK; a block is about 1 MiB.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <memory>
#include <vector>

namespace gcsim::sim {

template <class T>
class BlockList {
 public:
  static constexpr std::size_t PER_BLOCK = std::bit_floor(std::max<std::size_t>(1, (std::size_t{1} << 20) / sizeof(T)));

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return blocks_[i / PER_BLOCK][i % PER_BLOCK]; }
  const T& operator[](std::size_t i) const { return blocks_[i / PER_BLOCK][i % PER_BLOCK]; }
  void push_back(const T& value) {
    if (size_ == blocks_.size() * PER_BLOCK) blocks_.push_back(std::make_unique<T[]>(PER_BLOCK));
    (*this)[size_++] = value;
  }
  // Grows to n elements, the new ones value-initialized (never shrinks).
  void grow_to(std::size_t n) {
    while (size_ < n) push_back(T{});
  }

 private:
  std::vector<std::unique_ptr<T[]>> blocks_;
  std::size_t size_ = 0;
};

}  // namespace gcsim::sim
