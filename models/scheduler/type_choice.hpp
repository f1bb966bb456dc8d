// What hetero, cost-aware and spot-fallback share: first in, first out (with fifo's
// blocking), and for each job a list of node types in the order the policy prefers them;
// the job takes the first of them where the placement strategy finds room now, or waits.
// The policies differ only in the list (docs/scheduling.md, "Choosing the node type"). A
// job's time on a type is its time left running alone there (ClusterView::speeds: the
// step-time model for model jobs, GPUs x peak x efficiency for FLOP jobs; a duration job
// takes its duration anywhere), its cost there that time x GPUs x the type's price per
// GPU-hour now (spot from its price profile, reserved the effective price, owned 0).
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include "models/scheduler/ordered.hpp"

namespace gcsim::models {

class TypeChoiceScheduler : public OrderedScheduler {
 public:
  using OrderedScheduler::OrderedScheduler;
  struct Option {
    int type;
    double time_s;    // time left alone on it
    double cost_usd;  // time_s x GPUs x price per GPU-hour now / 3600
  };

 protected:
  // The job's eligible types, each with its time and cost, in type order.
  void options(const ClusterView& cluster, const QueuedJob& job, std::vector<Option>& out) const;
  // The types to try, in order (a subset of options; may be empty: the job waits).
  virtual void prefer(const ClusterView& cluster, const QueuedJob& job, std::vector<Option>& options) const = 0;

  bool uses_lengths() const override { return false; }
  double order_key(const QueuedJob&) const override { return 0; }  // submit order
  bool place(const ClusterView& cluster, const QueuedJob& job, Decisions& out) override;
  bool chooses_types() const override { return true; }

 private:
  std::vector<Option> scratch_;
};

// Sorts options by key(option), smaller first, ties by type order.
template <class Key>
void sort_options(std::vector<TypeChoiceScheduler::Option>& options, Key&& key) {
  std::stable_sort(options.begin(), options.end(),
                   [&](const TypeChoiceScheduler::Option& a, const TypeChoiceScheduler::Option& b) { return key(a) < key(b); });
}

}  // namespace gcsim::models
