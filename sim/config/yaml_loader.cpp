// YAML text -> ConfigDocument. The only file that includes yaml-cpp: it builds ConfigNodes
// with 1-based positions and dotted paths from yaml-cpp's parser events, and turns every
// failure (including yaml-cpp's own exceptions) into a ConfigError with a stable code.
//
// Guards, because scenario files come from users and the fuzzer:
//  - a pre-scan rejects absurd nesting before yaml-cpp sees the text: yaml-cpp parses
//    recursively, so "[[[[..." a hundred thousand deep would otherwise exhaust the stack
//    (0.7 has its own depth guard, but its message is "bad file" with no useful position);
//  - the builder checks the exact depth, and caps the node count and text volume, since
//    aliases can expand a few hundred bytes into billions of nodes ("billion laughs") and
//    "&a [*a]" is a cycle;
//  - yaml-cpp 0.7 keeps duplicate keys silently, accepts an unclosed quote at the end of
//    the file, and loops forever in LoadAll on a stray top-level ','; the builder and the
//    document loop below catch all three.
#include <yaml-cpp/depthguard.h>  // YAML::DeepRecursion (not pulled in by yaml.h)
#include <yaml-cpp/yaml.h>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sim/config/config_node.hpp"
#include "sim/config/node_access.hpp"
#include "sim/config/regular_file.hpp"
#include "sim/config/yaml_plain.hpp"

