// File name parts from user text (see file_names.hpp).
#include "analysis/file_names.hpp"

#include <set>

#include "sim/errors.hpp"

namespace gcsim::analysis {

std::string file_name_part(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '_' || c == '-';
    out += keep ? c : '_';
  }
  return out.empty() ? "_" : out;
}

std::vector<std::string> unique_file_name_parts(const std::vector<std::string>& texts) {
  std::vector<std::string> bases;
  for (const std::string& text : texts) {
    bases.push_back(file_name_part(text));
    if (bases.back().size() > MAX_FILE_NAME_PART_BYTES) bases.back().resize(MAX_FILE_NAME_PART_BYTES);
  }
  std::vector<std::string> out(texts.size());
  std::set<std::string> taken;  // lower case
  // First the texts that are file names as they are, so that each keeps its own name.
  for (std::size_t i = 0; i < texts.size(); ++i)
    if (bases[i] == texts[i] && taken.insert(ascii_lower(bases[i])).second) out[i] = bases[i];
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (!out[i].empty()) continue;
    std::string name = bases[i];
    for (std::size_t k = 2; taken.count(ascii_lower(name)) != 0; ++k) name = bases[i] + "-" + std::to_string(k);
    taken.insert(ascii_lower(name));
    out[i] = std::move(name);
  }
  return out;
}

}  // namespace gcsim::analysis
