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

  const SourceMark& mark() const { return mark_; }
  // Dotted path from the document root: "cluster.node_types[0].gpus" ("" for the root).
  const std::string& path() const { return path_; }

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
  const SourceMark& key_mark(std::size_t i) const;

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
  Kind kind_ = Kind::Null;
  SourceMark mark_;
  std::string path_;
  std::string scalar_;
  bool quoted_ = false;
  std::vector<ConfigNode> items_;
  std::vector<std::pair<std::string, ConfigNode>> entries_;
  std::vector<SourceMark> key_marks_;  // empty, or one per entry
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
// one file), TooDeep (nesting > MAX_DEPTH, or more than MAX_NODES nodes once aliases are
// expanded), Duplicate (a key repeated in one map), WrongType (a list or map as a key).
// Nothing else escapes: any other failure inside yaml-cpp becomes Syntax.
inline constexpr int MAX_DEPTH = 64;
inline constexpr std::size_t MAX_NODES = 1'000'000;
ConfigDocument load_yaml_file(const std::string& path);
// The same for text in memory; `file` is the label used in messages.
ConfigDocument load_yaml_string(std::string text, std::string file);

}  // namespace gcsim::config
