// An order over waiting jobs whose keys move with time, each along its own straight line:
// key(t) = key(t0) + slope x (t - t0), the slope constant while the job is in the index
// (finish-time-fair's -rho of a waiting job falls at 1/T_ideal: finish_time_fair.hpp). A
// scan visits jobs in the order of their keys at one instant (set_time), ties by job id,
// exactly as an OrderIndex re-keyed at that instant would, without re-keying every job
// whenever the instant moves (docs/scheduling.md, "Speed": a re-keying per round of every waiting job
// was two thirds of finish-time-fair's time in a saturated cluster).
//
// Two parts. The cold part keeps jobs in binary heaps, one per (size class, slope class):
// size classes as OrderIndex's; slope classes by the slope's sign and binary exponent, so
// the slopes in one heap are within a factor of 2. Each heap is ordered by its jobs' keys
// at the heap's own anchor instant t_h. At a later instant t a job's key is at least its
// anchor key plus the heap's smallest slope times (t - t_h), and a heap's root has the
// smallest anchor key: so the roots give a lower bound L on every cold key at t. The hot
// part is an OrderIndex of jobs keyed exactly at t: jobs that joined since t was set, cold
// jobs moved in, and hot jobs kept from the instant before (below). A scan visits the hot part in order; a hot job is visited only when
// its key is below L (no cold job can come before it); when one is not, cold roots whose
// bound is not above it move to the hot part, and the scan goes on (the jobs it visited are
// passed over). When the instant moves, the hot jobs a scan reached since the last instant
// (visited, stopped at, or moved in) stay hot, re-keyed at the new instant: they are near the
// front, where the next scans look again (at 1,000,000 jobs in the bench, more than half of
// the moves were jobs that had been hot at the end of the instant before); the others go
// back to the cold heaps. So a scan costs what an OrderIndex scan does, and an instant
// costs the jobs that came near the front, not every waiting job. Bounds lose tightness as t - t_h grows (slopes differ
// within a heap); a heap from which more jobs moved than it holds is re-keyed at t
// (O(size), paid for by the moves it saves).
//
// Keys: `double at(std::uint32_t job, double t) const` (the job's key at time t, seconds)
// and `double slope(std::uint32_t job) const`, for a job while it is in the index. The
// bounds allow for floating-point rounding in at() (a relative 1e-9 of the magnitudes
// involved, far above the few ulps a linear formula loses): they may only be lower.
// Nothing allocates once the heaps and the scratch have grown to the workload's size.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "models/scheduler/order_index.hpp"
#include "sim/check.hpp"

namespace gcsim::models {

template <class Keys>
class DriftingOrderIndex {
 public:
  explicit DriftingOrderIndex(const Keys& keys) : keys_(&keys) {}
  DriftingOrderIndex(const DriftingOrderIndex&) = delete;
  DriftingOrderIndex& operator=(const DriftingOrderIndex&) = delete;

  static constexpr int SIZE_CLASSES = OrderIndex<double>::CLASSES;
  // Slope classes: 0 for slope 0, then by sign, binary exponent (clamped to +-EXP) and
  // SUB steps of the mantissa, so that slopes in one class are within a factor 1 + 1/SUB.
  static constexpr int EXP = 40;
  static constexpr int SUB = 16;
  static constexpr int SLOPE_CLASSES = 1 + 2 * (2 * EXP + 1) * SUB;

