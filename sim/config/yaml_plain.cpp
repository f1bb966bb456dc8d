// The plain-subset YAML reader (see yaml_plain.hpp). One pass over the text, line by
// line, building ConfigNodes directly; positions are 1-based like yaml-cpp's marks plus
// one: a block map is marked at its first key, a block list at its first '-', a flow
// collection at its bracket, a scalar at its first character (the quote, when quoted),
// and an empty value ("key:" with nothing under it) at its key.
//
// Whatever this reader is not sure to read exactly as yaml-cpp would, it gives up on, so
// the subset is kept deliberately small: plain scalars may not hold ':' or quotes, flow
// collections must close on their line (except in a document that is one flow collection,
// as JSON is, whose items may break lines anywhere between them), keys are plain words
// ([A-Za-z0-9_][A-Za-z0-9_./-]*) or, in flow maps, quoted ones ("key": as JSON writes them).
#include "sim/config/yaml_plain.hpp"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace gcsim::config::detail {

namespace {

struct GiveUp {};

bool is_key_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool is_key_char(char c) { return is_key_start(c) || c == '-' || c == '.' || c == '/'; }
// Asked of every key and plain scalar: the length and first letter first, so that the
// usual word is refused without a call to memcmp.
bool is_null_word(std::string_view s) {
  if (s.size() == 1) return s[0] == '~';
  return s.size() == 4 && (s[0] == 'n' || s[0] == 'N') && (s == "null" || s == "Null" || s == "NULL");
}

// Character classes for plain scalars, one table lookup per character (a search of a
// list of indicators, a call to memchr, per character cost more than the rest of it).
class CharTable {
 public:
  static constexpr unsigned char INDICATOR = 1;     // may not start a plain scalar
  static constexpr unsigned char REFUSED = 2;       // gives up anywhere in a plain scalar
  static constexpr unsigned char FLOW_REFUSED = 4;  // gives up in a flow collection
  static constexpr unsigned char SPECIAL = 8;       // needs a look: any of the above, or an end

  constexpr CharTable() {
    for (int c = 0; c < 256; ++c)
      if (c < 0x20 || c > 0x7e) set(static_cast<char>(c), REFUSED);
    for (const char c : std::string_view("?:,[]{}#&*!|>'\"%@` ")) set(c, INDICATOR);
    for (const char c : std::string_view(":\"'?")) set(c, REFUSED);
    for (const char c : std::string_view("&*!|>%@`")) set(c, FLOW_REFUSED);
    for (const char c : std::string_view("#,[]{}")) set(c, SPECIAL);
  }
  constexpr bool has(char c, unsigned char what) const { return (bits_[static_cast<unsigned char>(c)] & what) != 0; }

 private:
  constexpr void set(char c, unsigned char what) {
    unsigned char& b = bits_[static_cast<unsigned char>(c)];
    b = static_cast<unsigned char>(b | what);
    if (what != INDICATOR) b = static_cast<unsigned char>(b | SPECIAL);
  }
  unsigned char bits_[256] = {};
};
constexpr CharTable CHARS;

class PlainReader {
 public:
  PlainReader(std::string_view text, detail::Tree& tree) : t_(text), tree_(tree) {}

  ConfigNode document() {
    // A NUL or a carriage return (a line break of its own to YAML, even inside a comment)
    // belongs to the full parser: this reader knows only '\n' lines of plain text.
    // Two scans of the text for one character each: find_first_of searched the set of two
    // once per character of the text, a tenth of the whole load.
    if (t_.find('\0') != std::string_view::npos || t_.find('\r') != std::string_view::npos) give_up();
    if (!seek_content() || indent_ != 0) give_up();
    // Directives and document markers belong to the full parser.
    if (t_[p_] == '%' || t_.substr(p_, 3) == "---" || t_.substr(p_, 3) == "...") give_up();
    if (t_[p_] == '[' || t_[p_] == '{') {
      // A document that is one flow collection (JSON, as a trace's job log is printed): its
      // lines may break between items, at any indentation (a top-level flow collection has
      // no indentation to keep). Nothing but blanks and comments may follow it.
      flow_lines_ = true;
      ConfigNode root = value(NodePlace::root(), 0, false);
      flow_lines_ = false;
      finish_line();
      seek_content();
      if (has_line_) give_up();
      return root;
    }
    ConfigNode root = block_node(0, NodePlace::root(), 0);
    if (has_line_) give_up();  // text left at a lower indentation than it should be
    return root;
  }

