// An ordering policy's own order over jobs (waiting or running), kept as jobs come and go,
// so that a pass visits jobs in order from the first and stops as soon as nothing more can
// start: it does not look at every waiting job (docs/scheduling.md, "Speed"). Jobs are kept in one
// binary heap per size class (one per GPU count up to 64, then one per power of two:
// 65-128, 129-256, ...); a scan visits them in
// key order across classes (a heap is visited in order by expanding, from a small
// candidate heap, the children of each entry visited), and skips a whole class the moment
// its smallest size no longer fits, so jobs too big for the free capacity cost nothing
// once their class is skipped. Ties in the key break by job id, which is submit order.
// insert, erase and rekey (one job's new key) are O(log n); a scan that visits k jobs is
// O((k + classes) log); rekey_all, new keys for every job, is O(n).
// Nothing allocates once the index and its scratch have grown to the workload's size.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/check.hpp"

namespace gcsim::models {

enum class Visit : std::uint8_t { Next, Stop };

// The key of an index in submit order (job id order): none. Every SubmitOrder is equal, so
// the jobs go by id, as with equal keys, and an entry is the job id and a byte (8 bytes,
// not 16 with a double): the heaps' comparisons and layout are those of equal double keys,
// in half the memory (EASY backfill's scan walks its waiting jobs' heaps).
struct SubmitOrder {
  friend bool operator<(SubmitOrder, SubmitOrder) { return false; }
};

template <class Key>
class OrderIndex {
  struct Where;

 public:
  // Where each job sits, by job id: an index's own, or one shared by several indexes that
  // together hold each job at most once (fair-share's per-team queues), so that each
  // index does not need a slot for every job id. contains() then says whether the job is
  // in one of them.
  class Slots {
    friend class OrderIndex;
    std::vector<Where> where_;
  };
  OrderIndex() : slots_(&own_) {}
  explicit OrderIndex(Slots& shared) : slots_(&shared) {}
  OrderIndex(const OrderIndex&) = delete;
  OrderIndex& operator=(const OrderIndex&) = delete;

  static constexpr int EXACT = 64;             // GPU counts 1..64 each have a class
  static constexpr int CLASSES = EXACT + 25;   // then 65-128, ..., up to 2^31 GPUs

  // The size class of a job of `gpus` GPUs, and the smallest size in a class.
  static int size_class(int gpus) {
    if (gpus <= EXACT) return std::max(gpus, 1) - 1;
    return EXACT - 7 + std::bit_width(static_cast<unsigned>(gpus - 1));  // 65..128 -> EXACT
  }
  static int smallest_in_class(int c) { return c < EXACT ? c + 1 : (1 << (c - EXACT + 6)) + 1; }

