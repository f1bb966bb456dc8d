// The layers the build declares hold for every include, header-only ones too: sim/ includes
// only sim/; analysis/ only sim/ and the trace schema; each model package only itself and
// the packages it declares in models/CMakeLists.txt (written at configure time to
// generated/model_packages.txt), directly or through them. Calls that run back up fail to
// link already (layer_check_<package>); an include of a header-only part would not, which
// this test catches.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using Packages = std::map<std::string, std::set<std::string>>;  // package folder -> declared packages

// "core:\ngpu:\nworkload:gpu\npricing:core;gpu\n..." ("." is the folder models/ itself).
Packages parse_packages(const std::string& text) {
  Packages out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const auto colon = line.find(':');
    std::set<std::string>& deps = out[line.substr(0, colon)];
    std::istringstream list(line.substr(colon + 1));
    for (std::string d; std::getline(list, d, ';');)
      if (!d.empty()) deps.insert(d);
  }
  return out;
}

// Each package with every package it may include: itself, its declared ones and theirs.
Packages closure(const Packages& declared) {
  Packages all;
  for (const auto& [p, _] : declared) {
    std::set<std::string>& reach = all[p];
    std::vector<std::string> todo{p};
    while (!todo.empty()) {
      const std::string q = todo.back();
      todo.pop_back();
      if (!reach.insert(q).second) continue;
      if (auto it = declared.find(q); it != declared.end())
        for (const auto& d : it->second) todo.push_back(d);
    }
  }
  return all;
}

// The model package of a path under models/ ("models/cluster/cluster.hpp" -> "cluster",
// "models/simulation.hpp" -> ".").
std::string package_of(const std::string& models_path) {
  const std::string rest = models_path.substr(std::string("models/").size());
  const auto slash = rest.find('/');
  return slash == std::string::npos ? "." : rest.substr(0, slash);
}

struct Source {
  std::string path;  // relative to the source tree
  std::string text;
};

// "path:line: includes X, outside its layers" for every include that breaks them.
std::vector<std::string> layer_violations(const std::vector<Source>& sources, const Packages& reach) {
  static const std::regex include_re(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::vector<std::string> out;
  for (const Source& s : sources) {
    std::istringstream in(s.text);
    int line_no = 0;
    for (std::string line; std::getline(in, line);) {
      ++line_no;
      std::smatch m;
      if (!std::regex_search(line, m, include_re)) continue;
      const std::string inc = m[1];
      bool ok = false;
      if (s.path.rfind("sim/", 0) == 0) {
        ok = inc.rfind("sim/", 0) == 0 || inc == "gcsim/version.hpp";
      } else if (s.path.rfind("analysis/", 0) == 0) {
        ok = inc.rfind("sim/", 0) == 0 || inc.rfind("analysis/", 0) == 0 || inc == "models/trace/schema.hpp" ||
             inc == "gcsim/version.hpp";
      } else if (s.path.rfind("models/", 0) == 0) {
        const auto it = reach.find(package_of(s.path));
        if (it == reach.end()) {
          out.push_back(s.path + ": in models/" + package_of(s.path) + ", which models/CMakeLists.txt declares no package for");
          break;
        }
        ok = inc.rfind("sim/", 0) == 0 || inc == "gcsim/version.hpp" ||
             (inc.rfind("models/", 0) == 0 && it->second.count(package_of(inc)));
      } else {
        ok = true;  // cli/, bench/, tests/ see everything
      }
      if (!ok) out.push_back(s.path + ":" + std::to_string(line_no) + ": includes " + inc + ", outside its layers");
    }
  }
  return out;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<Source> sources_under(const std::string& folder) {
  std::vector<Source> out;
  const fs::path src = GCSIM_SOURCE_DIR;
  for (const auto& e : fs::recursive_directory_iterator(src / folder)) {
    const std::string ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".hpp" || ext == ".cpp"))
      out.push_back({fs::relative(e.path(), src).generic_string(), read_text(e.path())});
  }
  return out;
}

}  // namespace

TEST_CASE("the layer check refuses an include that runs back up and accepts one that goes down", "[unit]") {
  const Packages reach = closure(parse_packages("core:\nworkload:\nscheduler:core;workload\nconfig:scheduler\n"));
  CHECK(reach.at("config") == std::set<std::string>{"config", "scheduler", "core", "workload"});
  const std::vector<Source> sources{
      {"models/scheduler/a.hpp", "#include \"models/workload/job.hpp\"\n#include \"sim/time.hpp\"\n"},
      {"models/config/b.cpp", "#include \"models/core/limits.hpp\"\n"},  // through scheduler
      {"models/scheduler/c.cpp", "// x\n#include \"models/config/scenario.hpp\"\n"},
      {"sim/d.hpp", "#include \"models/workload/job.hpp\"\n"},
      {"analysis/e.hpp", "#include \"models/trace/schema.hpp\"\n#include \"models/cluster/cluster.hpp\"\n"},
      {"models/newpkg/f.cpp", "#include \"sim/time.hpp\"\n"},
  };
  CHECK(layer_violations(sources, reach) ==
        std::vector<std::string>{
            "models/scheduler/c.cpp:2: includes models/config/scenario.hpp, outside its layers",
            "sim/d.hpp:1: includes models/workload/job.hpp, outside its layers",
            "analysis/e.hpp:2: includes models/cluster/cluster.hpp, outside its layers",
            "models/newpkg/f.cpp: in models/newpkg, which models/CMakeLists.txt declares no package for",
        });
}

TEST_CASE("every include stays within its package's declared layers", "[unit]") {
  const fs::path list = fs::path(GCSIM_BINARY_DIR) / "generated" / "model_packages.txt";
  REQUIRE(fs::exists(list));
  const Packages declared = parse_packages(read_text(list));
  REQUIRE(declared.size() >= 15);
  std::vector<Source> sources;
  for (const char* folder : {"sim", "models", "analysis"}) {
    std::vector<Source> s = sources_under(folder);
    sources.insert(sources.end(), s.begin(), s.end());
  }
  REQUIRE(sources.size() > 150);
  const std::vector<std::string> bad = layer_violations(sources, closure(declared));
  for (const auto& b : bad) UNSCOPED_INFO(b);
  CHECK(bad.empty());
}