 private:
  [[noreturn]] static void give_up() { throw GiveUp{}; }

  char at(std::size_t i) const { return i < t_.size() ? t_[i] : '\n'; }
  bool at_line_end(std::size_t i) const { return i >= t_.size() || t_[i] == '\n'; }
  int column() const { return static_cast<int>(p_ - line_start_) + 1; }

  void skip_spaces() {
    while (p_ < t_.size() && t_[p_] == ' ') ++p_;
  }

  // Inside a flow collection: blanks, and, in a document that is one flow collection, line
  // breaks too (p_ then at the next token, on whatever line). A tab or a comment between
  // tokens belongs to the full parser.
  void skip_flow_blanks() {
    for (;;) {
      skip_spaces();
      if (!flow_lines_ || p_ >= t_.size() || t_[p_] != '\n') return;
      ++p_;
      ++line_;
      line_start_ = p_;
    }
  }
  void give_up_on_flow_junk() const {
    if (p_ < t_.size() && (t_[p_] == '\t' || t_[p_] == '#')) give_up();
  }

  // After a value: only blanks and a comment may follow on its line. Leaves p_ at the
  // start of the next line.
  void finish_line() {
    skip_spaces();
    if (p_ < t_.size() && t_[p_] == '#') {
      if (p_ > line_start_ && t_[p_ - 1] != ' ') give_up();  // "x#y" is text, not a comment
      while (p_ < t_.size() && t_[p_] != '\n') ++p_;
    }
    if (p_ < t_.size() && t_[p_] != '\n') give_up();
    if (p_ < t_.size()) ++p_;
    ++line_;
    line_start_ = p_;
  }

  // Moves to the first character of the next line that holds content (skipping blank and
  // comment-only lines), and records its indentation. p_ must be at a line's start.
  bool seek_content() {
    for (;;) {
      std::size_t i = p_;
      while (i < t_.size() && t_[i] == ' ') ++i;
      if (i >= t_.size()) {
        p_ = i;
        has_line_ = false;
        return false;
      }
      const char c = t_[i];
      if (c == '\n' || c == '#') {
        while (i < t_.size() && t_[i] != '\n') ++i;
        p_ = i < t_.size() ? i + 1 : i;
        ++line_;
        line_start_ = p_;
        continue;
      }
      if (c == '\t' || c == '\r') give_up();
      indent_ = i - p_;
      p_ = i;
      has_line_ = true;
      return true;
    }
  }

  bool is_sequence_item(std::size_t i) const { return at(i) == '-' && (at(i + 1) == ' ' || at_line_end(i + 1)); }

  // The length of a "key:" at i (key chars, then ':' and a blank or the line's end), or 0.
  std::size_t key_length(std::size_t i) const {
    if (!is_key_start(at(i))) return 0;
    std::size_t j = i + 1;
    while (is_key_char(at(j))) ++j;
    if (at(j) != ':' || !(at(j + 1) == ' ' || at_line_end(j + 1))) return 0;
    return j - i;
  }

  static void check_depth(int depth) {
    if (depth > MAX_DEPTH) give_up();
  }

  // A block node whose first character is at p_, in column `indent` (0-based).
  ConfigNode block_node(std::size_t indent, const NodePlace& place, int depth) {
    check_depth(depth);
    if (is_sequence_item(p_)) return block_sequence(indent, place, depth);
    if (key_length(p_) > 0) return block_map(indent, place, depth);
    give_up();  // a scalar or flow collection on a line of its own
  }