  bool contains(std::uint32_t job) const { return is_cold(job) || hot_.contains(job); }
  std::size_t size() const { return cold_size_ + hot_.size(); }
  bool empty() const { return size() == 0; }
  double time() const { return t_; }
  // The instant scans compare keys at, from now on: never earlier than the last one (0
  // at first). When it moves, the hot part's keys are stale: its jobs go back to the cold
  // heaps.
  void set_time(double t) {
    GCSIM_CHECK(t >= t_, "drifting order: time goes back from " + std::to_string(t_) + " to " + std::to_string(t));
    if (t == t_) return;
    t_ = t;
    // Hot jobs a scan reached since the last instant (visited, stopped at, or moved in) are
    // near the front and likely needed again: they stay, re-keyed at t; the others go back.
    // (A job that left and came back is listed twice: kept once.)
    constexpr std::uint64_t KEPT = ~std::uint64_t{0};
    kept_.clear();
    for (std::uint32_t job : hot_jobs_)
      if (hot_.contains(job) && marks_[job].reached != KEPT) {
        if (marks_[job].reached == instant_) {
          kept_.push_back(job);
          marks_[job].reached = KEPT;  // (never an instant: it stays next time only if reached again)
          continue;
        }
        hot_.erase(job);
        insert_cold(job);
      }
    hot_jobs_.swap(kept_);
    ++instant_;
    hot_.rekey_all([this](std::uint32_t job) { return keys_->at(job, t_); });
    // Every bound moved: the roots' order is rebuilt.
    for (int h : roots_) heaps_[static_cast<std::size_t>(h)].root_bound = bound(heaps_[static_cast<std::size_t>(h)], 0);
    std::make_heap(roots_.begin(), roots_.end(), [this](int a, int b) { return root_after(a, b); });
    for (std::uint32_t i = 0; i < roots_.size(); ++i) heaps_[static_cast<std::size_t>(roots_[i])].root_pos = i;
  }

  void insert(std::uint32_t job, int gpus) {
    GCSIM_CHECK(!contains(job), "drifting order: job " + std::to_string(job) + " is in it already");
    if (job >= marks_.size()) marks_.resize(std::max<std::size_t>(job + 1, marks_.size() * 2));
    marks_[job].gpus = gpus;
    insert_hot(job);
  }

  void erase(std::uint32_t job) {
    GCSIM_CHECK(contains(job), "drifting order: job " + std::to_string(job) + " is not in it");
    if (hot_.contains(job))
      hot_.erase(job);
    else
      erase_cold(job);
  }

  // Visits jobs in the order of their keys at time(), ties by job id: visit(job, fits)
  // returns Visit::Stop to end the scan. Before each job, fits(smallest size of its size
  // class) is asked; when false, visit is told so and the rest of that class is dropped
  // from this scan (as OrderIndex::scan). The index must not change during a scan.
  template <class Fits, class F>
  void scan(Fits&& fits, F&& visit) {
    ++scan_id_;
    std::size_t visited = 0;
    for (;;) {
      const double limit = cold_limit();
      bool more = false;  // stopped at a hot job a cold one may come before
      bool stopped = false;  // by visit
      double stop_key = 0;
      hot_.scan([&](int smallest) { return dropped_[static_cast<std::size_t>(OrderIndex<double>::size_class(smallest))] != scan_id_; },
                [&](std::uint32_t job, bool class_fits) {
                  marks_[job].reached = instant_;
                  if (!class_fits || visited_of(job) == scan_id_) return Visit::Next;  // reported already
                  const double key = hot_.key(job);
                  if (!(key < limit)) {
                    more = true;  // (cold_limit() >= key: some cold root's bound is not above key)
                    stop_key = key;
                    return Visit::Stop;
                  }
                  marks_[job].visited = scan_id_;
                  ++visited;
                  const int c = OrderIndex<double>::size_class(marks_[job].gpus);
                  const bool fit = fits(OrderIndex<double>::smallest_in_class(c));
                  if (!fit) dropped_[static_cast<std::size_t>(c)] = scan_id_;
                  if (visit(job, fit) == Visit::Stop) {
                    stopped = true;
                    return Visit::Stop;
                  }
                  return Visit::Next;
                });
      if (stopped) return;
      if (more) {
        // The next turn passes over the jobs visited so far again: at least as many move
        // in as were visited, so that a long scan (a round: ordered.hpp) costs linear time.
        warm(stop_key, visited);
        continue;
      }
      // The hot part is done but not the scan: cold jobs come next. At least as many move
      // as the scan visited, so that a long scan costs linear time.
      if (cold_size_ == 0 || !warm(std::numeric_limits<double>::infinity(), std::max<std::size_t>(visited, 1))) return;
    }
  }

