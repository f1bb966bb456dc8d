// Datasets staged on one node's local NVMe, kept for later jobs until evicted, least
// recently used first, when a new dataset needs the space. Datasets in use by a running
// job are pinned and never evicted.
#pragma once

#include <cstddef>
#include <list>
#include <string>
#include <string_view>
#include <vector>

namespace gcsim::models {

class StagingCache {
 public:
  explicit StagingCache(double capacity_bytes) : capacity_bytes_(capacity_bytes) {}

  bool contains(std::string_view dataset) const;
  // Marks a staged dataset as just used; false when it is not staged.
  bool touch(std::string_view dataset);
  // Whether `bytes` could be staged now (evicting unpinned datasets if needed).
  bool can_fit(double bytes) const;
  // Stages a dataset (or touches it when already there), evicting least recently used
  // unpinned datasets until it fits. Returns the evicted names, oldest first. Throws
  // std::length_error when it cannot fit even after evicting every unpinned dataset.
  std::vector<std::string> insert(std::string_view dataset, double bytes);
  bool erase(std::string_view dataset);

  void pin(std::string_view dataset);    // counts; a pinned dataset is never evicted
  void unpin(std::string_view dataset);

  double used_bytes() const { return used_bytes_; }
  double capacity_bytes() const { return capacity_bytes_; }
  std::size_t size() const { return entries_.size(); }
  // Most recently used first.
  std::vector<std::string> names() const;

 private:
  struct Entry {
    std::string name;
    double bytes;
    int pins = 0;
  };
  std::list<Entry>::iterator find(std::string_view dataset);
  std::list<Entry>::const_iterator find(std::string_view dataset) const;

  double capacity_bytes_;
  double used_bytes_ = 0;
  std::list<Entry> entries_;  // front = most recently used
};

}  // namespace gcsim::models
