// What the project ships must stand on its own: an example or a doc that points into a
// folder beside the checkout (the developers' ../shared/) points a user at nothing, and the
// CI scripts must leave the choice of a package host to the tools (debootstrap's and apt's
// own defaults), naming none of their own.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
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