namespace gcsim::config {

namespace {

constexpr std::size_t MAX_FILE_BYTES = 256u * 1024u * 1024u;  // a scenario is kilobytes

SourceMark to_mark(const std::string& file, const YAML::Mark& m) {
  if (m.is_null() || m.line < 0 || m.column < 0) return SourceMark{file, 0, 0};
  return SourceMark{file, m.line + 1, m.column + 1};
}

[[noreturn]] void fail_at(ErrorCode code, const std::string& file, int line, int column, std::string detail) {
  throw ConfigError(code, SourceMark{file, line, column}, "", std::move(detail));
}

// ---------------------------------------------------------------------------------------
// Pre-scan: a cheap, approximate YAML lexer that tracks quotes, comments, block scalars,
// flow brackets and indentation. It only needs to be right about nesting that yaml-cpp
// would really recurse on, and its block-depth estimate is a lower bound (the contrived
// exception: 64 continuation lines of one plain scalar, each indented deeper than the
// last), so valid scenarios are not refused. The builder checks the exact depth.
struct PreScan {
  bool has_content = false;
};

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

PreScan pre_scan(const std::string& text, const std::string& file) {
  PreScan out;
  int flow_depth = 0;
  bool in_double = false;
  bool in_single = false;
  bool in_block_scalar = false;
  std::size_t block_scalar_parent_indent = 0;
  std::vector<std::size_t> indents;  // enclosing block indentation levels
  int line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    const std::string_view line(text.data() + pos, eol - pos);
    ++line_no;
    pos = eol + 1;

    std::size_t indent = 0;
    while (indent < line.size() && line[indent] == ' ') ++indent;
    std::size_t first = indent;
    while (first < line.size() && is_blank(line[first])) ++first;
    const bool blank = first == line.size();

    if (in_block_scalar) {
      if (blank || indent > block_scalar_parent_indent) continue;
      in_block_scalar = false;
    }
    std::size_t i = 0;
    const bool structural_start = !in_double && !in_single && flow_depth == 0;
    if (structural_start) {
      if (blank || line[first] == '#') continue;
      // Directives and document markers are not content.
      if (indent == 0 && line[0] == '%') continue;
      if (indent == 0 && line.size() >= 3 && (line.substr(0, 3) == "---" || line.substr(0, 3) == "...") &&
          (line.size() == 3 || is_blank(line[3]))) {
        indents.clear();
        i = 3;
      } else {
        while (!indents.empty() && indents.back() >= indent) indents.pop_back();
        indents.push_back(indent);
        if (indents.size() - 1 > static_cast<std::size_t>(MAX_DEPTH))
          fail_at(ErrorCode::TooDeep, file, line_no, static_cast<int>(indent) + 1,
                  "nesting deeper than " + std::to_string(MAX_DEPTH) + " levels");
        i = indent;
      }
    }
    bool expect_node = structural_start;  // at a place where a new node may begin
    bool prev_space = true;
    int extra_dashes = 0;  // "- - x": compact nested sequences on one line
    bool seen_indicator = false;
    for (; i < line.size(); ++i) {
      const char c = line[i];
      if (in_double) {
        if (c == '\\') {
          ++i;
        } else if (c == '"') {
          in_double = false;
          expect_node = false;
        }
        continue;
      }
      if (in_single) {
        if (c == '\'') {
          if (i + 1 < line.size() && line[i + 1] == '\'') {
            ++i;
          } else {
            in_single = false;
            expect_node = false;
          }
        }
        continue;
      }
      if (is_blank(c)) {
        prev_space = true;
        continue;
      }
      const bool after_space = prev_space;
      prev_space = false;
      if (c == '#' && after_space) break;  // comment to end of line
      out.has_content = true;
      const bool next_blank = i + 1 >= line.size() || is_blank(line[i + 1]);
      if (c == '[' || c == '{') {
        if (flow_depth > 0 || expect_node) {
          ++flow_depth;
          const int block_depth = static_cast<int>(indents.size()) - 1 + extra_dashes;
          if (flow_depth > MAX_DEPTH || block_depth + flow_depth > MAX_DEPTH)
            fail_at(ErrorCode::TooDeep, file, line_no, static_cast<int>(i) + 1,
                    "nesting deeper than " + std::to_string(MAX_DEPTH) + " levels");
          expect_node = true;
          continue;
        }
      } else if ((c == ']' || c == '}') && flow_depth > 0) {
        --flow_depth;
        expect_node = false;
        continue;
      } else if (c == ',' && flow_depth > 0) {
        expect_node = true;
        continue;
      } else if (c == ':' && (next_blank || flow_depth > 0)) {
        expect_node = true;
        continue;
      } else if ((c == '-' || c == '?') && next_blank && expect_node) {
        if (flow_depth == 0) {
          if (seen_indicator && c == '-') ++extra_dashes;
          seen_indicator = true;
          const int block_depth = static_cast<int>(indents.size()) - 1 + extra_dashes;
          if (block_depth > MAX_DEPTH)
            fail_at(ErrorCode::TooDeep, file, line_no, static_cast<int>(i) + 1,
                    "nesting deeper than " + std::to_string(MAX_DEPTH) + " levels");
        }
        continue;
      } else if (expect_node && c == '"') {
        in_double = true;
        continue;
      } else if (expect_node && c == '\'') {
        in_single = true;
        continue;
      } else if (expect_node && (c == '&' || c == '!' || c == '*')) {
        // Anchor, tag or alias: skip the token; a node may still follow an anchor or tag.
        while (i + 1 < line.size() && !is_blank(line[i + 1]) &&
               !(flow_depth > 0 && (line[i + 1] == ',' || line[i + 1] == ']' || line[i + 1] == '}')))
          ++i;
        if (c == '*') expect_node = false;
        continue;
      } else if (expect_node && flow_depth == 0 && (c == '|' || c == '>')) {
        // Block scalar header: the following more-indented lines are text.
        std::size_t j = i + 1;
        while (j < line.size() && (line[j] == '+' || line[j] == '-' || (line[j] >= '0' && line[j] <= '9'))) ++j;
        while (j < line.size() && is_blank(line[j])) ++j;
        if (j == line.size() || line[j] == '#') {
          in_block_scalar = true;
          block_scalar_parent_indent = indent;
          break;
        }
      }
      // Part of a plain scalar. In flow context, flow indicators end it (handled above).
      expect_node = false;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// yaml-cpp parser events -> ConfigNode tree. Building from events rather than through
// YAML::Load gives every key its own mark, sees duplicate keys (YAML::Node keeps both
// silently), and lets us control the document loop: YAML::LoadAll never ends on a stray
// ',' at the top level (",", "[a],"), because the parser yields an empty document without
// consuming the token, forever.
class Builder : public YAML::EventHandler {
 public:
  Builder(const std::string& file, const std::string& text) : file_(file), tree_(file), text_(text) {}

  bool has_root() const { return root_.has_value(); }
  const ConfigNode& root() const { return *root_; }
  // A copy that keeps the tree alive (the builder's nodes do not).
  ConfigNode take_root() { return NodeAccess::owned(*root_); }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& m, YAML::anchor_t anchor) override {
    deferred([&] { on_null(m, anchor); });
  }
  void OnScalar(const YAML::Mark& m, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    deferred([&] { on_scalar(m, tag, anchor, value); });
  }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t anchor) override {
    deferred([&] { on_alias(m, anchor); });
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    deferred([&] { open(ConfigNode::Kind::Sequence, m, anchor); });
  }
  void OnSequenceEnd() override {
    deferred([&] { close(); });
  }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    deferred([&] { open(ConfigNode::Kind::Map, m, anchor); });
  }
  void OnMapEnd() override {
    deferred([&] { close(); });
  }

