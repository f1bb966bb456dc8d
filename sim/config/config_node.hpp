// A format-neutral configuration tree with source positions. The YAML loader is the only
// code that sees yaml-cpp; everything above it (the scenario specs, the catalogs) reads
// ConfigNodes, so that every error can name file, line, column and the dotted key path.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/errors.hpp"

namespace gcsim::config {

class ConfigNode {
 public:
  enum class Kind { Null, Scalar, Sequence, Map };

  ConfigNode() = default;

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::Null; }
  bool is_scalar() const { return kind_ == Kind::Scalar; }
  bool is_sequence() const { return kind_ == Kind::Sequence; }
  bool is_map() const { return kind_ == Kind::Map; }
  std::string_view kind_name() const;  // "null", "scalar", "list", "map"

  // Returned by value: a node keeps its line and column and shares its file name with the
  // rest of its document, since a per-node copy of the name cost an allocation per node.
  SourceMark mark() const { return SourceMark{file_ ? *file_ : std::string(), line_, column_}; }
  // Dotted path from the document root: "cluster.node_types[0].gpus" ("" for the root).
  // Built on demand (it is needed for errors and a few records): a node keeps only its
  // own key or index and shares its parent's path with its siblings.
  std::string path() const;

  // The scalar's text; throws ConfigError(WrongType) naming this node when not a scalar.
  const std::string& scalar() const;
  // True when the scalar was written in quotes ("42"), so it is text, not a number.
  bool quoted() const { return quoted_; }

  // Sequence access; throws ConfigError(WrongType) when not a sequence.
  std::size_t size() const;
  const ConfigNode& at(std::size_t i) const;
  const std::vector<ConfigNode>& items() const;

  // Map access, in document order; throws ConfigError(WrongType) when not a map.
  const std::vector<std::pair<std::string, ConfigNode>>& entries() const;
  const ConfigNode* find(std::string_view key) const;
  // Where the i-th key itself is written (its value's mark when the builder gave none), so
  // that an unknown key is reported at the key, not at its value on the next line.
  SourceMark key_mark(std::size_t i) const;

  // Throws ConfigError(code) at this node's position and path.
  [[noreturn]] void fail(ErrorCode code, std::string detail) const;

  // Builders, used by loaders and tests.
  static ConfigNode make_null(SourceMark mark, std::string path);
  static ConfigNode make_scalar(std::string text, bool quoted, SourceMark mark, std::string path);
  static ConfigNode make_sequence(std::vector<ConfigNode> items, SourceMark mark, std::string path);
  static ConfigNode make_map(std::vector<std::pair<std::string, ConfigNode>> entries, SourceMark mark,
                             std::string path);
  // The same with the position of each key (key_marks.size() == entries.size()).
  static ConfigNode make_map(std::vector<std::pair<std::string, ConfigNode>> entries,
                             std::vector<SourceMark> key_marks, SourceMark mark, std::string path);

 private:
  friend struct NodeAccess;  // the loaders' builders (sim/config/node_access.hpp)

  struct LineColumn {
    int line = 0;
    int column = 0;
  };
  // A list's or map's contents, shared (immutable) between copies of the node; a scalar
  // has none, which keeps the node small.
  struct Children {
    std::vector<ConfigNode> items;
    std::vector<std::pair<std::string, ConfigNode>> entries;
    std::vector<LineColumn> key_marks;  // empty, or one per entry (in file_)
  };

  Kind kind_ = Kind::Null;
  bool quoted_ = false;
  bool index_segment_ = false;  // segment_ is "[i]", joined without a dot
  int line_ = 0;
  int column_ = 0;
  std::shared_ptr<const std::string> file_;         // one per document
  std::shared_ptr<const std::string> parent_path_;  // null: segment_ is the whole path
  std::string segment_;
  std::string scalar_;
  std::shared_ptr<const Children> children_;
};

// Dotted key paths: join_key_path("cluster", "gpus") == "cluster.gpus",
// join_key_path("", "cluster") == "cluster", join_index_path("jobs", 3) == "jobs[3]".
std::string join_key_path(std::string_view parent, std::string_view key);
std::string join_index_path(std::string_view parent, std::size_t index);

// A loaded document keeps its source text (traces embed it, so any run can be redone).
struct ConfigDocument {
  std::string file;  // the path as given
  std::string text;  // the exact bytes read
  ConfigNode root;
};

// Reads and parses a YAML file. Throws ConfigError: FileNotFound, EmptyFile (nothing but
// whitespace/comments), Syntax (with yaml-cpp's line/column; also several documents in
// one file), TooDeep (nesting > MAX_DEPTH, or aliases that expand to more than
// MAX_ALIAS_NODES nodes or MAX_ALIAS_BYTES of text in all), Duplicate (a key repeated in
// one map), WrongType (a list or map as a key). Nothing else escapes: any other failure
// inside yaml-cpp becomes Syntax. The size of what is written out is bounded only by the
// file size limit: a 200,000-job list is an honest file, "billion laughs" is not.
inline constexpr int MAX_DEPTH = 64;
inline constexpr std::size_t MAX_ALIAS_NODES = 1'000'000;
inline constexpr std::size_t MAX_ALIAS_BYTES = 64u * 1024u * 1024u;
ConfigDocument load_yaml_file(const std::string& path);
// The same for text in memory; `file` is the label used in messages.
ConfigDocument load_yaml_string(std::string text, std::string file);

}  // namespace gcsim::config
