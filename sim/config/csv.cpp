// CSV reading with positions; see csv.hpp.
#include "sim/config/csv.hpp"

#include <utility>

namespace gcsim::config::csv {
namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

bool is_blank_line(std::string_view s) {
  for (char c : s)
    if (!blank(c)) return false;
  return true;
}

void check_length(std::size_t bytes, const std::string& label, int line) {
  if (bytes > MAX_ROW_BYTES)
    fail(ErrorCode::OutOfRange, label, line, 1, "",
         "a row longer than " + std::to_string(MAX_ROW_BYTES >> 20) + " MiB (is this a CSV file?)");
}

}  // namespace

Reader::Reader(std::istream& in, std::string label, bool hash_comments)
    : in_(in), label_(std::move(label)), hash_comments_(hash_comments) {}

void fail(ErrorCode code, const std::string& label, int line, int column, std::string_view column_name,
          const std::string& detail) {
  throw ConfigError(code, SourceMark{label, line, column}, std::string(column_name), detail);
}

bool Reader::next(Row& row) {
  // The line and the row's fields keep their buffers from row to row: a table of a
  // million rows is read without an allocation per line or per cell.
  std::string& line = line_;
  for (;;) {
    if (!std::getline(in_, line)) return false;
    ++line_number_;
    // A UTF-8 byte-order mark, as spreadsheet programs write, is no part of the first
    // field (the YAML loader skips it too); columns count from after it.
    if (line_number_ == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
    check_length(line.size(), label_, line_number_);
    if (is_blank_line(line)) continue;
    if (hash_comments_ && line.front() == '#') continue;
    break;
  }
  row.line = line_number_;
  std::size_t count = 0;  // fields of this row so far; row.fields[count..] are spare buffers
  const auto next_field = [&row, &count]() -> Field& {
    if (count == row.fields.size()) row.fields.emplace_back();
    Field& f = row.fields[count++];
    f.text.clear();
    f.quoted = false;
    return f;
  };
  std::size_t i = 0;
  int column_base = 1;  // column of line[0]; restarts after a newline inside quotes
  const int start_line = line_number_;
  int cur_line = start_line;
  for (;;) {
    // Start of a field: skip leading blanks.
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    Field& f = next_field();
    f.column = column_base + static_cast<int>(i);
    if (i < line.size() && line[i] == '"') {
      f.quoted = true;
      const int quote_line = cur_line, quote_column = column_base + static_cast<int>(i);
      ++i;
      for (;;) {
        if (i >= line.size()) {
          // The quoted field goes on over a newline.
          std::string more;
          if (!std::getline(in_, more))
            fail(ErrorCode::Syntax, label_, quote_line, quote_column, "", "a quoted field is never closed");
          ++line_number_;
          ++cur_line;
          check_length(f.text.size() + more.size(), label_, start_line);
          f.text += '\n';
          line = std::move(more);
          i = 0;
          column_base = 1;
          continue;
        }
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            f.text += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        f.text += line[i++];
      }
      while (i < line.size() && blank(line[i])) ++i;
      if (i < line.size() && line[i] != ',')
        fail(ErrorCode::Syntax, label_, cur_line, column_base + static_cast<int>(i), "",
             "unexpected text after a closing quote (write a quote inside quotes as \"\")");
    } else {
      const std::size_t start = i;
      const std::size_t comma = line.find(',', i);
      std::size_t end = comma == std::string::npos ? line.size() : comma;
      i = end;
      while (end > start && blank(line[end - 1])) --end;
      f.text.assign(line, start, end - start);
    }
    if (i >= line.size()) break;
    ++i;  // the comma
    if (i >= line.size()) {  // a trailing comma: one more, empty field
      Field& last = next_field();
      last.column = column_base + static_cast<int>(i);
      break;
    }
  }
  row.fields.resize(count);
  return true;
}

std::string escape(std::string_view field) {
  bool quote = false;
  for (char c : field)
    if (c == ',' || c == '"' || c == '\n' || c == '\r') quote = true;
  if (!field.empty() && (blank(field.front()) || blank(field.back()))) quote = true;
  if (!quote) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string escape_control(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (b < 0x20 || b == 0x7f) {
      static const char HEX[] = "0123456789abcdef";
      out += "\\x";
      out += HEX[b >> 4];
      out += HEX[b & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

std::string comment_line(std::string_view text) { return "# " + escape_control(text) + "\n"; }

}  // namespace gcsim::config::csv