  // A tree error found while the parser is still running waits until the parser has
  // finished the document: a syntax error further on explains the odd events that caused
  // it ("{a: 1" without its '}' first looks like a map used as a key) and wins.
  void rethrow_deferred() const {
    if (error_) throw *error_;
  }

 private:
  template <class F>
  void deferred(F&& f) {
    if (error_) return;
    try {
      f();
    } catch (const ConfigError& e) {
      error_ = e;
      stack_.clear();  // stop building; the parser only needs to run to its end
      anchors_.clear();
      root_.reset();
    }
  }

  void on_null(const YAML::Mark& m, YAML::anchor_t anchor) {
    if (expecting_key()) fail_key(m, "an empty value");
    SourceMark mark = to_mark(file_, m);
    // "key:" with nothing after it: yaml-cpp gives the next token's position, often on a
    // later line; the key's position is what the user wants to see.
    if (!null_is_written(m) && !stack_.empty() && stack_.back().kind == ConfigNode::Kind::Map)
      mark = stack_.back().key_mark;
    std::string path = next_path();
    check_depth(mark, path, static_cast<int>(stack_.size()));
    add(NodeAccess::null(*tree_, mark.line, mark.column, path), anchor);
  }

  void on_scalar(const YAML::Mark& m, const std::string& tag, YAML::anchor_t anchor, const std::string& value) {
    // Plain scalars carry tag "?", quoted and block ones "!".
    const bool quoted = tag == "!" || tag == "tag:yaml.org,2002:str";
    SourceMark mark = to_mark(file_, m);
    if (tag == "!") check_quote_closed(m, mark, expecting_key() ? stack_.back().path : next_path());
    if (expecting_key()) {
      set_key(value, mark);
      if (anchor != 0) anchors_[anchor] = NodeAccess::scalar(*tree_, value, quoted, mark.line, mark.column, "");
      return;
    }
    std::string path = next_path();
    check_depth(mark, path, static_cast<int>(stack_.size()));
    add(NodeAccess::scalar(*tree_, value, quoted, mark.line, mark.column, path), anchor);
  }

  void on_alias(const YAML::Mark& m, YAML::anchor_t anchor) {
    const auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {
      // An anchor still open is one this alias sits inside: "&a [*a]" would be infinite.
      const bool cycle = open_anchors_.count(anchor) > 0;
      throw ConfigError(cycle ? ErrorCode::TooDeep : ErrorCode::Syntax, to_mark(file_, m),
                        expecting_key() ? stack_.back().path : next_path(),
                        cycle ? "an alias inside the node it refers to (infinite nesting)" : "unknown alias");
    }
    if (expecting_key()) {
      if (!it->second.is_scalar()) fail_key(m, it->second.is_null() ? "an empty value" : "a " + std::string(it->second.kind_name()));
      set_key(it->second.scalar(), to_mark(file_, m));
      return;
    }
    // A copy with paths of its new place; marks stay where the text is written.
    add(reroot(it->second, next_path(), static_cast<int>(stack_.size())), 0);
  }

  struct Frame {
    ConfigNode::Kind kind;
    SourceMark mark;
    std::string path;
    YAML::anchor_t anchor = 0;
    std::size_t expanded_at_start = 0;
    std::vector<ConfigNode> items;
    NodeAccess::Entries entries;
    NodeAccess::KeyMarks key_marks;
    std::unordered_map<std::string, int> seen;  // key -> line of its first occurrence
    bool have_key = false;
    std::string key;
    SourceMark key_mark;
  };

