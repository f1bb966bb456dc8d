// A format-neutral configuration tree with source positions. The YAML loader is the only
// code that sees yaml-cpp; everything above it (the scenario specs, the catalogs) reads
// ConfigNodes, so that every error can name file, line, column and the dotted key path.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/errors.hpp"

namespace gcsim::config {

// A key or scalar: a view of text kept by the tree it belongs to (the document's own
// text, or the tree's storage for text that had to be unescaped). It is a string_view
// that also converts to std::string, so that code written for `const std::string&`
// (`std::string s = n.scalar();`, `"'" + n.scalar() + "'"`) reads it unchanged.
class TextView : public std::string_view {
 public:
  constexpr TextView() noexcept = default;
  constexpr TextView(std::string_view s) noexcept : std::string_view(s) {}  // NOLINT: implicit by design
  TextView(const std::string& s) noexcept : std::string_view(s) {}         // NOLINT
  constexpr TextView(const char* s) : std::string_view(s) {}                // NOLINT
  operator std::string() const { return std::string(data(), size()); }     // NOLINT
};
std::string operator+(const std::string& a, TextView b);
std::string operator+(std::string&& a, TextView b);
std::string operator+(TextView a, const std::string& b);
std::string operator+(const char* a, TextView b);
std::string operator+(TextView a, const char* b);

namespace detail {
class Tree;

// Where the children of one list or map sit: their parent's path, shared by all of them
// (one per list or map, not one per node), kept as a link to the place above and the
// collection's own key or index, and joined only when asked for. In its tree's storage.
struct TreePlace {
  const TreePlace* up = nullptr;  // null: `segment` is the whole path
  std::string_view segment;       // the collection's key (unless is_index)
  std::uint32_t index = 0;        // the collection's index in its list (is_index)
  bool is_index = false;

  std::string path() const;
};
}  // namespace detail

class ConfigNode {
 public:
  enum class Kind : std::uint8_t { Null, Scalar, Sequence, Map };
  using Entry = std::pair<TextView, ConfigNode>;

  ConfigNode() = default;
  // A copy keeps the whole tree it belongs to alive (its text, its places, its storage);
  // the nodes inside a tree do not count, so building one costs no reference counting.
  ConfigNode(const ConfigNode& o) noexcept : ConfigNode(o, Unowned{}) {
    if (tree_ != nullptr) {
      owner_ = true;
      retain();
    }
  }
  ConfigNode(ConfigNode&& o) noexcept : ConfigNode(o, Unowned{}) {
    owner_ = o.owner_;
    o.owner_ = false;
  }
  ConfigNode& operator=(const ConfigNode& o) noexcept {
    if (this != &o) *this = ConfigNode(o);
    return *this;
  }
  ConfigNode& operator=(ConfigNode&& o) noexcept {
    if (this != &o) {
      if (owner_) release();
      const bool owner = o.owner_;
      o.owner_ = false;
      new (this) ConfigNode(o, Unowned{});
      owner_ = owner;
    }
    return *this;
  }
  ~ConfigNode() {
    if (owner_) release();
  }

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::Null; }
  bool is_scalar() const { return kind_ == Kind::Scalar; }
  bool is_sequence() const { return kind_ == Kind::Sequence; }
  bool is_map() const { return kind_ == Kind::Map; }
  std::string_view kind_name() const;  // "null", "scalar", "list", "map"

  // Returned by value: a node keeps its line and column, and its tree the file name.
  SourceMark mark() const { return SourceMark{file_name(), line_, column_}; }
  // Dotted path from the document root: "cluster.node_types[0].gpus" ("" for the root).
  // Built on demand (it is needed for errors and a few records): a node keeps only its
  // own key or index and shares its parent's path with its siblings.
  std::string path() const;

  // The scalar's text (a view into the tree: valid while the node or a copy lives);
  // throws ConfigError(WrongType) naming this node when not a scalar.
  TextView scalar() const;
  // True when the scalar was written in quotes ("42"), so it is text, not a number.
  bool quoted() const { return quoted_; }