  ConfigNode block_map(std::size_t indent, const NodePlace& place, int depth) {
    check_depth(depth);
    const int line = line_;
    const int col = column();
    const TreePlace* mine = place.shared(tree_);
    Scratch& scratch = scratch_[static_cast<std::size_t>(depth)];
    NodeAccess::Entries& entries = scratch.entries;
    NodeAccess::KeyMarks& key_marks = scratch.key_marks;
    entries.clear();
    key_marks.clear();
    std::vector<std::string_view>& keys = scratch.keys;
    keys.clear();               // views of the text: they do not move
    std::unordered_set<std::string_view> many_keys;  // for maps too long to scan
    for (;;) {
      const std::size_t n = key_length(p_);
      if (n == 0) give_up();
      const std::string_view key = t_.substr(p_, n);
      if (is_null_word(key)) give_up();  // a null key: the full parser refuses it
      // A duplicate is reported by the full parser.
      if (keys.size() < 16) {
        for (const std::string_view k : keys)
          if (k == key) give_up();
      } else {
        if (many_keys.empty()) many_keys.insert(keys.begin(), keys.end());
        if (!many_keys.insert(key).second) give_up();
      }
      keys.push_back(key);
      const int key_line = line_;
      const int key_col = column();
      p_ += n + 1;
      skip_spaces();
      NodePlace child = NodePlace::key(mine, key);
      if (at_line_end(p_) || t_[p_] == '#') {
        finish_line();
        seek_content();
        if (has_line_ && (indent_ > indent || (indent_ == indent && is_sequence_item(p_)))) {
          entries.emplace_back(key, block_node(indent_, child, depth + 1));
        } else {
          // An empty value followed by a sibling key: yaml-cpp marks it at that key (the
          // fuzzer's "b:\nnulls: ..."), an accident of its tokens this reader does not copy.
          if (has_line_ && indent_ == indent) give_up();
          check_depth(depth + 1);
          entries.emplace_back(key, NodeAccess::null(tree_, key_line, key_col, child));
        }
      } else {
        entries.emplace_back(key, value(child, depth + 1, false));
        finish_line();
        seek_content();
      }
      key_marks.push_back(NodeAccess::position(key_line, key_col));
      if (!has_line_ || indent_ < indent) break;
      if (indent_ > indent || is_sequence_item(p_)) give_up();  // misplaced: the full parser says why
    }
    ConfigNode out = NodeAccess::map_from(tree_, entries, key_marks, line, col, place);
    key_marks.clear();
    return out;
  }

  ConfigNode block_sequence(std::size_t indent, const NodePlace& place, int depth) {
    check_depth(depth);
    const int line = line_;
    const int col = column();
    const TreePlace* mine = place.shared(tree_);
    std::vector<ConfigNode>& items = scratch_[static_cast<std::size_t>(depth)].items;
    items.clear();
    for (;;) {
      NodePlace child = NodePlace::item(mine, items.size());
      ++p_;  // the '-'
      skip_spaces();
      if (at_line_end(p_) || t_[p_] == '#') {
        finish_line();
        seek_content();
        if (!has_line_ || indent_ <= indent) give_up();  // an empty item
        items.push_back(block_node(indent_, child, depth + 1));
      } else if (is_sequence_item(p_)) {
        give_up();  // "- - x"
      } else if (key_length(p_) > 0) {
        items.push_back(block_map(p_ - line_start_, child, depth + 1));
      } else {
        items.push_back(value(child, depth + 1, false));
        finish_line();
        seek_content();
        if (has_line_ && indent_ > indent) give_up();
      }
      if (!has_line_ || indent_ < indent) break;
      if (indent_ > indent) give_up();
      if (!is_sequence_item(p_)) break;  // the next key of the map this list is the value of
    }
    return NodeAccess::sequence_from(tree_, items, line, col, place);
  }

  // A value written on the same line: after "key: " or "- " (in_flow false), or inside a
  // flow collection (in_flow true: a plain scalar there also ends at ',', ']' and '}').
  ConfigNode value(const NodePlace& place, int depth, bool in_flow) {
    check_depth(depth);
    switch (t_[p_]) {
      case '[': return flow_sequence(place, depth);
      case '{': return flow_map(place, depth);
      case '"':
      case '\'': return quoted(place);
      default: return plain(place, in_flow);
    }
  }