  bool expecting_key() const {
    return !stack_.empty() && stack_.back().kind == ConfigNode::Kind::Map && !stack_.back().have_key;
  }

  // The path of the node about to be added.
  std::string next_path() const {
    if (stack_.empty()) return "";
    const Frame& top = stack_.back();
    if (top.kind == ConfigNode::Kind::Sequence) return join_index_path(top.path, top.items.size());
    return join_key_path(top.path, top.key);
  }

  [[noreturn]] void fail_key(const YAML::Mark& m, const std::string& what) const {
    throw ConfigError(ErrorCode::WrongType, to_mark(file_, m), stack_.back().path, "a map key must be text, got " + what);
  }

  void set_key(const std::string& key, SourceMark mark) {
    Frame& top = stack_.back();
    const auto [first, inserted] = top.seen.emplace(key, mark.line);
    if (!inserted) {
      const std::string where = first->second > 0 ? " (first at line " + std::to_string(first->second) + ")" : "";
      throw ConfigError(ErrorCode::Duplicate, mark, join_key_path(top.path, key), "duplicate key '" + key + "'" + where);
    }
    top.key = key;
    top.key_mark = std::move(mark);
    top.have_key = true;
  }

  void open(ConfigNode::Kind kind, const YAML::Mark& m, YAML::anchor_t anchor) {
    if (expecting_key()) fail_key(m, kind == ConfigNode::Kind::Map ? "a map" : "a list");
    Frame f;
    f.kind = kind;
    f.mark = to_mark(file_, m);
    f.path = next_path();
    f.anchor = anchor;
    check_depth(f.mark, f.path, static_cast<int>(stack_.size()));
    f.expanded_at_start = expanded_;
    if (anchor != 0) open_anchors_.insert(anchor);
    stack_.push_back(std::move(f));
  }

  void close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    ConfigNode node = f.kind == ConfigNode::Kind::Sequence
                          ? NodeAccess::sequence_from(*tree_, f.items, f.mark.line, f.mark.column, f.path)
                          : NodeAccess::map_from(*tree_, f.entries, f.key_marks, f.mark.line, f.mark.column, f.path);
    if (f.anchor != 0) {
      open_anchors_.erase(f.anchor);
      // The stored copy holds the alias expansions inside it a second time; what is
      // written out in the file is not charged (the file size bounds it).
      charge(expanded_ - f.expanded_at_start, 0);
    }
    add(std::move(node), f.anchor);
  }

  void add(ConfigNode node, YAML::anchor_t anchor) {
    if (anchor != 0) anchors_[anchor] = node;  // redefinitions replace, as YAML says
    if (stack_.empty()) {
      root_ = std::move(node);
      return;
    }
    Frame& top = stack_.back();
    if (top.kind == ConfigNode::Kind::Sequence) {
      top.items.push_back(std::move(node));
    } else {
      top.entries.emplace_back(tree_->copy(top.key), std::move(node));
      top.key_marks.push_back(NodeAccess::position(top.key_mark.line, top.key_mark.column));
      top.have_key = false;
    }
  }

  // An alias's expansion: a copy with the paths of its new place (marks stay where the text
  // is written). Every node made here is charged to the alias budget.
  ConfigNode reroot(const ConfigNode& src, std::string path, int depth) {
    const SourceMark at = src.mark();
    check_depth(at, path, depth);
    switch (src.kind()) {
      case ConfigNode::Kind::Null:
        charge_expanded(path.size());
        return NodeAccess::null(*tree_, at.line, at.column, path);
      case ConfigNode::Kind::Scalar:
        charge_expanded(path.size() + src.scalar().size());
        return NodeAccess::scalar_kept(*tree_, src.scalar(), src.quoted(), at.line, at.column, path);
      case ConfigNode::Kind::Sequence: {
        charge_expanded(path.size());
        std::vector<ConfigNode> items;
        items.reserve(src.size());
        for (std::size_t i = 0; i < src.size(); ++i) items.push_back(reroot(src.at(i), join_index_path(path, i), depth + 1));
        return NodeAccess::sequence_from(*tree_, items, at.line, at.column, path);
      }
      case ConfigNode::Kind::Map: {
        charge_expanded(path.size());
        NodeAccess::Entries entries;
        entries.reserve(src.entries().size());
        for (const auto& [key, value] : src.entries()) {
          charge_expanded(key.size());
          entries.emplace_back(key, reroot(value, join_key_path(path, key), depth + 1));
        }
        return NodeAccess::map_from(*tree_, entries, NodeAccess::key_marks(src), at.line, at.column, path);
      }
    }
    return NodeAccess::null(*tree_, at.line, at.column, path);
  }