  // Heap re-keyings and jobs moved from the cold part to the hot so far (for tests and
  // benchmarks).
  std::uint64_t rekeys() const { return rekeys_; }
  std::uint64_t moves() const { return moves_; }

 private:
  struct Entry {
    double key;  // at the heap's anchor
    std::uint32_t job;
  };
  struct Where {
    int heap = -1;
    std::uint32_t pos = 0;
  };
  struct Heap {
    std::vector<Entry> entries;
    int size_class = 0;
    double anchor_s = 0;
    double min_slope = 0;
    double root_bound = 0;     // bound(0), kept current while the heap is in roots_
    std::uint32_t root_pos = 0;  // in roots_
    std::size_t moved = 0;     // jobs moved to the hot part since the last re-keying
  };

  static bool before(double ka, std::uint32_t ja, double kb, std::uint32_t jb) {
    return ka < kb || (!(kb < ka) && ja < jb);
  }
  static bool entry_after(const Entry& a, const Entry& b) { return before(b.key, b.job, a.key, a.job); }
  bool root_after(int a, int b) const {
    return heaps_[static_cast<std::size_t>(b)].root_bound < heaps_[static_cast<std::size_t>(a)].root_bound;
  }

  static int slope_class(double slope) {
    if (slope == 0) return 0;
    const double m = std::abs(slope);
    const int e = std::ilogb(m);
    const int sub = std::clamp(static_cast<int>((std::scalbn(m, -e) - 1.0) * SUB), 0, SUB - 1);
    const int k = (std::clamp(e, -EXP, EXP) + EXP) * SUB + sub;  // 0 .. (2 EXP + 1) SUB - 1
    return slope < 0 ? 1 + k : 1 + (2 * EXP + 1) * SUB + k;
  }
  // The heap of a (size class, slope class), made at its first use.
  int heap_of(int size_class, int slope_class) {
    int& id = heap_id_[static_cast<std::size_t>(size_class) * SLOPE_CLASSES + static_cast<std::size_t>(slope_class)];
    if (id < 0) {
      id = static_cast<int>(heaps_.size());
      heaps_.emplace_back();
      heaps_.back().size_class = size_class;
    }
    return id;
  }

  // Re-keys heap h at time(): anchor keys recomputed, the heap rebuilt.
  void rekey(int h) {
    Heap& heap = heaps_[static_cast<std::size_t>(h)];
    heap.anchor_s = t_;
    heap.moved = 0;
    ++rekeys_;
    if (heap.entries.empty()) return;
    heap.min_slope = keys_->slope(heap.entries.front().job);
    for (Entry& e : heap.entries) {
      e.key = keys_->at(e.job, t_);
      heap.min_slope = std::min(heap.min_slope, keys_->slope(e.job));
    }
    std::make_heap(heap.entries.begin(), heap.entries.end(), entry_after);
    for (std::uint32_t i = 0; i < heap.entries.size(); ++i) where_[heap.entries[i].job].pos = i;
    root_changed(h);
  }
  // A lower bound at time() on the keys of heap h's subtree at pos.
  double bound(const Heap& heap, std::uint32_t pos) const {
    const double ka = heap.entries[pos].key;
    const double dt = t_ - heap.anchor_s;
    const double drift = heap.min_slope * dt;
    const double slack =
        1e-9 * (1 + std::abs(ka) + std::abs(drift) + std::abs(heap.min_slope) * (std::abs(t_) + std::abs(heap.anchor_s)));
    return ka + drift - slack;
  }