  ConfigNode quoted(const NodePlace& place) {
    const char q = t_[p_];
    const int col = column();
    const std::size_t begin = p_ + 1;
    bool doubled = false;  // a '' inside single quotes: the text is not the source's
    std::size_t i = begin;
    for (;; ++i) {
      if (at_line_end(i)) give_up();  // continues on the next line
      const char c = t_[i];
      if (c == '\\' && q == '"') give_up();  // escapes
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) give_up();
      if (c == q) {
        if (q == '\'' && at(i + 1) == '\'') {
          doubled = true;
          ++i;
          continue;
        }
        break;
      }
    }
    p_ = i + 1;
    // Something glued to the closing quote ("a"b) is not ours to judge.
    if (!(at_line_end(p_) || t_[p_] == ' ' || t_[p_] == ',' || t_[p_] == ']' || t_[p_] == '}')) give_up();
    const std::string_view written = t_.substr(begin, i - begin);
    if (!doubled) return NodeAccess::scalar(tree_, written, true, line_, col, place);
    std::string text;
    for (std::size_t k = 0; k < written.size(); ++k) {
      text += written[k];
      if (written[k] == '\'') ++k;  // '' is one quote
    }
    return NodeAccess::scalar(tree_, tree_.copy(text), true, line_, col, place);
  }

  // A plain scalar: to the line's end (or a comment) in block context; to the next
  // ',', ']' or '}' in a flow collection.
  ConfigNode plain(const NodePlace& place, bool flow) {
    const std::size_t begin = p_;
    const char first = t_[p_];
    // Indicators: anchors, aliases, tags, block scalars, directives, reserved characters.
    if (CHARS.has(first, CharTable::INDICATOR)) give_up();
    if (first == '-' && !((at(p_ + 1) >= '0' && at(p_ + 1) <= '9') || at(p_ + 1) == '.')) give_up();
    std::size_t end = p_;
    std::size_t i = p_;
    for (; !at_line_end(i); ++i) {
      const char c = t_[i];
      if (CHARS.has(c, CharTable::SPECIAL)) {
        if (CHARS.has(c, CharTable::REFUSED)) give_up();
        // '?' inside a plain scalar is text to YAML 1.2 but an unknown token to yaml-cpp
        // in a flow collection (the fuzzer's "[$2.50/?h]"), so it is refused everywhere;
        // the other indicators are left to yaml-cpp inside flow collections likewise.
        if (flow && CHARS.has(c, CharTable::FLOW_REFUSED)) give_up();
        if (c == '#' && t_[i - 1] == ' ') break;
        if (flow) {
          if (c == ',' || c == ']' || c == '}') break;
          if (c == '[' || c == '{' || c == '#') give_up();
        }
      }
      if (c != ' ') end = i + 1;
    }
    p_ = end;
    const std::string_view text = t_.substr(begin, end - begin);
    const int col = static_cast<int>(begin - line_start_) + 1;
    if (is_null_word(text)) return NodeAccess::null(tree_, line_, col, place);
    return NodeAccess::scalar(tree_, text, false, line_, col, place);
  }

  // Inside a flow collection, after an item: blanks, then ',' (and more) or the closer.
  bool next_flow_item(char closer) {
    skip_flow_blanks();
    if (at_line_end(p_)) give_up();  // multi-line, outside a flow document
    if (t_[p_] == closer) {
      ++p_;
      return false;
    }
    if (t_[p_] != ',') give_up();
    ++p_;
    skip_flow_blanks();
    if (at_line_end(p_) || t_[p_] == closer || t_[p_] == ',') give_up();  // multi-line, or "[a, ]"
    give_up_on_flow_junk();
    return true;
  }


  ConfigNode flow_sequence(const NodePlace& place, int depth) {
    const int line = line_;  // its bracket's: in a flow document its items may be on later lines
    const int col = column();
    const TreePlace* mine = place.shared(tree_);
    std::vector<ConfigNode>& items = scratch_[static_cast<std::size_t>(depth)].items;
    items.clear();
    ++p_;
    skip_flow_blanks();
    if (at_line_end(p_)) give_up();
    give_up_on_flow_junk();
    if (t_[p_] == ']') {
      ++p_;
    } else {
      do {
        items.push_back(value(NodePlace::item(mine, items.size()), depth + 1, true));
        if (at(p_) == ':') give_up();  // "[a: 1]", a one-pair map
      } while (next_flow_item(']'));
    }
    return NodeAccess::sequence_from(tree_, items, line, col, place);
  }

