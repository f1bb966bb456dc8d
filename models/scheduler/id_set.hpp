// A set of job ids as a two-level bitset: insert, erase and contains in O(1) without
// allocating once the ids seen so far have room, and next(from), the least id >= from, in
// O(1) when one is near and O(ids / 4096) at worst (one summary bit per 64 ids). Conservative
// backfill walks its waiting jobs in submit order (job id order) with it, where a
// std::set allocated a node per arriving job.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

namespace gcsim::models {

class IdSet {
 public:
  static constexpr std::uint32_t NONE = std::numeric_limits<std::uint32_t>::max();

  void insert(std::uint32_t id) {
    const std::size_t w = id / 64;
    if (w >= bits_.size()) {
      bits_.resize(std::max<std::size_t>(w + 1, bits_.size() * 2), 0);
      summary_.resize((bits_.size() + 63) / 64, 0);
    }
    const std::uint64_t bit = std::uint64_t{1} << (id % 64);
    if (bits_[w] & bit) return;
    bits_[w] |= bit;
    summary_[w / 64] |= std::uint64_t{1} << (w % 64);
    ++size_;
  }
  void erase(std::uint32_t id) {
    const std::size_t w = id / 64;
    if (w >= bits_.size()) return;
    const std::uint64_t bit = std::uint64_t{1} << (id % 64);
    if (!(bits_[w] & bit)) return;
    bits_[w] &= ~bit;
    if (bits_[w] == 0) summary_[w / 64] &= ~(std::uint64_t{1} << (w % 64));
    --size_;
  }
  bool contains(std::uint32_t id) const {
    const std::size_t w = id / 64;
    return w < bits_.size() && (bits_[w] >> (id % 64) & 1);
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The least id in the set that is >= from, or NONE.
  std::uint32_t next(std::uint32_t from) const {
    std::size_t w = from / 64;
    if (w >= bits_.size()) return NONE;
    if (const std::uint64_t m = bits_[w] & (~std::uint64_t{0} << (from % 64)); m != 0)
      return static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(m)));
    ++w;  // the next word with an id, through the summary
    for (std::size_t s = w / 64; s < summary_.size(); ++s) {
      const std::uint64_t m = s == w / 64 ? summary_[s] & (~std::uint64_t{0} << (w % 64)) : summary_[s];
      if (m == 0) continue;
      const std::size_t word = s * 64 + static_cast<std::size_t>(std::countr_zero(m));
      return static_cast<std::uint32_t>(word * 64 + static_cast<std::size_t>(std::countr_zero(bits_[word])));
    }
    return NONE;
  }

 private:
  std::vector<std::uint64_t> bits_;     // bit id % 64 of word id / 64
  std::vector<std::uint64_t> summary_;  // bit w % 64 of word w / 64: bits_[w] != 0
  std::size_t size_ = 0;
};

}  // namespace gcsim::models
