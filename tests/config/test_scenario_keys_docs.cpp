// The scenario reference lists exactly the keys the loader reads, with their defaults: for
// every KeySection of scenario_key_sections(), the table in the section's doc (under the
// heading naming the section, or headed "key of `<section>`") has one row per key of the
// section's key table and no other, each row's default cell reads as the key's
// default_text(), and the row of a typed key states its range_text() bounds, and the row of
// any key its spec's range text (a typed key's condition beyond its bounds, an untyped
// key's whole range), in the type cell or the meaning (`≥` reads as `>=`). A missing,
// extra, differently defaulted or differently bounded key fails with its name.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "models/config/scenario_keys.hpp"
#include "models/config/scheduler_reader.hpp"
#include "models/register_builtins.hpp"
#include "models/workload/model_catalog.hpp"
#include "models/scheduler/scheduler_registry.hpp"

namespace {

std::vector<std::string> split_row(const std::string& line) {
  // "| a | b |" -> {"a", "b"}; a '|' inside backticks (`done` \| `horizon`) is escaped.
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (line[i] == '|') {
      const auto b = cell.find_first_not_of(' ');
      const auto e = cell.find_last_not_of(' ');
      cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

// The names in backticks at the start of a key cell: "`pcie`, `nvlink`" -> {pcie, nvlink}.
std::vector<std::string> key_names(const std::string& cell) {
  std::vector<std::string> names;
  std::size_t at = 0;
  while (at < cell.size() && cell[at] == '`') {
    const auto close = cell.find('`', at + 1);
    if (close == std::string::npos) break;
    names.push_back(cell.substr(at + 1, close - at - 1));
    at = close + 1;
    while (at < cell.size() && (cell[at] == ',' || cell[at] == ' ')) ++at;
  }
  return names;
}

// `≥`, `≤` as `>=`, `<=`; "1,048,576" as "1048576" (a comma between digits).
std::string normalised(const std::string& line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line.compare(i, 3, "\u2265") == 0) {
      out += ">=";
      i += 2;
    } else if (line.compare(i, 3, "\u2264") == 0) {
      out += "<=";
      i += 2;
    } else if (line[i] == ',' && i > 0 && i + 1 < line.size() && std::isdigit(static_cast<unsigned char>(line[i - 1])) &&
               std::isdigit(static_cast<unsigned char>(line[i + 1]))) {
      continue;
    } else {
      out += line[i];
    }
  }
  return out;
}

struct DocTable {
  bool found = false;
  std::map<std::string, std::string> defaults;  // key -> default cell ("" when the table has no default column)
  std::map<std::string, std::string> rows;      // key -> its whole row, `≥` and `≤` as `>=` and `<=`
  bool has_default_column = false;
};

bool is_heading(const std::string& line) { return !line.empty() && line[0] == '#'; }

// The first table after the heading naming `path` (before the next heading), or the table
// headed "key of `path`".
DocTable find_table(const std::vector<std::string>& lines, std::string_view path) {
  DocTable t;
  const std::string named = "`" + std::string(path) + "`";
  std::size_t start = lines.size();
  for (std::size_t i = 0; i < lines.size() && start == lines.size(); ++i) {
    const bool heading = is_heading(lines[i]) &&
                         (path.empty() ? lines[i] == "## Top level" : lines[i].find(named) != std::string::npos);
    const bool header = lines[i].rfind("| key of " + named + " |", 0) == 0;
    if (heading) {
      for (std::size_t j = i + 1; j < lines.size() && !is_heading(lines[j]); ++j)
        if (lines[j].rfind("| key", 0) == 0) {
          start = j;
          break;
        }
    } else if (header) {
      start = i;
    }
  }
  if (start == lines.size()) return t;
  t.found = true;
  const std::vector<std::string> header = split_row(lines[start]);
  std::size_t def_col = header.size();
  for (std::size_t c = 0; c < header.size(); ++c)
    if (header[c] == "default") def_col = c;
  t.has_default_column = def_col < header.size();
  for (std::size_t i = start + 2; i < lines.size() && lines[i].rfind("|", 0) == 0; ++i) {
    const std::vector<std::string> cells = split_row(lines[i]);
    for (const std::string& k : key_names(cells.at(0))) {
      t.defaults[k] = def_col < cells.size() ? cells[def_col] : "";
      t.rows[k] = normalised(lines[i]);
    }
  }
  return t;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Every disagreement between a key table and its doc table, one line each.
std::vector<std::string> disagreements(const gcsim::models::DocumentedSection& s, const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  const std::string where = std::string(s.doc) + " `" + std::string(s.section.path) + "`: ";
  const DocTable t = find_table(lines, s.section.path);
  if (!t.found) return {where + "no table"};
  if (!t.has_default_column) out.push_back(where + "no default column");
  std::set<std::string> in_code;
  for (const auto& k : s.section.keys) {
    in_code.insert(std::string(k.name));
    const auto it = t.defaults.find(std::string(k.name));
    if (it == t.defaults.end()) {
      out.push_back(where + "key '" + std::string(k.name) + "' is not listed");
      continue;
    }
    // A required key's default cell is empty, or says "required".
    const std::string def = gcsim::config::default_text(k);
    const bool same = it->second == def || (k.required && def.empty() && it->second == "required");
    if (!same)
      out.push_back(where + "key '" + std::string(k.name) + "' has default '" + it->second + "' in the docs, '" + def +
                    "' in the key table");
    // A typed key's bounds, as range_text() writes them, and any condition beyond them (an
    // untyped key's range text): each stated in the key's row.
    gcsim::config::KeySpec bounds = k;
    bounds.range = {};
    const std::string& row = t.rows.at(std::string(k.name));
    const std::string range = k.typed() ? gcsim::config::range_text(bounds) : "";
    if (!range.empty() && row.find(range) == std::string::npos)
      out.push_back(where + "key '" + std::string(k.name) + "' does not state its range '" + range + "' in the docs");
    const std::string extra = normalised(std::string(k.range));
    if (!extra.empty() && row.find(extra) == std::string::npos)
      out.push_back(where + "key '" + std::string(k.name) + "' does not state its condition '" + extra + "' in the docs");
  }
  for (const auto& [key, def] : t.defaults)
    if (!in_code.count(key)) out.push_back(where + "key '" + key + "' is documented but not read");
  return out;
}

std::string docs_path(std::string_view doc) { return std::string(GCSIM_SOURCE_DIR) + "/docs/" + std::string(doc); }

}  // namespace

TEST_CASE("every scenario key table matches its table in the docs, key for key and default for default", "[unit][docs]") {
  const auto sections = gcsim::models::scenario_key_sections();
  REQUIRE(sections.size() >= 11);
  for (const auto& s : sections) {
    INFO(s.section.path);
    CHECK(disagreements(s, read_lines(docs_path(s.doc))) == std::vector<std::string>{});
  }
}

TEST_CASE("the docs check fails when a key is missing from the docs, extra, or given another default", "[unit][docs]") {
  const auto sections = gcsim::models::scenario_key_sections();
  const auto found = std::find_if(sections.begin(), sections.end(), [](const auto& s) { return s.section.path == "budgets"; });
  REQUIRE(found != sections.end());
  const auto& budgets = *found;
  const std::vector<std::string> lines = read_lines(docs_path(budgets.doc));
  REQUIRE(disagreements(budgets, lines).empty());

  std::vector<std::string> edited;
  for (const std::string& line : lines) {
    if (line.rfind("| `alert_at` |", 0) == 0) continue;  // a key left out
    if (line.rfind("| `check_every` |", 0) == 0) {
      edited.push_back("| `check_every` | no | duration | `2h` | changed default |");
      edited.push_back("| `owner` | no | text | | a key the loader does not read |");
      continue;
    }
    edited.push_back(line);
  }
  const std::vector<std::string> expected{
      "scenario-reference.md `budgets`: key 'alert_at' is not listed",
      "scenario-reference.md `budgets`: key 'check_every' has default '`2h`' in the docs, '`1h`' in the key table",
      "scenario-reference.md `budgets`: key 'check_every' does not state its range '>= 1s' in the docs",
      "scenario-reference.md `budgets`: key 'owner' is documented but not read",
  };
  CHECK(disagreements(budgets, edited) == expected);
}

TEST_CASE("the scheduler's common keys and every built-in policy's keys match their tables in the docs", "[unit][docs]") {
  const std::vector<std::string> lines = read_lines(docs_path("scenario-reference.md"));
  const std::vector<gcsim::config::KeySpec> common = gcsim::models::scheduler_common_keys();
  CHECK(disagreements({{"scheduler", common}, "scenario-reference.md"}, lines) == std::vector<std::string>{});
  const auto& policies = gcsim::models::builtins().schedulers.policies();
  REQUIRE(!policies.empty());
  for (const auto& [name, policy] : policies) {
    const std::string path = "policy: " + name;  // the heading "### `policy: fifo`"
    INFO(path);
    CHECK(disagreements({{path, policy.keys}, "scenario-reference.md"}, lines) == std::vector<std::string>{});
  }
}

TEST_CASE("the network, distribution, pricing and spot maps are listed with their key tables", "[unit][docs]") {
  std::map<std::string, std::string> doc_of;
  for (const auto& s : gcsim::models::scenario_key_sections()) doc_of[std::string(s.section.path)] = std::string(s.doc);
  const std::vector<std::pair<std::string, std::string>> expected{
      {"network", "network.md"},
      {"network(fabric: single-switch)", "network.md"},
      {"network(fabric: leaf-spine)", "network.md"},
      {"network(fabric: fat-tree)", "network.md"},
      {"network(fabric: explicit)", "network.md"},
      {"network.link", "network.md"},
      {"network.links[i]", "scenario-reference.md"},
      {"network.routes[i]", "scenario-reference.md"},
      {"cluster.node_types[i].pcie", "network.md"},
      {"cluster.node_types[i].nvlink", "network.md"},
      {"cluster.node_types[i].nics", "network.md"},
      {"distribution", "scenario-reference.md"},
      {"cluster.node_types[i].price", "pricing.md"},
      {"cluster.node_types[i].price.reserved", "pricing.md"},
      {"cluster.node_types[i].price.spot_profile", "pricing.md"},
      {"cluster.node_types[i].price.spot_profile.points[i]", "pricing.md"},
      {"cluster.node_types[i].price.billing", "scenario-reference.md"},
      {"cluster.node_types[i].ownership", "pricing.md"},
      {"cluster.node_types[i].interruptions", "spot.md"},
      {"cluster.node_types[i].interruptions.advisor", "spot.md"},
      {"cluster.node_types[i].interruptions.correlated", "spot.md"},
      {"cluster.node_types[i].availability", "spot.md"},
      {"cluster.node_types[i].availability.windows[i]", "spot.md"},
  };
  for (const auto& [path, doc] : expected) {
    INFO(path);
    CHECK(doc_of[path] == doc);
  }
}

TEST_CASE("the docs check fails when a documented range or condition differs from the key table", "[unit][docs]") {
  const auto sections = gcsim::models::scenario_key_sections();
  const auto section = [&](std::string_view path) {
    const auto found = std::find_if(sections.begin(), sections.end(), [&](const auto& s) { return s.section.path == path; });
    REQUIRE(found != sections.end());
    return *found;
  };
  const auto nics = section("cluster.node_types[i].nics");
  const auto pcie = section("cluster.node_types[i].pcie");
  REQUIRE(nics.doc == "network.md");
  const std::vector<std::string> lines = read_lines(docs_path(nics.doc));
  REQUIRE(disagreements(nics, lines).empty());
  REQUIRE(disagreements(pcie, lines).empty());

  std::vector<std::string> edited;
  for (const std::string& line : lines) {
    if (line.rfind("| `count` | integer 1..64 |", 0) == 0)
      edited.push_back("| `count` | integer 1..32 | `1` | NICs per node |");  // a typed key's bound changed
    else if (line.rfind("| `lanes` |", 0) == 0)
      edited.push_back("| `lanes` | integer 1..16 | `16` | lanes per GPU |");  // its condition dropped
    else
      edited.push_back(line);
  }
  CHECK(disagreements(nics, edited) ==
        std::vector<std::string>{"network.md `cluster.node_types[i].nics`: key 'count' does not state its range '1..64' in the docs"});
  CHECK(disagreements(pcie, edited) ==
        std::vector<std::string>{"network.md `cluster.node_types[i].pcie`: key 'lanes' does not state its condition 'a power "
                                 "of two: 1, 2, 4, 8 or 16' in the docs"});
}

TEST_CASE("a model catalog's anchor keys match their table in step-time.md", "[unit][docs]") {
  const std::vector<std::string> lines = read_lines(docs_path("step-time.md"));
  CHECK(disagreements({{"anchors[i]", gcsim::models::ANCHOR_KEYS}, "step-time.md"}, lines) == std::vector<std::string>{});
}