  // A quoted key in a flow map ("key": value, as JSON writes it): one line, no escapes,
  // printable ASCII, then ':' and a blank at once. Its length with the quotes, or 0 when
  // the key at p_ is not one (a null word quoted is left to the full parser too).
  std::size_t quoted_key_length() const {
    const char q = at(p_);
    if (q != '"' && q != '\'') return 0;
    std::size_t i = p_ + 1;
    for (; !at_line_end(i) && t_[i] != q; ++i) {
      const auto c = static_cast<unsigned char>(t_[i]);
      if (c == '\\' || c < 0x20 || c > 0x7e) return 0;
    }
    if (at_line_end(i) || i == p_ + 1) return 0;  // unclosed, or an empty key
    if (at(i + 1) != ':' || at(i + 2) != ' ') return 0;
    if (is_null_word(t_.substr(p_ + 1, i - p_ - 1))) return 0;
    return i + 1 - p_;
  }

  ConfigNode flow_map(const NodePlace& place, int depth) {
    const int line = line_;  // its brace's
    const int col = column();
    const TreePlace* mine = place.shared(tree_);
    Scratch& scratch = scratch_[static_cast<std::size_t>(depth)];
    NodeAccess::Entries& entries = scratch.entries;
    NodeAccess::KeyMarks& key_marks = scratch.key_marks;
    entries.clear();
    key_marks.clear();
    ++p_;
    skip_flow_blanks();
    if (at_line_end(p_)) give_up();
    give_up_on_flow_junk();
    if (t_[p_] == '}') {
      ++p_;
    } else {
      do {
        // A plain key (key_length's words), or a quoted one: n is what precedes the ':'.
        std::size_t n = key_length(p_);
        std::string_view key;
        if (n > 0) {
          if (at(p_ + n + 1) != ' ') give_up();
          key = t_.substr(p_, n);
          if (is_null_word(key)) give_up();
        } else {
          n = quoted_key_length();
          if (n == 0) give_up();
          key = t_.substr(p_ + 1, n - 2);
        }
        for (const auto& e : entries)
          if (e.first.size() == key.size() && e.first[0] == key[0] && e.first == key) give_up();  // keys are not empty
        key_marks.push_back(NodeAccess::position(line_, column()));
        p_ += n + 1;
        skip_spaces();
        if (at_line_end(p_) || t_[p_] == ',' || t_[p_] == '}') give_up();  // "{a: }"
        entries.emplace_back(key, value(NodePlace::key(mine, key), depth + 1, true));
      } while (next_flow_item('}'));
    }
    ConfigNode out = NodeAccess::map_from(tree_, entries, key_marks, line, col, place);
    key_marks.clear();
    return out;
  }

  // Lists and maps are collected in a buffer per depth, reused from one to the next, and
  // moved into a block of the exact size: one allocation per list or map, no slack.
  struct Scratch {
    std::vector<ConfigNode> items;
    NodeAccess::Entries entries;
    NodeAccess::KeyMarks key_marks;
    std::vector<std::string_view> keys;  // views of the text: they do not move
  };

  std::string_view t_;
  detail::Tree& tree_;
  std::vector<Scratch> scratch_ = std::vector<Scratch>(static_cast<std::size_t>(MAX_DEPTH) + 2);
  std::size_t p_ = 0;
  std::size_t line_start_ = 0;
  int line_ = 1;
  std::size_t indent_ = 0;  // of the line at p_, when has_line_
  bool has_line_ = false;
  bool flow_lines_ = false;  // inside a document that is one flow collection: items may break lines
};

}  // namespace

std::optional<ConfigNode> parse_plain_yaml(std::string_view text, Tree& tree) {
  try {
    return PlainReader(text, tree).document();
  } catch (const GiveUp&) {
    return std::nullopt;
  }
}

std::optional<ConfigNode> parse_plain_yaml(std::string_view text, std::string file) {
  TreeRef tree(std::move(file));
  const std::string_view source = tree->adopt_text(std::string(text));
  std::optional<ConfigNode> root = parse_plain_yaml(source, *tree);
  if (!root) return std::nullopt;
  return NodeAccess::owned(*root);
}

}  // namespace gcsim::config::detail
