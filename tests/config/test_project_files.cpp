// What the project ships must stand on its own: an example or a doc that points into a
// folder beside the checkout (the developers' ../shared/) points a user at nothing, and the
// CI scripts must leave the choice of a package host to the tools (debootstrap's and apt's
// own defaults), naming none of their own.
#include <catch2/catch.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The text files under `folder` (relative to the source tree) whose names end in one of `exts`.
std::vector<fs::path> files_under(const std::string& folder, const std::vector<std::string>& exts) {
  std::vector<fs::path> out;
  const fs::path root = fs::path(GCSIM_SOURCE_DIR) / folder;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const std::string ext = entry.path().extension().string();
    for (const auto& e : exts) {
      if (ext == e) out.push_back(entry.path());
    }
  }
  return out;
}

}  // namespace

TEST_CASE("examples, catalogs and docs name no file outside the project", "[unit]") {
  std::vector<fs::path> files = files_under("scenarios", {".yaml", ".yml", ".csv", ".json", ".md"});
  const auto docs = files_under("docs", {".md"});
  files.insert(files.end(), docs.begin(), docs.end());
  files.emplace_back(fs::path(GCSIM_SOURCE_DIR) / "README.md");
  REQUIRE(files.size() > 20);  // the walk found the project's files
  for (const auto& file : files) {
    INFO(file.string());
    CHECK(read_text(file).find("../shared/") == std::string::npos);
  }
}

TEST_CASE("the CI scripts and the Makefile name no package host", "[unit]") {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(GCSIM_SOURCE_DIR) / ".ci")) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  files.emplace_back(fs::path(GCSIM_SOURCE_DIR) / "Makefile");
  REQUIRE(files.size() >= 3);
  for (const auto& file : files) {
    INFO(file.string());
    CHECK(read_text(file).find("://") == std::string::npos);
  }
}

TEST_CASE("the README reads traces with the Python that has Debian's h5py", "[unit]") {
  const std::string readme = read_text(fs::path(GCSIM_SOURCE_DIR) / "README.md");
  const auto snippet = readme.find("import h5py");
  REQUIRE(snippet != std::string::npos);
  // The interpreter is named before the first snippet that imports h5py.
  CHECK(readme.rfind("/usr/bin/python3", snippet) != std::string::npos);
  CHECK(readme.find("python3-h5py") != std::string::npos);
}

namespace {

// The C++ sources of the packages that make up a run.
std::vector<fs::path> run_sources() {
  std::vector<fs::path> out;
  for (const std::string folder : {"sim", "models", "analysis", "cli"}) {
    for (const fs::path& p : files_under(folder, {".hpp", ".cpp", ".in"})) out.push_back(p);
  }
  return out;
}

std::string repo_path(const fs::path& p) { return fs::relative(p, GCSIM_SOURCE_DIR).generic_string(); }

// A line without its // comment (no source line here has "//" inside a string literal
// before code that matters to these checks).
std::string code_of(const std::string& line) {
  const auto c = line.find("//");
  return c == std::string::npos ? line : line.substr(0, c);
}

// The names a declaration `<type> a, b = 1, c{2}` (after `mutable`, before `;`) declares:
// the last identifier of each comma-separated declarator, template arguments,
// initialisers and array bounds left out.
std::vector<std::string> declared_names(const std::string& decl) {
  std::string flat;
  int depth = 0;  // inside <>, {}, [] or ()
  bool in_init = false;
  for (const char c : decl) {
    if (c == '<' || c == '{' || c == '[' || c == '(') ++depth;
    else if (c == '>' || c == '}' || c == ']' || c == ')') --depth;
    else if (depth == 0) {
      if (c == '=') in_init = true;
      else if (c == ',') {
        in_init = false;
        flat += ',';
      } else if (!in_init) flat += c;
    }
  }
  std::vector<std::string> names;
  std::istringstream pieces(flat);
  for (std::string piece; std::getline(pieces, piece, ',');) {
    std::size_t end = piece.find_last_not_of(" \t\r\n");
    if (end == std::string::npos) continue;
    std::size_t begin = end;
    while (begin > 0 && (std::isalnum(static_cast<unsigned char>(piece[begin - 1])) || piece[begin - 1] == '_')) --begin;
    names.push_back(piece.substr(begin, end + 1 - begin));
  }
  return names;
}

}  // namespace

