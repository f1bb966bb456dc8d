// User-facing error messages: stable codes, "file:line:col: error[code]: path: detail"
// formatting, and the did-you-mean suggestion used for unknown keys and names.
#include "sim/errors.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace gcsim {

// Not std::tolower: that follows the C locale, which a program embedding gcsim may set
// (in Turkish, 'I' lowers to a dotless i), and reading the locale from many threads at
// once is not guaranteed safe. Names are ASCII: only 'A'..'Z' change.
std::string hide_text(std::string detail, std::string_view text) {
  // Trailing spaces and "..." are what shorteners add; the quoted part is the text before.
  const auto is_part = [&](std::string_view quoted) {
    while (quoted.ends_with("...")) quoted.remove_suffix(3);
    return !quoted.empty() && text.find(quoted) != std::string_view::npos;
  };
  // Text with a quote of its own would split its quoted part: replaced whole first. (Not
  // otherwise: a short value such as "1" would also hide our own "between 1 and 8".)
  if (text.find('\'') != std::string_view::npos) {
    for (std::size_t at = detail.find(text); at != std::string::npos; at = detail.find(text, at + HIDDEN_TEXT.size()))
      detail.replace(at, text.size(), HIDDEN_TEXT);
  }
  std::string out;
  std::size_t i = 0;
  while (i < detail.size()) {
    const std::size_t open = detail.find('\'', i);
    const std::size_t close = open == std::string::npos ? std::string::npos : detail.find('\'', open + 1);
    if (close == std::string::npos) break;
    out.append(detail, i, open - i);
    const std::string_view quoted = std::string_view(detail).substr(open + 1, close - open - 1);
    if (is_part(quoted)) {
      out += HIDDEN_TEXT;
      i = close + 1;
    } else {
      out.append(detail, open, close - open);  // the closing quote may open the next part
      i = close;
    }
  }
  out.append(detail, std::min(i, detail.size()));
  return out;
}

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string_view error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::FileNotFound: return "file-not-found";
    case ErrorCode::EmptyFile: return "empty-file";
    case ErrorCode::Syntax: return "syntax";
    case ErrorCode::TooDeep: return "too-deep";
    case ErrorCode::UnknownKey: return "unknown-key";
    case ErrorCode::MissingKey: return "missing-key";
    case ErrorCode::WrongType: return "wrong-type";
    case ErrorCode::BadUnit: return "bad-unit";
    case ErrorCode::OutOfRange: return "out-of-range";
    case ErrorCode::UnknownName: return "unknown-name";
    case ErrorCode::Duplicate: return "duplicate";
    case ErrorCode::Infeasible: return "infeasible";
    case ErrorCode::Conflict: return "conflict";
  }
  return "unknown-error";  // unreachable for valid enumerators; keeps -Wreturn-type quiet
}

namespace {

// Parts that are unknown are left out, so a message never shows "0:0" or an empty path.
std::string format_message(ErrorCode code, const SourceMark& mark, const std::string& key_path,
                           const std::string& detail) {
  std::string out;
  if (!mark.file.empty()) {
    out += mark.file;
    if (mark.line > 0) {
      out += ':' + std::to_string(mark.line);
      if (mark.column > 0) out += ':' + std::to_string(mark.column);
    }
    out += ": ";
  }
  out += "error[";
  out += error_code_name(code);
  out += "]: ";
  if (!key_path.empty()) {
    out += key_path;
    out += ": ";
  }
  out += detail;
  return out;
}

// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions, the most
// common typo: "gupz"). Stops early once every cell of a row exceeds `limit`.
std::size_t edit_distance(const std::string& a, const std::string& b, std::size_t limit) {
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  if ((n > m ? n - m : m - n) > limit) return limit + 1;
  std::vector<std::size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (std::size_t j = 0; j <= m; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    std::size_t row_min = cur[0];
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      std::size_t d = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d = std::min(d, prev2[j - 2] + 1);
      cur[j] = d;
      row_min = std::min(row_min, d);
    }
    if (row_min > limit) return limit + 1;
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}

}  // namespace

ConfigError::ConfigError(ErrorCode code, SourceMark mark, std::string key_path, std::string detail)
    : Error(format_message(code, mark, key_path, detail)),
      code_(code),
      mark_(std::move(mark)),
      key_path_(std::move(key_path)),
      detail_(std::move(detail)) {}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  if (word.empty()) return "";
  const std::string w = ascii_lower(word);
  // A third of the word's length: "gpuz" -> 1 edit, "node_typse" -> 3. Shorter words get
  // one edit, so "x" does not match every one-letter key.
  const std::size_t limit = std::max<std::size_t>(1, w.size() / 3);
  std::size_t best_distance = limit + 1;
  const std::string* best = nullptr;
  for (const std::string& c : candidates) {
    if (c.empty()) continue;
    const std::size_t d = edit_distance(w, ascii_lower(c), limit);
    // Strictly better only: ties keep the earliest candidate, which is the caller's
    // (deterministic) order, typically declaration order of the keys.
    if (d < best_distance) {
      best_distance = d;
      best = &c;
    }
  }
  return best != nullptr && best_distance <= limit ? *best : std::string();
}

}  // namespace gcsim
