// Builders for the loaders inside sim/config/ (YAML and CSV). A loaded document is one
// tree (detail::Tree): the document's text, which keys and plain scalars are views of, and
// one storage area from which everything else is carved, in large chunks: the nodes'
// blocks of children (exactly sized), the places that children share (their parent's
// path), and the text of scalars that had to be unescaped. A node built here does not
// keep its tree alive; the builder holds a TreeRef while it builds, and hands out the
// root as a counting copy (NodeAccess::owned). Loading a 200,000-job list so costs no
// allocation per job and about 420 bytes of storage per job.
// Not for use outside sim/config/: everything else builds nodes with ConfigNode::make_*.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/config/config_node.hpp"

namespace gcsim::config {

namespace detail {

// One document's storage; counted by the ConfigNode copies that keep it (and by TreeRefs).
class Tree {
 public:
  explicit Tree(std::string file) : file_(std::move(file)) {}
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;
  ~Tree();

  const std::string& file() const { return file_; }
  // The text of a file the user did not write (ConfigNode::hide_text_in_messages).
  bool text_hidden() const { return text_hidden_; }
  void hide_text() { text_hidden_ = true; }

  // The text that views given to the builders may point into (kept for the tree's life).
  std::string_view adopt_text(std::string text) {
    text_ = std::move(text);
    return text_;
  }

  // `bytes` of storage aligned for a ConfigNode, uninitialised, for the tree's life.
  void* allocate(std::size_t bytes) {
    bytes = (bytes + ALIGN - 1) & ~(ALIGN - 1);
    if (bytes > left_) return grow(bytes);
    void* p = next_;
    next_ += bytes;
    left_ -= bytes;
    return p;
  }
  // `s` copied into the storage.
  std::string_view copy(std::string_view s);
  // `s` itself when it lies in the adopted text, else a copy.
  std::string_view keep(std::string_view s) {
    if (s.empty()) return {};
    if (s.data() >= text_.data() && s.data() + s.size() <= text_.data() + text_.size()) return s;
    return copy(s);
  }
  // Nodes of `other` are stored in this tree: keep it alive as long as this one.
  void keep_alive(Tree* other);
  // What it holds: its text and its storage chunks (for memory estimates).
  std::size_t memory_bytes() const { return text_.capacity() + chunk_bytes_; }

  void retain() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
  void release() noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

 private:
  static constexpr std::size_t ALIGN = alignof(ConfigNode);
  static constexpr std::size_t FIRST_CHUNK = 512;
  static constexpr std::size_t MAX_CHUNK = std::size_t{1} << 20;

  void* grow(std::size_t bytes);

  std::atomic<std::size_t> refs_{0};
  std::string file_;
  std::string text_;
  std::vector<std::unique_ptr<std::byte[]>> chunks_;
  std::byte* next_ = nullptr;
  std::size_t left_ = 0;
  std::size_t chunk_size_ = FIRST_CHUNK;
  std::size_t chunk_bytes_ = 0;  // all chunks' sizes
  std::vector<Tree*> kept_;  // counted
  bool text_hidden_ = false;
};

}  // namespace detail

// Holds a tree alive while a builder fills it.
class TreeRef {
 public:
  explicit TreeRef(std::string file) : t_(new detail::Tree(std::move(file))) { t_->retain(); }
  TreeRef(const TreeRef&) = delete;
  TreeRef& operator=(const TreeRef&) = delete;
  ~TreeRef() { t_->release(); }
  detail::Tree& operator*() const { return *t_; }
  detail::Tree* operator->() const { return t_; }

 private:
  detail::Tree* t_;
};

// Where a node sits: the place it shares with its siblings and its own key or index.
// The segment is a view; the builders keep it in the tree (Tree::keep) as they use it.
struct NodePlace {
  const detail::TreePlace* parent = nullptr;  // null: `segment` is the whole path
  std::string_view segment;
  bool index = false;
  std::uint32_t number = 0;  // the index, when `index`

  static NodePlace root() { return {}; }
  static NodePlace whole(std::string_view path) { return {nullptr, path, false, 0}; }
  static NodePlace key(const detail::TreePlace* parent, std::string_view key) { return {parent, key, false, 0}; }
  static NodePlace item(const detail::TreePlace* parent, std::size_t i) {
    return {parent, {}, true, static_cast<std::uint32_t>(i)};
  }
  // The place of this node's children, in `tree`.
  const detail::TreePlace* shared(detail::Tree& tree) const {
    auto* p = static_cast<detail::TreePlace*>(tree.allocate(sizeof(detail::TreePlace)));
    return new (p) detail::TreePlace{parent, tree.keep(segment), number, index};
  }
};

struct NodeAccess {
  // The memory of the tree `n` is a node of (Tree::memory_bytes); 0 for a node of none.
  static std::size_t tree_bytes(const ConfigNode& n) { return n.tree_ ? n.tree_->memory_bytes() : 0; }
  using Entry = ConfigNode::Entry;
  using Entries = std::vector<Entry>;
  using KeyMarks = std::vector<ConfigNode::LineColumn>;
  using Tree = detail::Tree;