  // roots_: the heaps with entries, a binary heap by root_bound (the smallest first).
  void roots_place(std::size_t pos, int h) {
    roots_[pos] = h;
    heaps_[static_cast<std::size_t>(h)].root_pos = static_cast<std::uint32_t>(pos);
  }
  void roots_sift(std::size_t pos) {
    const int h = roots_[pos];
    while (pos > 0 && root_after(roots_[(pos - 1) / 2], h)) {
      roots_place(pos, roots_[(pos - 1) / 2]);
      pos = (pos - 1) / 2;
    }
    for (;;) {
      std::size_t child = 2 * pos + 1;
      if (child >= roots_.size()) break;
      if (child + 1 < roots_.size() && root_after(roots_[child], roots_[child + 1])) ++child;
      if (!root_after(h, roots_[child])) break;
      roots_place(pos, roots_[child]);
      pos = child;
    }
    roots_place(pos, h);
  }
  // Heap h's root changed (or it became empty, or got its first entry).
  void root_changed(int h) {
    Heap& heap = heaps_[static_cast<std::size_t>(h)];
    const bool listed = heap.root_pos < roots_.size() && roots_[heap.root_pos] == h;
    if (heap.entries.empty()) {
      if (!listed) return;
      const std::size_t pos = heap.root_pos;
      const int last = roots_.back();
      roots_.pop_back();
      if (pos < roots_.size()) {
        roots_place(pos, last);
        roots_sift(pos);
      }
      return;
    }
    heap.root_bound = bound(heap, 0);
    if (!listed) {
      roots_.push_back(h);
      heap.root_pos = static_cast<std::uint32_t>(roots_.size() - 1);
    }
    roots_sift(heap.root_pos);
  }

  bool is_cold(std::uint32_t job) const { return job < where_.size() && where_[job].heap >= 0; }
  std::uint64_t visited_of(std::uint32_t job) const { return marks_[job].visited; }
  bool dropped(int heap) const {
    return dropped_[static_cast<std::size_t>(heaps_[static_cast<std::size_t>(heap)].size_class)] == scan_id_;
  }

  void insert_hot(std::uint32_t job) {
    hot_.insert(job, marks_[job].gpus, keys_->at(job, t_));
    hot_jobs_.push_back(job);
  }
  // The cold heap, of a size class this scan has not dropped, whose root bound is the
  // smallest (-1: none): no such cold job has a key below its bound.
  int lowest_root() const {
    if (roots_.empty()) return -1;
    if (!dropped(roots_[0])) return roots_[0];
    int best = -1;  // a class was dropped: every heap is looked at
    for (int h : roots_)
      if (!dropped(h) && (best < 0 || root_after(best, h))) best = h;
    return best;
  }
  double cold_limit() const {
    const int h = lowest_root();
    return h < 0 ? std::numeric_limits<double>::infinity() : heaps_[static_cast<std::size_t>(h)].root_bound;
  }
  // Moves cold roots of classes this scan has not dropped to the hot part, the lowest bound
  // first, until the next job to visit is known: at least `at_least` of them, and every one
  // whose bound is not above the smallest of `key` (the hot job the scan stopped at) and
  // the keys moved so far. False when none is left to move.
  bool warm(double key, std::size_t at_least) {
    double next = key;
    for (std::size_t moved = 0;; ++moved) {
      const int best = lowest_root();
      if (best < 0) return moved > 0;
      Heap& heap = heaps_[static_cast<std::size_t>(best)];
      if (heap.root_bound > next && moved >= at_least) return true;
      const std::uint32_t job = heap.entries.front().job;
      erase_cold(job);
      insert_hot(job);
      marks_[job].reached = instant_;
      next = std::min(next, hot_.key(job));
      ++moves_;
      if (++heap.moved > std::max<std::size_t>(heap.entries.size(), 32)) rekey(best);
    }
  }