  bool contains(std::uint32_t job) const { return job < where().size() && where()[job].heap >= 0; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Key& key(std::uint32_t job) const { return heaps_[where()[job].heap][where()[job].pos].key; }

  void insert(std::uint32_t job, int gpus, const Key& key) {
    std::vector<Where>& where_ = where();
    if (job >= where_.size()) where_.resize(std::max<std::size_t>(job + 1, where_.size() * 2));
    GCSIM_CHECK(where_[job].heap < 0, "order index: job " + std::to_string(job) + " is in it already");
    const int c = size_class(gpus);
    std::vector<Entry>& h = heaps_[c];
    h.push_back(Entry{key, job});
    where_[job] = Where{static_cast<std::int16_t>(c), static_cast<std::uint32_t>(h.size() - 1)};
    sift_up(c, h.size() - 1);
    ++size_;
    nonempty_[c >> 6] |= std::uint64_t{1} << (c & 63);
  }

  void erase(std::uint32_t job) {
    GCSIM_CHECK(contains(job), "order index: job " + std::to_string(job) + " is not in it");
    std::vector<Where>& where_ = where();
    const Where w = where_[job];
    std::vector<Entry>& h = heaps_[w.heap];
    where_[job].heap = -1;
    --size_;
    if (w.pos + 1 == h.size()) {
      h.pop_back();
      if (h.empty()) nonempty_[w.heap >> 6] &= ~(std::uint64_t{1} << (w.heap & 63));
      return;
    }
    const std::uint32_t moved = h.back().job;
    h[w.pos] = h.back();
    h.pop_back();
    where_[moved].pos = w.pos;
    sift_up(w.heap, w.pos);
    sift_down(w.heap, where_[moved].pos);
  }

  // Gives job `job` the key `key`, in its size class: as erase and insert, in one sift
  // from its place (las' promotions, a running job's new queue).
  void rekey(std::uint32_t job, const Key& key) {
    GCSIM_CHECK(contains(job), "order index: job " + std::to_string(job) + " is not in it");
    const Where w = where()[job];
    heaps_[w.heap][w.pos].key = key;
    sift_up(w.heap, w.pos);
    sift_down(w.heap, where()[job].pos);
  }

  // Gives every job in the index the key new_key(job) at once, its size class kept: each
  // heap is rebuilt bottom-up (Floyd), O(n) for n jobs, where n single updates would cost
  // O(n log n) (finish-time-fair moves every waiting job's key at each round). The order
  // visited afterwards is the keys' order, ties by job id, whatever the heaps' layout.
  template <class NewKey>
  void rekey_all(NewKey&& new_key) {
    std::vector<Where>& where_ = where();
    const auto after = [](const Entry& a, const Entry& b) { return before(b, a); };
    for (std::vector<Entry>& h : heaps_) {
      if (h.empty()) continue;
      for (Entry& e : h) e.key = new_key(e.job);
      std::make_heap(h.begin(), h.end(), after);  // the earliest on top, as sift_up/sift_down keep
      for (std::size_t i = 0; i < h.size(); ++i) where_[h[i].job].pos = static_cast<std::uint32_t>(i);
    }
  }

  // Visits jobs in key order: visit(job, fits), or visit(job, fits, key), returns
  // Visit::Stop to end the scan. Before
  // each job, fits(smallest size of its class) is asked; when false, visit is told so and
  // the rest of that class is dropped from this scan (free capacity only shrinks during a
  // pass). The index must not change during a scan.
  template <class Fits, class F>
  void scan(Fits&& fits, F&& visit) const {
    // A candidate carries its entry, so the candidate heap compares without reaching into
    // the class heaps (two dependent loads per comparison otherwise); a visited job's first
    // child replaces it on top (one sift down, where a pop and a push take two).
    const auto after = [](const Cand& a, const Cand& b) { return before(b.entry, a.entry); };
    cand_.clear();
    for (int word = 0; word < 2; ++word)  // the classes with jobs, without looking at the others
      for (std::uint64_t bits = nonempty_[word]; bits != 0; bits &= bits - 1) {
        const int c = word * 64 + std::countr_zero(bits);
        cand_.push_back(Cand{heaps_[c][0], static_cast<std::int16_t>(c), 0});
      }
    std::make_heap(cand_.begin(), cand_.end(), after);  // the earliest on top
    // Classes dropped in this scan: their jobs still among the candidates (siblings pushed
    // before the class stopped fitting) leave without a visit, so which jobs a scan visits
    // depends on the keys and the answers of fits alone, not on the heaps' layout.
    std::uint64_t dropped[2] = {0, 0};
    const auto pop_top = [this] {
      const Cand last = cand_.back();
      cand_.pop_back();
      if (!cand_.empty()) cand_sift_down(last);
    };
    while (!cand_.empty()) {
      const Cand x = cand_[0];
      std::uint64_t& dropped_word = dropped[x.heap >> 6];
      const std::uint64_t bit = std::uint64_t{1} << (x.heap & 63);
      if (dropped_word & bit) {
        pop_top();
        continue;
      }
      const bool class_fits = fits(smallest_in_class(x.heap));
      if (!class_fits) dropped_word |= bit;
      Visit v;
      if constexpr (std::is_invocable_v<F&, std::uint32_t, bool, const Key&>)
        v = visit(x.entry.job, class_fits, x.entry.key);  // the key, without looking the job up
      else
        v = visit(x.entry.job, class_fits);
      if (v == Visit::Stop) return;
      const std::vector<Entry>& h = heaps_[x.heap];
      const std::uint32_t child = 2 * x.pos + 1;
      if (!class_fits || child >= h.size()) {  // its children are the same class, or it has none
        pop_top();
        continue;
      }
      cand_sift_down(Cand{h[child], x.heap, child});
      if (child + 1 < h.size()) {
        cand_.push_back(Cand{h[child + 1], x.heap, child + 1});
        std::push_heap(cand_.begin(), cand_.end(), after);
      }
    }
  }

 private:
  struct Entry {
    Key key;
    std::uint32_t job;
  };
  struct Where {
    std::int16_t heap = -1;
    std::uint32_t pos = 0;
  };
  struct Cand {
    Entry entry;
    std::int16_t heap;
    std::uint32_t pos;
  };
  static bool before(const Entry& a, const Entry& b) {
    return a.key < b.key || (!(b.key < a.key) && a.job < b.job);
  }
  // The scan's candidate heap (earliest on top, as std::make_heap with `after` keeps it): c
  // put on top in place of the top and sifted down (a replace-top, which std lacks).
  void cand_sift_down(const Cand& c) const {
    std::size_t pos = 0;
    const std::size_t n = cand_.size();
    for (;;) {
      std::size_t kid = 2 * pos + 1;
      if (kid >= n) break;
      if (kid + 1 < n && before(cand_[kid + 1].entry, cand_[kid].entry)) ++kid;
      if (!before(cand_[kid].entry, c.entry)) break;
      cand_[pos] = cand_[kid];
      pos = kid;
    }
    cand_[pos] = c;
  }
  std::vector<Where>& where() { return slots_->where_; }
  const std::vector<Where>& where() const { return slots_->where_; }
  void place(int c, std::size_t pos, const Entry& e) {
    heaps_[c][pos] = e;
    where()[e.job].pos = static_cast<std::uint32_t>(pos);
  }
  void sift_up(int c, std::size_t pos) {
    std::vector<Entry>& h = heaps_[c];
    const Entry e = h[pos];
    while (pos > 0) {
      const std::size_t parent = (pos - 1) / 2;
      if (!before(e, h[parent])) break;
      place(c, pos, h[parent]);
      pos = parent;
    }
    place(c, pos, e);
  }
  void sift_down(int c, std::size_t pos) {
    std::vector<Entry>& h = heaps_[c];
    const Entry e = h[pos];
    for (;;) {
      std::size_t child = 2 * pos + 1;
      if (child >= h.size()) break;
      if (child + 1 < h.size() && before(h[child + 1], h[child])) ++child;
      if (!before(h[child], e)) break;
      place(c, pos, h[child]);
      pos = child;
    }
    place(c, pos, e);
  }

  static_assert(CLASSES <= 128, "nonempty_ has 128 bits");
  std::vector<Entry> heaps_[CLASSES];
  std::uint64_t nonempty_[2] = {0, 0};  // bit c: heaps_[c] has jobs
  Slots own_;
  Slots* slots_;  // &own_, or shared
  std::size_t size_ = 0;
  mutable std::vector<Cand> cand_;  // scratch of scan()
};

// A scan's answers to fits(gpus), kept per size class until the capacity they were asked
// of changes (changed(): a start, an undone start, a new limit): a scan asks before every
// job it visits, and the answer is the same for every job of a class in between.
class ClassFitMemo {
 public:
  template <class Ask>
  bool operator()(int gpus, Ask&& ask) {
    Slot& s = slots_[static_cast<std::size_t>(OrderIndex<double>::size_class(gpus))];
    if (s.version != version_ || s.gpus != gpus) s = Slot{version_, gpus, ask(gpus)};
    return s.fits;
  }
  void changed() { ++version_; }

 private:
  struct Slot {
    std::uint64_t version = 0;
    int gpus = 0;
    bool fits = false;
  };
  std::uint64_t version_ = 1;  // slots of version 0 were never asked
  std::array<Slot, OrderIndex<double>::CLASSES> slots_{};
};

}  // namespace gcsim::models