  // Sequence access; throws ConfigError(WrongType) when not a sequence.
  std::size_t size() const;
  const ConfigNode& at(std::size_t i) const;
  // The items sit in one block of the tree.
  std::span<const ConfigNode> items() const;

  // Map access, in document order; throws ConfigError(WrongType) when not a map.
  std::span<const Entry> entries() const;
  const ConfigNode* find(std::string_view key) const;
  // Where the i-th key itself is written (its value's mark when the builder gave none), so
  // that an unknown key is reported at the key, not at its value on the next line.
  SourceMark key_mark(std::size_t i) const;

  // Throws ConfigError(code) at this node's position and path. In a tree whose text is
  // hidden, the node's own text is replaced in `detail` (gcsim::hide_text).
  [[noreturn]] void fail(ErrorCode code, std::string detail) const;

  // Messages about this node's whole tree never quote its text: for trees read from a
  // file the scenario names (a CSV table, a catalog), which may be a link to any file
  // (docs/units.md, "Messages"). Keys are still named where the schema knows them.
  void hide_text_in_messages();
  bool text_hidden() const;

  // Builders, used by loaders and tests. Each makes a tree of its own (the children's
  // trees are kept alive by it).
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
  struct Unowned {};
  // A copy stored inside a tree: it does not keep the tree alive.
  ConfigNode(const ConfigNode& o, Unowned) noexcept
      : tree_(o.tree_),
        place_(o.place_),
        data_(o.data_),
        segment_(o.segment_),
        size_(o.size_),
        index_(o.index_),
        line_(o.line_),
        column_(o.column_),
        key_line_(o.key_line_),
        key_column_(o.key_column_),
        kind_(o.kind_),
        quoted_(o.quoted_),
        index_segment_(o.index_segment_),
        has_key_mark_(o.has_key_mark_),
        owner_(false) {}

  std::string file_name() const;
  void retain() const noexcept;
  void release() noexcept;

  // 64 bytes: the tree, the parent's place, the contents, the own key, then positions
  // and flags. No allocation of its own: text, places and children blocks are in the tree.
  detail::Tree* tree_ = nullptr;
  const detail::TreePlace* place_ = nullptr;  // the parent's path
  const void* data_ = nullptr;                // scalar: its chars; list: ConfigNode[size_]; map: Entry[size_]
  const char* segment_ = nullptr;             // own key, or the whole path without a place (index_ chars)
  std::uint32_t size_ = 0;                    // scalar: its length; list or map: items or entries
  std::uint32_t index_ = 0;                   // own index (index_segment_), else the segment's length
  int line_ = 0;
  int column_ = 0;
  int key_line_ = 0;  // in the file of the map holding it
  int key_column_ = 0;
  Kind kind_ = Kind::Null;
  bool quoted_ = false;
  bool index_segment_ = false;  // the node's own segment is index_ ("[i]"), not segment_
  bool has_key_mark_ = false;   // key_line_/key_column_ hold where its key is written
  bool owner_ = false;          // this copy keeps tree_ alive
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

// The memory a loaded document holds: its text, and its tree's own copy of the text and
// storage (for estimates of what loading a large document costs; docs/units.md, "Limits").
std::size_t document_memory_bytes(const ConfigDocument& document);

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
// `what` names the file in a read error ("rules file: no such file").
ConfigDocument load_yaml_file(const std::string& path, std::string_view what = "scenario");
// The same for text in memory; `file` is the label used in messages.
ConfigDocument load_yaml_string(std::string text, std::string file);
// The same for data a program reads (a trace's JSON job log), not a scenario: the
// document's `text` is left empty, so that the text is held once, by the tree (a large log
// is otherwise held twice more while it is read).
ConfigDocument load_yaml_data(std::string text, std::string file);

}  // namespace gcsim::config