  void check_depth(const SourceMark& mark, const std::string& path, int depth) const {
    if (depth > MAX_DEPTH)
      throw ConfigError(ErrorCode::TooDeep, mark, path, "nesting deeper than " + std::to_string(MAX_DEPTH) + " levels");
  }

  // yaml-cpp 0.7 accepts a quote left open at the end of the file, silently swallowing
  // everything after it into the string (`name: "demo` eats the rest of the scenario).
  // Starting from yaml-cpp's own position of the opening quote, find the closing one.
  void check_quote_closed(const YAML::Mark& m, const SourceMark& mark, const std::string& path) const {
    if (m.is_null() || m.pos < 0 || static_cast<std::size_t>(m.pos) >= text_.size()) return;
    const auto start = static_cast<std::size_t>(m.pos);
    const char q = text_[start];
    if (q != '"' && q != '\'') return;
    for (std::size_t i = start + 1; i < text_.size(); ++i) {
      if (q == '"' && text_[i] == '\\') {
        ++i;
      } else if (text_[i] == q) {
        if (q == '\'' && i + 1 < text_.size() && text_[i + 1] == '\'') {
          ++i;  // '' is an escaped quote
        } else {
          return;
        }
      }
    }
    throw ConfigError(ErrorCode::Syntax, mark, path,
                      std::string("unterminated quoted string: the closing ") + q + " is missing");
  }

  // True when the null was written out ("~", "null"), so its own mark is meaningful.
  bool null_is_written(const YAML::Mark& m) const {
    if (m.is_null() || m.pos < 0 || static_cast<std::size_t>(m.pos) >= text_.size()) return false;
    const std::string_view at(text_.data() + m.pos, text_.size() - static_cast<std::size_t>(m.pos));
    return at.front() == '~' || at.substr(0, 4) == "null" || at.substr(0, 4) == "Null" || at.substr(0, 4) == "NULL" ||
           at.front() == '!' || at.front() == '&';
  }

  // Only what aliases expand to is charged: a node written out in the file costs at least
  // a byte of it, so the file size limit already bounds those, while "billion laughs"
  // turns a few hundred bytes into 9^10 nodes and "&a [*a]" would never end.
  void charge_expanded(std::size_t bytes) {
    ++expanded_;
    charge(1, bytes);
  }

  void charge(std::size_t nodes, std::size_t bytes) {
    alias_nodes_ += nodes;
    alias_bytes_ += bytes;
    if (alias_nodes_ > MAX_ALIAS_NODES || alias_bytes_ > MAX_ALIAS_BYTES)
      throw ConfigError(ErrorCode::TooDeep, SourceMark{file_, 0, 0}, "",
                        "aliases expand to more than " + std::to_string(MAX_ALIAS_NODES) + " nodes or " +
                            std::to_string(MAX_ALIAS_BYTES >> 20) + " MiB of text (an alias bomb?)");
  }

  const std::string& file_;
  TreeRef tree_;  // first: the nodes below are in it
  const std::string& text_;
  std::vector<Frame> stack_;
  std::optional<ConfigNode> root_;
  std::unordered_map<YAML::anchor_t, ConfigNode> anchors_;
  std::unordered_set<YAML::anchor_t> open_anchors_;
  std::optional<ConfigError> error_;
  std::size_t expanded_ = 0;  // nodes made by alias expansion so far
  std::size_t alias_nodes_ = 0;
  std::size_t alias_bytes_ = 0;
};

