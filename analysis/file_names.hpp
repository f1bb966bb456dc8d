// File names made from what a user wrote (a `--policy` label, a team's name): safe
// characters only, bounded in length, and one per text, so that no two outputs of one
// command take the same file (docs/analysis.md, "Files with -o DIR").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gcsim::analysis {

// The longest part of a file name taken from a text (bytes). With gcsim's longest prefix
// ("team_share-"), a repeat's "-N", the longest extension (".gnuplot-stderr") and the
// temporary suffix of sim/atomic_file.hpp (40), a name stays far below the usual file
// system limit of 255 bytes.
inline constexpr std::size_t MAX_FILE_NAME_PART_BYTES = 100;

// `text` as a file name part: letters, digits, '.', '_' and '-' kept, anything else '_';
// "_" for empty text.
std::string file_name_part(const std::string& text);

// One file name part per text, in order: file_name_part(), cut to
// MAX_FILE_NAME_PART_BYTES. A text that is a file name part as it is keeps it when no
// earlier such text has it; every other text, in order, gets its part, or, when that is
// taken (letter case ignored, as some file systems do), the first of "-2", "-3", ...
// after it that is free. So "ml team", "ml_team", "ml?team" give "ml_team-2", "ml_team",
// "ml_team-3"; the same texts in the same order always give the same names.
std::vector<std::string> unique_file_name_parts(const std::vector<std::string>& texts);

}  // namespace gcsim::analysis
