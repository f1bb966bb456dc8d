// Builders for the loaders inside sim/config/ (YAML and CSV): they build ConfigNodes that
// share one file name and one parent path per list or map, keep each key's position in
// the node under it, and put a list's or map's contents in one exactly sized block, which
// is what makes loading a 200,000-job list cost about two allocations per job.
// Not for use outside sim/config/: everything else builds nodes with ConfigNode::make_*.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/config/config_node.hpp"

namespace gcsim::config {

using FileName = std::shared_ptr<const std::string>;
// The place the children of one list or map share (their file and parent's path).
using SharedPath = std::shared_ptr<const detail::TreePlace>;

// Where a node sits: the place it shares with its siblings and its own key or index.
struct NodePlace {
  SharedPath parent;  // null: `segment` is the whole path
  std::string segment;
  bool index = false;
  std::uint32_t number = 0;  // the index, when `index`

  static NodePlace root() { return {}; }
  static NodePlace whole(std::string path) { return {nullptr, std::move(path), false, 0}; }
  static NodePlace key(const SharedPath& parent, std::string_view key) {
    return {parent, std::string(key), false, 0};
  }
  static NodePlace item(const SharedPath& parent, std::size_t i) {
    return {parent, std::string(), true, static_cast<std::uint32_t>(i)};
  }
  // The place of this node's children, in `file`.
  SharedPath shared(const FileName& file) const {
    return std::make_shared<const detail::TreePlace>(detail::TreePlace{file, parent, segment, number, index});
  }
  // The same in the parent's file (none without a parent: a node built there gets its own).
  SharedPath shared() const { return shared(parent ? parent->file : FileName()); }
};

struct NodeAccess {
  using Entries = std::vector<std::pair<std::string, ConfigNode>>;
  using KeyMarks = std::vector<ConfigNode::LineColumn>;

  static ConfigNode null(const FileName& file, int line, int column, NodePlace place) {
    ConfigNode n;
    n.line_ = line;
    n.column_ = column;
    if (place.parent && place.parent->file == file) {
      n.place_ = std::move(place.parent);
    } else if (place.parent) {
      // Built in another file than its siblings' place says: a place of its own.
      const detail::TreePlace& p = *place.parent;
      n.place_ = std::make_shared<const detail::TreePlace>(detail::TreePlace{file, p.up, p.segment, p.index, p.is_index});
    } else {
      n.place_ = std::make_shared<const detail::TreePlace>(detail::TreePlace{file, nullptr, std::string(), 0, false});
    }
    n.segment_ = std::move(place.segment);
    n.index_segment_ = place.index;
    n.index_ = place.number;
    return n;
  }
  static ConfigNode null(const FileName& file, int line, int column, std::string path) {
    return null(file, line, column, NodePlace::whole(std::move(path)));
  }
  template <class Place>
  static ConfigNode scalar(std::string text, bool quoted, const FileName& file, int line, int column, Place place) {
    ConfigNode n = null(file, line, column, std::move(place));
    n.kind_ = ConfigNode::Kind::Scalar;
    n.scalar_ = std::move(text);
    n.quoted_ = quoted;
    return n;
  }
  // Moves the buffer's items into the node's block and leaves the buffer empty, its
  // capacity kept for the next list.
  template <class Place>
  static ConfigNode sequence_from(std::vector<ConfigNode>& buffer, const FileName& file, int line, int column,
                                  Place place) {
    ConfigNode n = null(file, line, column, std::move(place));
    n.kind_ = ConfigNode::Kind::Sequence;
    n.children_ = block(buffer);
    n.size_ = static_cast<std::uint32_t>(buffer.size());
    buffer.clear();
    return n;
  }
  template <class Place>
  static ConfigNode sequence(std::vector<ConfigNode> items, const FileName& file, int line, int column, Place place) {
    return sequence_from(items, file, line, column, std::move(place));
  }
  // The same for a map; key_marks is empty (no key positions) or has one per entry, in
  // `file`. Each mark is kept in the value node it belongs to.
  template <class Place>
  static ConfigNode map_from(Entries& buffer, const KeyMarks& key_marks, const FileName& file, int line, int column,
                             Place place) {
    ConfigNode n = null(file, line, column, std::move(place));
    n.kind_ = ConfigNode::Kind::Map;
    if (key_marks.size() == buffer.size()) {
      for (std::size_t i = 0; i < buffer.size(); ++i) {
        ConfigNode& v = buffer[i].second;
        v.has_key_mark_ = true;
        v.key_line_ = key_marks[i].line;
        v.key_column_ = key_marks[i].column;
      }
    }
    n.children_ = block(buffer);
    n.size_ = static_cast<std::uint32_t>(buffer.size());
    buffer.clear();
    return n;
  }
  template <class Place>
  static ConfigNode map(Entries entries, const KeyMarks& key_marks, const FileName& file, int line, int column,
                        Place place) {
    return map_from(entries, key_marks, file, line, column, std::move(place));
  }
  static ConfigNode::LineColumn position(int line, int column) { return {line, column}; }
  static const FileName& file(const ConfigNode& n) {
    static const FileName none;
    return n.place_ ? n.place_->file : none;
  }
  // Where each key of a map is written (empty when the builder gave none).
  static KeyMarks key_marks(const ConfigNode& n) {
    KeyMarks out;
    const auto entries = n.entries();
    if (entries.empty() || !entries.front().second.has_key_mark_) return out;
    out.reserve(entries.size());
    for (const auto& e : entries) out.push_back({e.second.key_line_, e.second.key_column_});
    return out;
  }

 private:
  // One allocation for the block and its reference count; none for an empty list or map.
  template <class T>
  static std::shared_ptr<const void> block(std::vector<T>& buffer) {
    if (buffer.empty()) return nullptr;
    std::shared_ptr<T[]> out = std::make_shared<T[]>(buffer.size());
    for (std::size_t i = 0; i < buffer.size(); ++i) out[i] = std::move(buffer[i]);
    return out;
  }
};

}  // namespace gcsim::config
