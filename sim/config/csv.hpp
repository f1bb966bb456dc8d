// A small CSV reader and writer for every CSV input: price catalogs and price traces, and
// the tables a scenario may give as {file: x.csv} (csv_table.hpp). RFC 4180 quoting:
// fields in double quotes may hold commas, newlines and doubled quotes ""). Every field
// keeps the line and column where it starts, so that errors can name file:line:column.
// Lines whose first character is '#' are comments when the reader is asked to skip them;
// blank lines are always skipped, and so is a UTF-8 byte-order mark at the start of the
// input. No CSV library is available on the build machines.
#pragma once

#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/errors.hpp"

namespace gcsim::config::csv {

// The longest row a CSV input may have (a quoted field over several lines counts whole):
// real rows are under a kilobyte; a file without newlines (binary data) is refused early.
inline constexpr std::size_t MAX_ROW_BYTES = std::size_t{1} << 20;  // 1 MiB

struct Field {
  std::string text;  // unquoted, surrounding blanks trimmed (blanks inside quotes kept)
  int column = 1;    // 1-based column of the field's first character
  bool quoted = false;  // written in double quotes
};

struct Row {
  int line = 0;  // 1-based line where the row starts
  std::vector<Field> fields;
};

class Reader {
 public:
  // `label` names the input in errors (a path, or "<stdin>").
  Reader(std::istream& in, std::string label, bool hash_comments);
  // The next non-blank, non-comment row; false at the end. Throws ConfigError(Syntax) for a
  // quote that is never closed or text after a closing quote, ConfigError(OutOfRange) for
  // a row longer than MAX_ROW_BYTES.
  bool next(Row& row);
  const std::string& label() const { return label_; }
  // Reads from the stream's start again (the caller seeks it there).
  void restart() { line_number_ = 0; }

 private:
  std::istream& in_;
  std::string label_;
  bool hash_comments_;
  int line_number_ = 0;
  std::string line_;  // the current line, its buffer kept from row to row
};

// Throws ConfigError(code) at label:line:column, with the column's name as the key path.
[[noreturn]] void fail(ErrorCode code, const std::string& label, int line, int column, std::string_view column_name,
                       const std::string& detail);

// Quotes a field when it holds a comma, a quote, a newline or leading/trailing blanks.
std::string escape(std::string_view field);

// `text` with every control character (bytes below 0x20 and 0x7f: a newline, a carriage
// return, a tab, an escape sequence) written as \n, \r, \t or \xNN and a backslash as
// \\: one line of printable text, for what a writer copies from outside (an input path).
std::string escape_control(std::string_view text);
// One `# ` comment line (with its newline) holding escape_control(text), so that no text
// (an input path, a file's contents) can end the comment and inject a row. Every writer of
// comments uses it.
std::string comment_line(std::string_view text);

}  // namespace gcsim::config::csv
