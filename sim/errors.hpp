// User-facing errors. Everything a user can cause (a bad scenario, a missing file, a
// malformed trace) is a gcsim::Error; only main() catches it. A ConfigError carries a
// stable code (tests match the code, not the wording), the file, line and column, and
// the dotted key path, so that messages read like
//   scenarios/x.yaml:12:7: error[unknown-key]: cluster.node_types[0].gpuz: unknown key 'gpuz'; did you mean 'gpus'?
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gcsim {

// Base of all user-caused failures. main() maps it to exit code 2.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class ErrorCode {
  FileNotFound,   // "file-not-found": a file that cannot be opened
  EmptyFile,      // "empty-file": a scenario with no content
  Syntax,         // "syntax": YAML syntax error
  TooDeep,        // "too-deep": nesting beyond what a scenario needs (guards the parser's stack)
  UnknownKey,     // "unknown-key": a key the schema does not know (with did-you-mean)
  MissingKey,     // "missing-key": a required key is absent
  WrongType,      // "wrong-type": a map where a scalar was expected, text where a number was...
  BadUnit,        // "bad-unit": a missing or malformed unit ("6" for a duration, "5 parsecs")
  OutOfRange,     // "out-of-range": a value outside its valid range (zero or negative counts...)
  UnknownName,    // "unknown-name": a reference to a catalog entry or policy that does not exist
  Duplicate,      // "duplicate": two entries with the same name
  Infeasible,     // "infeasible": a valid value that cannot work (a job no node can ever hold)
  Conflict,       // "conflict": keys that exclude each other (duration and work)
};

std::string_view error_code_name(ErrorCode code);

struct SourceMark {
  std::string file;  // as given by the user
  int line = 0;      // 1-based; 0 when unknown
  int column = 0;    // 1-based; 0 when unknown
};

class ConfigError : public Error {
 public:
  ConfigError(ErrorCode code, SourceMark mark, std::string key_path, std::string detail);

  ErrorCode code() const { return code_; }
  const SourceMark& mark() const { return mark_; }
  const std::string& key_path() const { return key_path_; }
  const std::string& detail() const { return detail_; }

 private:
  ErrorCode code_;
  SourceMark mark_;
  std::string key_path_;
  std::string detail_;
};

// Closest candidate by edit distance, or "" when none is plausibly meant.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// What a message says instead of text from a file the user did not write (a CSV table, a
// catalog, a spot trace the scenario names: docs/units.md, "Messages").
inline constexpr std::string_view HIDDEN_TEXT = "<text not shown>";
// `detail` with every single-quoted part ('...') that is part of `text` replaced by HIDDEN_TEXT: how a reader of such a file keeps a message about a value
// from echoing the file's bytes (a jobs CSV linked to a password file would otherwise
// print its first line). Our own words in quotes (column names, did-you-mean) are kept
// unless they are part of `text`.
std::string hide_text(std::string detail, std::string_view text);

// ASCII lower case ("AWS" -> "aws"), for case-insensitive names.
std::string ascii_lower(std::string_view s);

}  // namespace gcsim