  static ConfigNode null(Tree& tree, int line, int column, const NodePlace& place) {
    ConfigNode n;
    n.tree_ = &tree;
    n.line_ = line;
    n.column_ = column;
    n.place_ = place.parent;
    if (place.index) {
      n.index_segment_ = true;
      n.index_ = place.number;
    } else {
      const std::string_view s = tree.keep(place.segment);
      n.segment_ = s.data();
      n.index_ = static_cast<std::uint32_t>(s.size());
    }
    return n;
  }
  static ConfigNode null(Tree& tree, int line, int column, std::string_view path) {
    return null(tree, line, column, NodePlace::whole(path));
  }
  // `text` is kept in the tree (a view when it lies in the tree's text).
  template <class Place>
  static ConfigNode scalar(Tree& tree, std::string_view text, bool quoted, int line, int column, const Place& place) {
    ConfigNode n = null(tree, line, column, place);
    n.kind_ = ConfigNode::Kind::Scalar;
    const std::string_view kept = tree.keep(text);
    n.data_ = kept.data();
    n.size_ = static_cast<std::uint32_t>(kept.size());
    n.quoted_ = quoted;
    return n;
  }
  // The same for text already in the tree (an alias's copy of a scalar).
  template <class Place>
  static ConfigNode scalar_kept(Tree& tree, std::string_view kept, bool quoted, int line, int column,
                                const Place& place) {
    ConfigNode n = null(tree, line, column, place);
    n.kind_ = ConfigNode::Kind::Scalar;
    n.data_ = kept.data();
    n.size_ = static_cast<std::uint32_t>(kept.size());
    n.quoted_ = quoted;
    return n;
  }
  // Copies the buffer's items into a block of the tree and leaves the buffer empty, its
  // capacity kept for the next list.
  template <class Place>
  static ConfigNode sequence_from(Tree& tree, std::vector<ConfigNode>& buffer, int line, int column,
                                  const Place& place) {
    ConfigNode n = null(tree, line, column, place);
    n.kind_ = ConfigNode::Kind::Sequence;
    if (!buffer.empty()) {
      auto* block = static_cast<ConfigNode*>(tree.allocate(buffer.size() * sizeof(ConfigNode)));
      for (std::size_t i = 0; i < buffer.size(); ++i) {
        if (buffer[i].tree_ != &tree && buffer[i].tree_ != nullptr) tree.keep_alive(buffer[i].tree_);
        new (block + i) ConfigNode(buffer[i], ConfigNode::Unowned{});
      }
      n.data_ = block;
    }
    n.size_ = static_cast<std::uint32_t>(buffer.size());
    buffer.clear();
    return n;
  }
  template <class Place>
  static ConfigNode sequence(Tree& tree, std::vector<ConfigNode> items, int line, int column, const Place& place) {
    return sequence_from(tree, items, line, column, place);
  }
  // The same for a map; key_marks is empty (no key positions) or has one per entry, in
  // the tree's file. Each mark is kept in the value node it belongs to. Keys must be in
  // the tree already (Tree::keep).
  template <class Place>
  static ConfigNode map_from(Tree& tree, Entries& buffer, const KeyMarks& key_marks, int line, int column,
                             const Place& place) {
    ConfigNode n = null(tree, line, column, place);
    n.kind_ = ConfigNode::Kind::Map;
    const bool marks = key_marks.size() == buffer.size();
    if (!buffer.empty()) {
      auto* block = static_cast<Entry*>(tree.allocate(buffer.size() * sizeof(Entry)));
      for (std::size_t i = 0; i < buffer.size(); ++i) {
        const ConfigNode& v = buffer[i].second;
        if (v.tree_ != &tree && v.tree_ != nullptr) tree.keep_alive(v.tree_);
        Entry* e = new (block + i) Entry(buffer[i].first, ConfigNode(v, ConfigNode::Unowned{}));
        if (marks && key_marks[i].line > 0) {  // line 0: no position of its own (the value's is used)
          e->second.has_key_mark_ = true;
          e->second.key_line_ = key_marks[i].line;
          e->second.key_column_ = key_marks[i].column;
        }
      }
      n.data_ = block;
    }
    n.size_ = static_cast<std::uint32_t>(buffer.size());
    buffer.clear();
    return n;
  }
  template <class Place>
  static ConfigNode map(Tree& tree, Entries entries, const KeyMarks& key_marks, int line, int column,
                        const Place& place) {
    return map_from(tree, entries, key_marks, line, column, place);
  }
  // A copy of `n` that keeps its tree alive: what a builder hands out.
  static ConfigNode owned(const ConfigNode& n) { return ConfigNode(n); }
  static ConfigNode::LineColumn position(int line, int column) { return {line, column}; }
  // Where each key of a map is written (empty when the builder gave none).
  static KeyMarks key_marks(const ConfigNode& n) {
    KeyMarks out;
    const auto entries = n.entries();
    if (entries.empty() || !entries.front().second.has_key_mark_) return out;
    out.reserve(entries.size());
    for (const auto& e : entries) out.push_back({e.second.key_line_, e.second.key_column_});
    return out;
  }
};

}  // namespace gcsim::config