  void insert_cold(std::uint32_t job) {
    if (job >= where_.size()) where_.resize(std::max<std::size_t>(job + 1, where_.size() * 2));
    const double slope = keys_->slope(job);
    const int h = heap_of(OrderIndex<double>::size_class(marks_[job].gpus), slope_class(slope));
    Heap& heap = heaps_[static_cast<std::size_t>(h)];
    if (heap.entries.empty()) {
      heap.anchor_s = t_;
      heap.min_slope = slope;
      heap.moved = 0;
    }
    heap.min_slope = std::min(heap.min_slope, slope);
    heap.entries.push_back(Entry{keys_->at(job, heap.anchor_s), job});
    where_[job] = Where{h, static_cast<std::uint32_t>(heap.entries.size() - 1)};
    sift_up(heap, heap.entries.size() - 1);
    ++cold_size_;
    root_changed(h);  // (its bound, or the slope it bounds with, may have moved)
  }

  void erase_cold(std::uint32_t job) {
    const Where w = where_[job];
    Heap& heap = heaps_[static_cast<std::size_t>(w.heap)];
    where_[job].heap = -1;
    --cold_size_;
    if (w.pos + 1 == heap.entries.size()) {
      heap.entries.pop_back();
    } else {
      const std::uint32_t last = heap.entries.back().job;
      heap.entries[w.pos] = heap.entries.back();
      heap.entries.pop_back();
      where_[last].pos = w.pos;
      sift_up(heap, w.pos);
      sift_down(heap, where_[last].pos);
    }
    if (w.pos == 0 || heap.entries.empty()) root_changed(w.heap);
  }

  void place(Heap& heap, std::size_t pos, const Entry& e) {
    heap.entries[pos] = e;
    where_[e.job].pos = static_cast<std::uint32_t>(pos);
  }
  void sift_up(Heap& heap, std::size_t pos) {
    const Entry e = heap.entries[pos];
    while (pos > 0) {
      const std::size_t parent = (pos - 1) / 2;
      if (!before(e.key, e.job, heap.entries[parent].key, heap.entries[parent].job)) break;
      place(heap, pos, heap.entries[parent]);
      pos = parent;
    }
    place(heap, pos, e);
  }
  void sift_down(Heap& heap, std::size_t pos) {
    const Entry e = heap.entries[pos];
    const std::size_t n = heap.entries.size();
    for (;;) {
      std::size_t child = 2 * pos + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap.entries[child + 1].key, heap.entries[child + 1].job, heap.entries[child].key,
                                  heap.entries[child].job))
        ++child;
      if (!before(heap.entries[child].key, heap.entries[child].job, e.key, e.job)) break;
      place(heap, pos, heap.entries[child]);
      pos = child;
    }
    place(heap, pos, e);
  }

  const Keys* keys_;
  double t_ = 0;  // simulated time starts at 0
  OrderIndex<double> hot_;               // keys exactly at t_
  std::vector<std::uint32_t> hot_jobs_;  // jobs in hot_ (and some since left): kept at t_, or put in since
  std::vector<std::uint32_t> kept_;      // scratch of set_time
  std::uint64_t instant_ = 1;            // counts set_time's moves (Mark::reached 0: never)
  std::vector<int> heap_id_ = std::vector<int>(static_cast<std::size_t>(SIZE_CLASSES) * SLOPE_CLASSES, -1);
  std::vector<Heap> heaps_;  // the cold heaps made so far
  std::vector<int> roots_;   // the cold heaps with entries, by root bound
  std::vector<Where> where_;  // cold jobs' places
  // By job, together (a scan reads all three of each hot job it passes: one cache line).
  struct Mark {
    std::uint64_t visited = 0;  // the scan_id_ of the scan that last visited it
    std::uint64_t reached = 0;  // the instant_ at which a scan last reached it in hot_
    int gpus = 0;
  };
  std::vector<Mark> marks_;
  std::size_t cold_size_ = 0;
  std::uint64_t scan_id_ = 0;
  std::uint64_t rekeys_ = 0;
  std::uint64_t moves_ = 0;
  std::vector<std::uint64_t> dropped_ = std::vector<std::uint64_t>(SIZE_CLASSES, 0);  // scan_id_ when dropped
};

}  // namespace gcsim::models
