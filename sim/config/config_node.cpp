// The format-neutral config tree: typed access that fails with a ConfigError naming the
// node's file, line, column and key path.
#include "sim/config/config_node.hpp"

#include "sim/config/node_access.hpp"

namespace gcsim::config {

namespace {

std::string describe(const ConfigNode& n) {
  if (n.is_null()) return "an empty value";
  if (n.is_scalar()) return "a scalar";
  return "a " + std::string(n.kind_name());
}

}  // namespace

std::string join_key_path(std::string_view parent, std::string_view key) {
  std::string out(parent);
  if (!out.empty()) out += '.';
  out += key;
  return out;
}

std::string join_index_path(std::string_view parent, std::size_t index) {
  return std::string(parent) + '[' + std::to_string(index) + ']';
}

std::string_view ConfigNode::kind_name() const {
  switch (kind_) {
    case Kind::Null: return "null";
    case Kind::Scalar: return "scalar";
    case Kind::Sequence: return "list";
    case Kind::Map: return "map";
  }
  return "null";
}

const std::string& ConfigNode::scalar() const {
  if (kind_ != Kind::Scalar) fail(ErrorCode::WrongType, "expected a single value, got " + describe(*this));
  return scalar_;
}

std::string detail::TreePlace::path() const {
  if (!up) return segment;
  if (is_index) return join_index_path(up->path(), index);
  return join_key_path(up->path(), segment);
}

std::string ConfigNode::path() const {
  std::string parent = place_ ? place_->path() : std::string();
  if (index_segment_) return join_index_path(parent, index_);
  return join_key_path(parent, segment_);
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
  return {static_cast<const ConfigNode*>(children_.get()), size_};
}

std::span<const ConfigNode::Entry> ConfigNode::entries() const {
  if (kind_ != Kind::Map) fail(ErrorCode::WrongType, "expected a map, got " + describe(*this));
  return {static_cast<const Entry*>(children_.get()), size_};
}

const ConfigNode* ConfigNode::find(std::string_view key) const {
  // Linear: scenario maps have a handful of keys, and document order must be kept anyway.
  for (const auto& [k, v] : entries())
    if (k == key) return &v;
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

void ConfigNode::fail(ErrorCode code, std::string detail) const { throw ConfigError(code, mark(), path(), std::move(detail)); }

ConfigNode ConfigNode::make_null(SourceMark mark, std::string path) {
  return NodeAccess::null(std::make_shared<const std::string>(std::move(mark.file)), mark.line, mark.column,
                          std::move(path));
}

ConfigNode ConfigNode::make_scalar(std::string text, bool quoted, SourceMark mark, std::string path) {
  ConfigNode n = make_null(std::move(mark), std::move(path));
  n.kind_ = Kind::Scalar;
  n.scalar_ = std::move(text);
  n.quoted_ = quoted;
  return n;
}

ConfigNode ConfigNode::make_sequence(std::vector<ConfigNode> items, SourceMark mark, std::string path) {
  const FileName file = std::make_shared<const std::string>(std::move(mark.file));
  return NodeAccess::sequence(std::move(items), file, mark.line, mark.column, std::move(path));
}

ConfigNode ConfigNode::make_map(std::vector<std::pair<std::string, ConfigNode>> entries, SourceMark mark,
                                std::string path) {
  return make_map(std::move(entries), {}, std::move(mark), std::move(path));
}

ConfigNode ConfigNode::make_map(std::vector<std::pair<std::string, ConfigNode>> entries,
                                std::vector<SourceMark> key_marks, SourceMark mark, std::string path) {
  // A mismatched list would attach marks to the wrong keys; fall back to value marks. The
  // marks are kept as positions in this node's file: builders give keys of one file.
  NodeAccess::KeyMarks marks;
  if (key_marks.size() == entries.size()) {
    marks.reserve(key_marks.size());
    for (const SourceMark& m : key_marks) marks.push_back({m.line, m.column});
  }
  const FileName file = std::make_shared<const std::string>(std::move(mark.file));
  return NodeAccess::map(std::move(entries), std::move(marks), file, mark.line, mark.column, std::move(path));
}

}  // namespace gcsim::config
