// Builders for the loaders inside sim/config/ (YAML and CSV): they build ConfigNodes that
// share one file name per document and take positions as plain integers, which is what
// makes loading a 200,000-job list cost a few allocations per node rather than a dozen.
// Not for use outside sim/config/: everything else builds nodes with ConfigNode::make_*.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/config/config_node.hpp"

namespace gcsim::config {

using FileName = std::shared_ptr<const std::string>;
using SharedPath = std::shared_ptr<const std::string>;

// Where a node sits: its parent's path (shared by the siblings) and its own key or index.
struct NodePlace {
  SharedPath parent;  // null: `segment` is the whole path
  std::string segment;
  bool index = false;

  static NodePlace root() { return {}; }
  static NodePlace whole(std::string path) { return {nullptr, std::move(path), false}; }
  static NodePlace key(const SharedPath& parent, std::string_view key) { return {parent, std::string(key), false}; }
  static NodePlace item(const SharedPath& parent, std::size_t i) {
    return {parent, '[' + std::to_string(i) + ']', true};
  }
  // The full path, shared with the node's children.
  SharedPath shared() const {
    if (!parent) return std::make_shared<const std::string>(segment);
    return std::make_shared<const std::string>(index ? *parent + segment : join_key_path(*parent, segment));
  }
};

struct NodeAccess {
  using Entries = std::vector<std::pair<std::string, ConfigNode>>;
  using KeyMarks = std::vector<ConfigNode::LineColumn>;

  static ConfigNode null(const FileName& file, int line, int column, NodePlace place) {
    ConfigNode n;
    n.file_ = file;
    n.line_ = line;
    n.column_ = column;
    n.parent_path_ = std::move(place.parent);
    n.segment_ = std::move(place.segment);
    n.index_segment_ = place.index;
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
  template <class Place>
  static ConfigNode sequence(std::vector<ConfigNode> items, const FileName& file, int line, int column, Place place) {
    ConfigNode n = null(file, line, column, std::move(place));
    n.kind_ = ConfigNode::Kind::Sequence;
    if (!items.empty()) {
      auto c = std::make_shared<ConfigNode::Children>();
      c->items = std::move(items);
      n.children_ = std::move(c);
    }
    return n;
  }
  // key_marks.size() == entries.size(), positions in `file`.
  template <class Place>
  static ConfigNode map(Entries entries, KeyMarks key_marks, const FileName& file, int line, int column, Place place) {
    ConfigNode n = null(file, line, column, std::move(place));
    n.kind_ = ConfigNode::Kind::Map;
    if (!entries.empty()) {
      auto c = std::make_shared<ConfigNode::Children>();
      c->entries = std::move(entries);
      c->key_marks = std::move(key_marks);
      n.children_ = std::move(c);
    }
    return n;
  }
  static ConfigNode::LineColumn position(int line, int column) { return {line, column}; }
  static const FileName& file(const ConfigNode& n) { return n.file_; }
  static const KeyMarks& key_marks(const ConfigNode& n) {
    static const KeyMarks none;
    return n.children_ ? n.children_->key_marks : none;
  }
};

}  // namespace gcsim::config
