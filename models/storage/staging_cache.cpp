// LRU staging cache of one node's local NVMe (see staging_cache.hpp).
#include "models/storage/staging_cache.hpp"

#include <stdexcept>

namespace gcsim::models {

std::list<StagingCache::Entry>::iterator StagingCache::find(std::string_view dataset) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->name == dataset) return it;
  return entries_.end();
}

std::list<StagingCache::Entry>::const_iterator StagingCache::find(std::string_view dataset) const {
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->name == dataset) return it;
  return entries_.end();
}

bool StagingCache::contains(std::string_view dataset) const { return find(dataset) != entries_.end(); }

bool StagingCache::touch(std::string_view dataset) {
  auto it = find(dataset);
  if (it == entries_.end()) return false;
  entries_.splice(entries_.begin(), entries_, it);
  return true;
}

bool StagingCache::can_fit(double bytes) const {
  double pinned = 0;
  for (const Entry& e : entries_)
    if (e.pins > 0) pinned += e.bytes;
  return pinned + bytes <= capacity_bytes_;
}

std::vector<std::string> StagingCache::insert(std::string_view dataset, double bytes) {
  if (touch(dataset)) return {};
  if (!can_fit(bytes))
    throw std::length_error("dataset '" + std::string(dataset) + "' does not fit the node's local NVMe");
  std::vector<std::string> evicted;
  for (auto it = entries_.end(); used_bytes_ + bytes > capacity_bytes_ && it != entries_.begin();) {
    --it;
    if (it->pins > 0) continue;
    used_bytes_ -= it->bytes;
    evicted.push_back(it->name);
    it = entries_.erase(it);
  }
  entries_.push_front(Entry{std::string(dataset), bytes, 0});
  used_bytes_ += bytes;
  return evicted;
}

bool StagingCache::erase(std::string_view dataset) {
  auto it = find(dataset);
  if (it == entries_.end()) return false;
  used_bytes_ -= it->bytes;
  entries_.erase(it);
  return true;
}

void StagingCache::pin(std::string_view dataset) {
  auto it = find(dataset);
  if (it == entries_.end()) throw std::invalid_argument("dataset '" + std::string(dataset) + "' is not staged");
  ++it->pins;
}

void StagingCache::unpin(std::string_view dataset) {
  auto it = find(dataset);
  if (it != entries_.end() && it->pins > 0) --it->pins;
}

std::vector<std::string> StagingCache::names() const {
  std::vector<std::string> out;
  for (const Entry& e : entries_) out.push_back(e.name);
  return out;
}

}  // namespace gcsim::models