TEST_CASE("declared_names finds each declarator's name", "[unit]") {
  CHECK(declared_names(" std::vector<std::array<std::uint64_t, 16>> room_used_") ==
        std::vector<std::string>{"room_used_"});
  CHECK(declared_names(" std::vector<int> count_, take_") == std::vector<std::string>{"count_", "take_"});
  CHECK(declared_names(" Milli free_gpus_ = 0") == std::vector<std::string>{"free_gpus_"});
  CHECK(declared_names(" int a{1}, b[4], c = f(1, 2)") == std::vector<std::string>{"a", "b", "c"});
}

TEST_CASE("every mutable member under models/ and sim/ is listed in docs/engine.md", "[unit]") {
  // A const method that fills a mutable member makes its object unsafe to share between
  // threads even as const; docs/engine.md ("Caches inside const methods") lists each one
  // with what it caches and why it is per run. This fails when a new one appears that the
  // table does not list, and when the table lists one that is gone.
  std::set<std::pair<std::string, std::string>> in_code;
  for (const std::string folder : {"sim", "models"}) {
    for (const fs::path& p : files_under(folder, {".hpp", ".cpp", ".in"})) {
      std::istringstream lines(read_text(p));
      std::string line;
      while (std::getline(lines, line)) {
        std::string code = code_of(line);
        const auto first = code.find_first_not_of(" \t");
        if (first == std::string::npos || code.compare(first, 8, "mutable ") != 0) continue;
        std::string decl = code.substr(first + 8);
        while (decl.find(';') == std::string::npos && std::getline(lines, line)) decl += " " + code_of(line);
        decl = decl.substr(0, decl.find(';'));
        for (const std::string& name : declared_names(decl)) in_code.insert({repo_path(p), name});
      }
    }
  }
  REQUIRE(in_code.size() >= 20);  // the scan works: there were 23 when this test was written

  std::set<std::pair<std::string, std::string>> in_docs;
  std::istringstream doc(read_text(fs::path(GCSIM_SOURCE_DIR) / "docs/engine.md"));
  bool in_table = false;
  for (std::string line; std::getline(doc, line);) {
    if (line.starts_with("| File | `mutable` members |")) {
      in_table = true;
      continue;
    }
    if (!in_table) continue;
    if (!line.starts_with("|")) break;
    if (line.starts_with("|---")) continue;
    // | `file` | `a_`, `b_` | ...
    const auto c1 = line.find('|', 1);
    const auto c2 = line.find('|', c1 + 1);
    REQUIRE(c2 != std::string::npos);
    const std::string file_cell = line.substr(1, c1 - 1);
    const std::string names_cell = line.substr(c1 + 1, c2 - c1 - 1);
    const auto f0 = file_cell.find('`');
    const std::string file = file_cell.substr(f0 + 1, file_cell.find('`', f0 + 1) - f0 - 1);
    for (std::size_t at = names_cell.find('`'); at != std::string::npos;) {
      const auto close = names_cell.find('`', at + 1);
      in_docs.insert({file, names_cell.substr(at + 1, close - at - 1)});
      at = names_cell.find('`', close + 1);
    }
  }
  REQUIRE_FALSE(in_docs.empty());
  for (const auto& [file, name] : in_code) {
    INFO(file << ": mutable " << name << " is not listed in docs/engine.md (Caches inside const methods)");
    CHECK(in_docs.contains({file, name}));
  }
  for (const auto& [file, name] : in_docs) {
    INFO("docs/engine.md lists " << file << ": " << name << ", which is no mutable member there");
    CHECK(in_code.contains({file, name}));
  }
}

TEST_CASE("no assert under sim/, models/, analysis/ or cli/: invariants are checked in Release too", "[unit]") {
  // assert compiles out under NDEBUG (Release): an invariant it guards fails silently there.
  // GCSIM_CHECK (sim/check.hpp) throws InternalError in every build type.
  std::vector<std::string> found;
  for (const fs::path& p : run_sources()) {
    std::istringstream lines(read_text(p));
    int number = 0;
    for (std::string line; std::getline(lines, line);) {
      ++number;
      const std::string code = code_of(line);
      bool hit = code.find("<cassert>") != std::string::npos || code.find("<assert.h>") != std::string::npos;
      for (auto at = code.find("assert"); at != std::string::npos; at = code.find("assert", at + 1)) {
        const bool word_start = at == 0 || !(std::isalnum(static_cast<unsigned char>(code[at - 1])) || code[at - 1] == '_');
        const auto after = code.find_first_not_of(" \t", at + 6);
        hit = hit || (word_start && after != std::string::npos && code[after] == '(');
      }
      if (hit) found.push_back(repo_path(p) + ":" + std::to_string(number) + ": " + line);
    }
  }
  for (const std::string& f : found) UNSCOPED_INFO(f);
  CHECK(found.empty());
  CHECK(run_sources().size() > 100);
}
