// The format-neutral config tree: typed access that fails with a ConfigError naming the
// node's file, line, column and key path; the tree's storage.
#include "sim/config/config_node.hpp"

#include <algorithm>
#include <cstring>

#include "sim/config/node_access.hpp"

namespace gcsim::config {

namespace {

std::string describe(const ConfigNode& n) {
  if (n.is_null()) return "an empty value";
  if (n.is_scalar()) return "a scalar";
  return "a " + std::string(n.kind_name());
}

}  // namespace

std::string operator+(const std::string& a, TextView b) {
  std::string out;
  out.reserve(a.size() + b.size());
  out += a;
  out += b;
  return out;
}
std::string operator+(std::string&& a, TextView b) {
  a += b;
  return std::move(a);
}
std::string operator+(TextView a, const std::string& b) {
  std::string out(a);
  out += b;
  return out;
}
std::string operator+(const char* a, TextView b) {
  std::string out(a);
  out += b;
  return out;
}
std::string operator+(TextView a, const char* b) {
  std::string out(a);
  out += b;
  return out;
}

namespace detail {

Tree::~Tree() {
  for (Tree* t : kept_) t->release();
}

void* Tree::grow(std::size_t bytes) {
  // A block larger than half a chunk gets a chunk of its own, and the current one stays
  // in use; otherwise a new chunk, each twice the last up to MAX_CHUNK.
  if (bytes > chunk_size_ / 2 && bytes > FIRST_CHUNK) {
    chunks_.emplace_back(new std::byte[bytes]);
    chunk_bytes_ += bytes;
    return chunks_.back().get();
  }
  while (chunk_size_ < bytes) chunk_size_ *= 2;
  chunks_.emplace_back(new std::byte[chunk_size_]);
  chunk_bytes_ += chunk_size_;
  next_ = chunks_.back().get();
  left_ = chunk_size_;
  chunk_size_ = std::min(chunk_size_ * 2, MAX_CHUNK);
  void* p = next_;
  next_ += bytes;
  left_ -= bytes;
  return p;
}

std::string_view Tree::copy(std::string_view s) {
  if (s.empty()) return {};
  char* p = static_cast<char*>(allocate(s.size()));
  std::memcpy(p, s.data(), s.size());
  return {p, s.size()};
}

void Tree::keep_alive(Tree* other) {
  if (other == this || (!kept_.empty() && kept_.back() == other)) return;
  if (std::find(kept_.begin(), kept_.end(), other) != kept_.end()) return;
  other->retain();
  kept_.push_back(other);
}

std::string TreePlace::path() const {
  if (!up) return std::string(segment);
  if (is_index) return join_index_path(up->path(), index);
  return join_key_path(up->path(), segment);
}

}  // namespace detail

std::string join_key_path(std::string_view parent, std::string_view key) {
  std::string out(parent);
  if (!out.empty()) out += '.';
  out += key;
  return out;
}

std::string join_index_path(std::string_view parent, std::size_t index) {
  return std::string(parent) + '[' + std::to_string(index) + ']';
}

void ConfigNode::retain() const noexcept { tree_->retain(); }
void ConfigNode::release() noexcept { tree_->release(); }

std::string ConfigNode::file_name() const { return tree_ ? tree_->file() : std::string(); }

std::string_view ConfigNode::kind_name() const {
  switch (kind_) {
    case Kind::Null: return "null";
    case Kind::Scalar: return "scalar";
    case Kind::Sequence: return "list";
    case Kind::Map: return "map";
  }
  return "null";
}

TextView ConfigNode::scalar() const {
  if (kind_ != Kind::Scalar) fail(ErrorCode::WrongType, "expected a single value, got " + describe(*this));
  return std::string_view(static_cast<const char*>(data_), size_);
}

std::string ConfigNode::path() const {
  std::string parent = place_ ? place_->path() : std::string();
  if (index_segment_) return join_index_path(parent, index_);
  return join_key_path(parent, std::string_view(segment_, index_));
}

std::size_t ConfigNode::size() const { return items().size(); }

const ConfigNode& ConfigNode::at(std::size_t i) const {
  const auto all = items();
  if (i >= all.size())
    fail(ErrorCode::OutOfRange, "index " + std::to_string(i) + " beyond a list of " + std::to_string(all.size()) +
                                    " items");
  return all[i];
}

std::span<const ConfigNode> ConfigNode::items() const {
  if (kind_ != Kind::Sequence) fail(ErrorCode::WrongType, "expected a list, got " + describe(*this));
  return {static_cast<const ConfigNode*>(data_), size_};
}

std::span<const ConfigNode::Entry> ConfigNode::entries() const {
  if (kind_ != Kind::Map) fail(ErrorCode::WrongType, "expected a map, got " + describe(*this));
  return {static_cast<const Entry*>(data_), size_};
}

const ConfigNode* ConfigNode::find(std::string_view key) const {
  // Linear: scenario maps have a handful of keys, and document order must be kept anyway.
  for (const auto& [k, v] : entries())
    if (k.size() == key.size() && (key.empty() || k.front() == key.front()) && k == key) return &v;
  return nullptr;
}

SourceMark ConfigNode::key_mark(std::size_t i) const {
  const auto all = entries();
  if (i >= all.size())
    fail(ErrorCode::OutOfRange, "entry " + std::to_string(i) + " beyond a map of " + std::to_string(all.size()) +
                                    " entries");
  const ConfigNode& value = all[i].second;
  if (!value.has_key_mark_) return value.mark();
  return SourceMark{file_name(), value.key_line_, value.key_column_};
}

void ConfigNode::fail(ErrorCode code, std::string detail) const {
  if (text_hidden()) detail = hide_text(std::move(detail), is_scalar() ? std::string_view(scalar()) : std::string_view());
  throw ConfigError(code, mark(), path(), std::move(detail));
}

void ConfigNode::hide_text_in_messages() {
  if (tree_ != nullptr) tree_->hide_text();
}

bool ConfigNode::text_hidden() const { return tree_ != nullptr && tree_->text_hidden(); }

ConfigNode ConfigNode::make_null(SourceMark mark, std::string path) {
  TreeRef tree(std::move(mark.file));
  return NodeAccess::owned(NodeAccess::null(*tree, mark.line, mark.column, path));
}

ConfigNode ConfigNode::make_scalar(std::string text, bool quoted, SourceMark mark, std::string path) {
  TreeRef tree(std::move(mark.file));
  return NodeAccess::owned(
      NodeAccess::scalar(*tree, text, quoted, mark.line, mark.column, NodePlace::whole(path)));
}

ConfigNode ConfigNode::make_sequence(std::vector<ConfigNode> items, SourceMark mark, std::string path) {
  TreeRef tree(std::move(mark.file));
  return NodeAccess::owned(NodeAccess::sequence_from(*tree, items, mark.line, mark.column, NodePlace::whole(path)));
}

ConfigNode ConfigNode::make_map(std::vector<std::pair<std::string, ConfigNode>> entries, SourceMark mark,
                                std::string path) {
  return make_map(std::move(entries), {}, std::move(mark), std::move(path));
}

ConfigNode ConfigNode::make_map(std::vector<std::pair<std::string, ConfigNode>> entries,
                                std::vector<SourceMark> key_marks, SourceMark mark, std::string path) {
  // A mismatched list would attach marks to the wrong keys; fall back to value marks. The
  // marks are kept as positions in this node's file: a key written in another file (a
  // `--set` key added to a scenario's map) is marked where its value is written instead.
  NodeAccess::KeyMarks marks;
  if (key_marks.size() == entries.size()) {
    marks.reserve(key_marks.size());
    for (const SourceMark& m : key_marks) marks.push_back(m.file == mark.file ? NodeAccess::KeyMarks::value_type{m.line, m.column}
                                                                          : NodeAccess::KeyMarks::value_type{0, 0});
  }
  TreeRef tree(std::move(mark.file));
  NodeAccess::Entries kept;
  kept.reserve(entries.size());
  for (auto& [key, value] : entries) kept.emplace_back(tree->copy(key), std::move(value));
  return NodeAccess::owned(
      NodeAccess::map_from(*tree, kept, marks, mark.line, mark.column, NodePlace::whole(path)));
}

std::size_t document_memory_bytes(const ConfigDocument& document) {
  return document.text.capacity() + NodeAccess::tree_bytes(document.root);
}

}  // namespace gcsim::config