// Sees only where a second document starts.
class DocumentProbe : public YAML::EventHandler {
 public:
  YAML::Mark start;
  void OnDocumentStart(const YAML::Mark& m) override { start = m; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// Runs `parse` and turns anything but a ConfigError into one: yaml-cpp's exceptions,
// and whatever else a library might throw (bad_alloc included), so that callers only
// ever see gcsim::Error.
template <class F>
void guarded(const std::string& file, F&& parse) {
  try {
    parse();
  } catch (const ConfigError&) {
    throw;
  } catch (const YAML::DeepRecursion& e) {
    throw ConfigError(ErrorCode::TooDeep, to_mark(file, e.mark), "", "nesting too deep for the YAML parser");
  } catch (const YAML::Exception& e) {
    throw ConfigError(ErrorCode::Syntax, to_mark(file, e.mark), "", e.msg.empty() ? "invalid YAML" : e.msg);
  } catch (const std::exception& e) {
    throw ConfigError(ErrorCode::Syntax, SourceMark{file, 0, 0}, "", std::string("cannot parse YAML: ") + e.what());
  } catch (...) {
    throw ConfigError(ErrorCode::Syntax, SourceMark{file, 0, 0}, "", "cannot parse YAML");
  }
}

}  // namespace

namespace detail {

ConfigDocument load_yaml_string_full(std::string text, std::string file) {
  const PreScan scan = pre_scan(text, file);
  ConfigDocument doc;
  guarded(file, [&] {
    std::istringstream in(text);
    YAML::Parser parser(in);
    Builder builder(file, text);
    const bool got_document = parser.HandleNextDocument(builder);
    builder.rethrow_deferred();
    if (!got_document || !builder.has_root() || (builder.root().is_null() && !scan.has_content)) {
      throw ConfigError(ErrorCode::EmptyFile, SourceMark{file, 0, 0}, "",
                        "the file has no content (only whitespace or comments)");
    }
    doc.root = builder.take_root();
    // One more document at most: never loop until the parser says "done" (see Builder).
    DocumentProbe probe;
    if (parser.HandleNextDocument(probe)) {
      const auto pos = static_cast<std::size_t>(std::max(probe.start.pos, 0));
      const bool marker = text.compare(pos, 3, "---") == 0;
      std::string detail = marker ? "more than one YAML document ('---') in one file; put one scenario per file"
                                  : pos < text.size() ? "unexpected '" + std::string(1, text[pos]) + "'"
                                                      : "unexpected content after the document";
      throw ConfigError(ErrorCode::Syntax, to_mark(file, probe.start), "", std::move(detail));
    }
  });
  doc.file = std::move(file);
  doc.text = std::move(text);
  return doc;
}

}  // namespace detail

namespace {

// load_yaml_string and load_yaml_data: the fast path first, yaml-cpp for the rest and for
// every error (see yaml_plain.hpp). With `keep_text` the document keeps the caller's text
// (doc.text, the caller's to change or move) and the tree a copy of its own; without, the
// tree holds the only copy and doc.text is empty.
ConfigDocument load_yaml(std::string text, std::string file, bool keep_text) {
  if (text.size() <= MAX_FILE_BYTES) {
    TreeRef tree(file);
    const std::string_view source = keep_text ? tree->adopt_text(text) : tree->adopt_text(std::move(text));
    if (std::optional<ConfigNode> root = detail::parse_plain_yaml(source, *tree)) {
      ConfigDocument doc;
      doc.root = NodeAccess::owned(*root);
      doc.file = std::move(file);
      if (keep_text) doc.text = std::move(text);
      return doc;
    }
    if (!keep_text) text = std::string(source);  // back to yaml-cpp, which reads it from a copy
  }
  ConfigDocument doc = detail::load_yaml_string_full(std::move(text), std::move(file));
  if (!keep_text) std::string().swap(doc.text);
  return doc;
}

}  // namespace

ConfigDocument load_yaml_string(std::string text, std::string file) {
  // Most scenarios, and every large one we generate, stay within the plain subset.
  return load_yaml(std::move(text), std::move(file), true);
}

ConfigDocument load_yaml_data(std::string text, std::string file) {
  return load_yaml(std::move(text), std::move(file), false);
}

ConfigDocument load_yaml_file(const std::string& path, std::string_view what) {
  // Regular files only: a FIFO or a device (`/dev/zero`) would never end.
  std::string text = read_regular_file(path, MAX_FILE_BYTES, what);
  return load_yaml_string(std::move(text), path);
}

}  // namespace gcsim::config
