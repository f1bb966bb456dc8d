// CSV tables ({file: x.csv} for links, routes and jobs): the rows become the same list of
// maps as inline YAML, with marks into the CSV, and every refusal of read_table has a case
// here; the section readers' own checks then report errors at the CSV's file:line:column.
#include <catch2/catch.hpp>

#include "support/scenario_support.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/config/workload_reader.hpp"
#include "models/topology/topology_spec.hpp"
#include "sim/config/csv.hpp"
#include "sim/config/csv_table.hpp"
#include "sim/config/reader.hpp"

using gcsim::ConfigError;
using gcsim::ErrorCode;
using gcsim::config::ConfigNode;
using gcsim::config::load_yaml_string;
using gcsim::config::read_table;
using gcsim::test::config_error;
using gcsim::test::TempDir;
using gcsim::test::write_file;

namespace {

// `table: {file: <name>}` in a scenario written (in name only) inside `dir`.
ConfigNode table_node(const TempDir& dir, const std::string& value) {
  return *load_yaml_string("table: " + value + "\n", dir.file("s.yaml")).root.find("table");
}

}  // namespace

TEST_CASE("an inline table is returned as it is", "[unit]") {
  const auto doc = load_yaml_string("t:\n  - {a: 1}\n  - {a: 2}\n", "s.yaml");
  const ConfigNode t = read_table(*doc.root.find("t"));
  REQUIRE(t.size() == 2);
  CHECK(t.at(1).find("a")->mark().line == 3);
  CHECK(&t.at(0) == &doc.root.find("t")->at(0));  // shared, not copied
  // Not a {file:} map: handed on for the section reader to refuse.
  CHECK(read_table(*load_yaml_string("t: 5\n", "s.yaml").root.find("t")).is_scalar());
}

TEST_CASE("a CSV table becomes a list of maps with marks into the CSV", "[unit]") {
  TempDir dir("csv-table");
  write_file(dir.file("r.csv"), "# routes\nfrom,to,links,note\nh0, h1 ,a;b; c,\n\n\"h1\",h0,\"c;b\",x\n");
  const ConfigNode t = read_table(table_node(dir, "{file: r.csv}"), {"links"});
  REQUIRE(t.is_sequence());
  REQUIRE(t.size() == 2);
  const ConfigNode& r0 = t.at(0);
  CHECK(r0.path() == "table[0]");
  CHECK(r0.mark().file == (dir.path() / "r.csv").lexically_normal().string());
  CHECK(r0.mark().line == 3);
  CHECK(r0.find("to")->scalar() == "h1");
  CHECK(r0.find("to")->mark().column == 5);
  CHECK(r0.find("note") == nullptr);  // an empty cell leaves the key out
  const ConfigNode& links = *r0.find("links");
  REQUIRE(links.is_sequence());
  REQUIRE(links.size() == 3);
  CHECK(links.at(2).scalar() == "c");
  CHECK(links.at(2).path() == "table[0].links[2]");
  CHECK(links.at(1).mark().column == 11);
  CHECK(t.at(1).mark().line == 5);  // blank and comment lines keep their line numbers
  CHECK(t.at(1).find("from")->quoted());
  CHECK(t.at(1).find("links")->size() == 2);
  CHECK(t.at(1).key_mark(0).line == 2);  // keys are marked at the header
  // An unknown column is reported at its header cell by the section's MapReader.
  const ConfigError e = config_error([&] {
    gcsim::config::MapReader r(t.at(1), {"from", "to", "links"});
    r.finish();
  });
  CHECK(e.code() == ErrorCode::UnknownKey);
  CHECK(e.mark().line == 2);
  CHECK(e.mark().column == 15);
}

TEST_CASE("read_table refuses bad tables, each at its place", "[unit]") {
  TempDir dir("csv-table-errors");
  auto error = [&](const std::string& csv, const std::string& value = "{file: t.csv}") {
    write_file(dir.file("t.csv"), csv);
    return config_error([&] { (void)read_table(table_node(dir, value), {"links"}); });
  };
  SECTION("a key beside file") { CHECK(error("a\n1\n", "{file: t.csv, sep: ';'}").code() == ErrorCode::UnknownKey); }
  SECTION("missing file, and a directory") {
    const ConfigError e = error("a\n", "{file: nowhere.csv}");
    CHECK(e.code() == ErrorCode::FileNotFound);
    CHECK(e.mark().file == dir.file("s.yaml"));  // at the scenario's `file:` value
    CHECK(e.key_path() == "table.file");
    std::filesystem::create_directories(dir.path() / "d.csv");
    CHECK(error("a\n", "{file: d.csv}").code() == ErrorCode::FileNotFound);
  }
  SECTION("no header") {
    CHECK(error("").code() == ErrorCode::EmptyFile);
    CHECK(error("# only a comment\n\n").code() == ErrorCode::EmptyFile);
  }
  SECTION("bad header cells") {
    const ConfigError empty = error("a,,b\n1,2,3\n");
    CHECK(empty.code() == ErrorCode::Syntax);
    CHECK(empty.mark().line == 1);
    CHECK(empty.mark().column == 3);
    CHECK(error("a,b c\n").code() == ErrorCode::Syntax);
  }
  SECTION("an open quote") { CHECK(error("a,b\n\"x,1\n").code() == ErrorCode::Syntax); }
  SECTION("a column twice") {
    const ConfigError e = error("a,b,a\n");
    CHECK(e.code() == ErrorCode::Duplicate);
    CHECK(e.mark().column == 5);
  }
  SECTION("more cells than the header") {
    const ConfigError e = error("a,b\n1,2\n1,2,3\n");
    CHECK(e.code() == ErrorCode::WrongType);
    CHECK(e.mark().line == 3);
    CHECK(e.mark().column == 5);
    CHECK(e.mark().file.find("t.csv") != std::string::npos);
  }
  SECTION("an empty list item") {
    const ConfigError e = error("links\na;;b\n");
    CHECK(e.code() == ErrorCode::WrongType);
    CHECK(e.key_path() == "table[0].links[1]");
    CHECK(e.mark().column == 3);
  }
}

TEST_CASE("an explicit fabric's links and routes may be CSV files, checked as inline ones", "[unit]") {
  TempDir dir("csv-fabric");
  write_file(dir.file("links.csv"), "name,between,bandwidth,latency\nl0,h0;sw,10Gbps,1us\nl1,sw;h1,10Gbps,\n");
  write_file(dir.file("routes.csv"), "from,to,links\nh0,h1,l0;l1\nh1,h0,l1;l0\n");
  const std::string net = "network:\n  fabric: explicit\n  hosts: [h0, h1]\n  links: {file: links.csv}\n";
  auto parse = [&](const std::string& yaml) {
    const auto doc = load_yaml_string(yaml, dir.file("s.yaml"));
    return gcsim::topology::parse_network_spec(*doc.root.find("network"));
  };
  const auto spec = parse(net + "  routes: {file: routes.csv}\n");
  REQUIRE(spec.links.size() == 2);
  CHECK(spec.links[1].a == "sw");
  CHECK(spec.routes.size() == 2);
  CHECK(spec.routes[1].links == std::vector<std::string>{"l1", "l0"});

  write_file(dir.file("bad.csv"), "from,to,links\nh0,h1,l0;l2\n");
  const ConfigError e = config_error([&] { parse(net + "  routes: {file: bad.csv}\n"); });
  CHECK(e.code() == ErrorCode::UnknownName);  // "no link named 'l2'; did you mean 'l0'?"
  CHECK(e.mark().file == (dir.path() / "bad.csv").lexically_normal().string());
  CHECK(e.mark().line == 2);
  CHECK(e.mark().column == 10);
  CHECK(e.key_path() == "network.routes[0].links[1]");
}

TEST_CASE("every row of a routes CSV is checked, in the plain form or not, with its error at its cell", "[unit]") {
  TempDir dir("csv-routes");
  write_file(dir.file("links.csv"), "name,between,bandwidth\nl0,h0;sw,10Gbps\nl1,sw;h1,10Gbps\nl2,sw;h2,10Gbps\n");
  const std::string net = "network:\n  fabric: explicit\n  hosts: [h0, h1, h2]\n  links: {file: links.csv}\n"
                          "  routes: {file: routes.csv}\n";
  auto parse = [&](const std::string& routes) {
    write_file(dir.file("routes.csv"), routes);
    const auto doc = load_yaml_string(net, dir.file("s.yaml"));
    return gcsim::topology::parse_network_spec(*doc.root.find("network"));
  };
  auto error = [&](const std::string& routes) { return config_error([&] { (void)parse(routes); }); };
  // Columns in any order, quoted cells, blanks around items: the same routes.
  const auto spec = parse("links,to,from\nl0;l1,h1,h0\n\"l1; l0\",\"h0\",h1\n l0 ; l2 ,h2,h0\n");
  REQUIRE(spec.routes.size() == 3);
  CHECK(spec.routes[0].links == std::vector<std::string>{"l0", "l1"});
  CHECK(spec.routes[1].from == "h1");
  CHECK(spec.routes[1].links == std::vector<std::string>{"l1", "l0"});
  CHECK(spec.routes[2].to == "h2");
  CHECK(spec.routes[2].links == std::vector<std::string>{"l0", "l2"});

  const std::string head = "from,to,links\nh0,h1,l0;l1\n";
  SECTION("an unknown host, after a good row") {
    const ConfigError e = error(head + "h0,h9,l0;l1\n");
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(e.mark().line == 3);
    CHECK(e.mark().column == 4);
    CHECK(e.key_path() == "network.routes[1].to");
  }
  SECTION("a pair given twice") {
    const ConfigError e = error(head + "h0,h1,l0;l1\n");
    CHECK(e.code() == ErrorCode::Duplicate);
    CHECK(e.mark().line == 3);
  }
  SECTION("a route from a host to itself") { CHECK(error(head + "h1,h1,l1\n").code() == ErrorCode::Infeasible); }
  SECTION("a link that does not touch where the route has reached") {
    const ConfigError e = error(head + "h0,h2,l0;l1;l2\n");
    CHECK(e.code() == ErrorCode::Infeasible);
    CHECK(e.key_path() == "network.routes[1].links[2]");
    CHECK(e.mark().column == 13);
  }
  SECTION("a route that ends elsewhere") { CHECK(error(head + "h0,h2,l0;l1\n").code() == ErrorCode::Infeasible); }
  SECTION("an empty item") {
    const ConfigError e = error(head + "h0,h2,l0;;l2\n");
    CHECK(e.code() == ErrorCode::WrongType);
    CHECK(e.key_path() == "network.routes[1].links[1]");
  }
  SECTION("an empty links cell, and no links column") {
    const ConfigError e = error(head + "h1,h0,\n");
    CHECK(e.code() == ErrorCode::MissingKey);
    CHECK(e.key_path() == "network.routes[1].links");
    CHECK(error("from,to\nh0,h1\n").code() == ErrorCode::MissingKey);
  }
  SECTION("a quoted empty host") { CHECK(error(head + "\"\",h1,l1\n").code() == ErrorCode::WrongType); }
}

TEST_CASE("a fabric CSV's header is read against the links' and routes' key tables", "[unit]") {
  TempDir dir("csv-fabric-keys");
  const std::string net = "network:\n  fabric: explicit\n  hosts: [h0, h1]\n  links: {file: links.csv}\n";
  auto error = [&](const std::string& yaml) {
    return config_error([&] {
      const auto doc = load_yaml_string(yaml, dir.file("s.yaml"));
      (void)gcsim::topology::parse_network_spec(*doc.root.find("network"));
    });
  };
  const std::string csv_file = (dir.path() / "links.csv").lexically_normal().string();
  // A misspelt required column: the typo, at its header cell, not "missing bandwidth".
  write_file(dir.file("links.csv"), "# links\nname,between,bandwith\nl0,h0;h1,10Gbps\n");
  const ConfigError link = error(net);
  CHECK(link.code() == ErrorCode::UnknownKey);
  CHECK_THAT(link.what(), Catch::Contains("did you mean 'bandwidth'?"));
  CHECK(link.mark().file == csv_file);
  CHECK(link.mark().line == 2);
  CHECK(link.mark().column == 14);
  CHECK(link.key_path() == "network.links");  // the column's text is never quoted (issue 27.2)
  CHECK_THAT(link.what(), Catch::Contains("header column 3") && !Catch::Contains("bandwith"));

  // An unknown column is refused even when every cell under it is empty.
  write_file(dir.file("links.csv"), "name,between,bandwidth\nl0,h0;h1,10Gbps\n");
  write_file(dir.file("routes.csv"), "from,to,links,lnks\nh0,h1,l0,\n");
  const ConfigError route = error(net + "  routes: {file: routes.csv}\n");
  CHECK(route.code() == ErrorCode::UnknownKey);
  CHECK(route.mark().file == (dir.path() / "routes.csv").lexically_normal().string());
  CHECK(route.mark().line == 1);
  CHECK(route.mark().column == 15);
  CHECK(route.key_path() == "network.routes");
}

TEST_CASE("a workload's jobs may be a CSV file", "[unit]") {
  TempDir dir("csv-jobs");
  write_file(dir.file("jobs.csv"), "name,gpus,duration,submit\nj0,1,2h,\nj1,2,30m,10m\n");
  const std::string head =
      "name: csv-jobs\nhorizon: 1d\ncluster:\n  node_types:\n"
      "    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 32}}\n";
  const auto s = gcsim::test::scenario_from_yaml(head + "workload:\n  jobs: {file: jobs.csv}\n", dir.file("s.yaml"));
  REQUIRE(s.workload.jobs.size() == 2);
  CHECK(s.workload.jobs[1].name == "j1");
  CHECK(s.workload.jobs[1].gpus == 2);

  write_file(dir.file("bad.csv"), "name,gpus,duration\nj0,1,2h\nj0,0,1h\n");
  const ConfigError e = config_error([&] {
    gcsim::test::scenario_from_yaml(head + "workload:\n  jobs: {file: bad.csv}\n", dir.file("s.yaml"));
  });
  CHECK(e.code() == ErrorCode::OutOfRange);  // gpus: 0
  CHECK(e.mark().line == 3);
  CHECK(e.mark().column == 4);
  CHECK(e.key_path() == "workload.jobs[1].gpus");
}

// Issue 27.22: a byte-order mark (as spreadsheets write) made the first column unknown, and
// a job's `gpu` list had no way to be written in a CSV cell.
TEST_CASE("a jobs CSV may start with a byte-order mark, and its gpu cells list GPUs split by semicolons", "[unit]") {
  TempDir dir("csv-jobs-gpu");
  const std::string head =
      "name: csv-jobs\nhorizon: 1d\ncluster:\n  node_types:\n"
      "    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 32}}\n"
      "workload:\n  jobs: {file: jobs.csv}\n";
  write_file(dir.file("jobs.csv"), "\xEF\xBB\xBFname,gpus,duration,gpu\nj0,1,2h,A100-40GB-SXM;H100-SXM\nj1,1,1h,\n"
                                   "j2,1,1h, A100-40GB-SXM \n");
  const auto s = gcsim::test::scenario_from_yaml(head, dir.file("s.yaml"));
  REQUIRE(s.workload.jobs.size() == 3);
  CHECK(s.workload.jobs[0].name == "j0");
  CHECK(s.workload.jobs[0].gpu_types == std::vector<std::string>{"A100-40GB-SXM", "H100-SXM"});
  CHECK(s.workload.jobs[1].gpu_types.empty());
  CHECK(s.workload.jobs[2].gpu_types == std::vector<std::string>{"A100-40GB-SXM"});

  // Columns count from after the mark: a misspelt first column is at column 1.
  write_file(dir.file("jobs.csv"), "\xEF\xBB\xBFnmae,gpus,duration\nj0,1,2h\n");
  const ConfigError bom = config_error([&] { gcsim::test::scenario_from_yaml(head, dir.file("s.yaml")); });
  CHECK(bom.code() == ErrorCode::UnknownKey);
  CHECK(bom.mark().line == 1);
  CHECK(bom.mark().column == 1);
  CHECK(bom.key_path() == "workload.jobs");  // a header cell is not quoted back (issue 27.2)

  // A list written the YAML way in a cell is one unknown name, and the message says how.
  write_file(dir.file("jobs.csv"), "name,gpus,duration,gpu\nj0,1,2h,\"[A100-40GB-SXM, H100-SXM]\"\n");
  const ConfigError list = config_error([&] { gcsim::test::scenario_from_yaml(head, dir.file("s.yaml")); });
  CHECK(list.code() == ErrorCode::UnknownName);
  CHECK(list.key_path() == "workload.jobs[0].gpu[0]");
  CHECK(std::string(list.what()).find("in a CSV cell") != std::string::npos);
  // An empty item is refused at its place, as in any list cell.
  write_file(dir.file("jobs.csv"), "name,gpus,duration,gpu\nj0,1,2h,A100-40GB-SXM;;H100-SXM\n");
  const ConfigError empty = config_error([&] { gcsim::test::scenario_from_yaml(head, dir.file("s.yaml")); });
  CHECK(empty.code() == ErrorCode::WrongType);
  CHECK(empty.mark().column == 23);
}

TEST_CASE("checks of the resolve step report at the CSV cell, and the CSV is a recorded input", "[unit]") {
  TempDir dir("csv-resolve");
  const std::string head =
      "name: csv-resolve\nhorizon: 1d\ncluster:\n  node_types:\n"
      "    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 32}}\n";
  const std::string jobs = "name,gpus,duration\nj0,1,2h\nj1,16,1h\n";
  write_file(dir.file("jobs.csv"), jobs);
  // Feasibility needs the cluster, so it is checked after every section is read; the
  // error still points into the CSV, where the job's gpus are written.
  const ConfigError e = config_error([&] {
    gcsim::test::scenario_from_yaml(head + "workload:\n  jobs: {file: jobs.csv}\n", dir.file("s.yaml"));
  });
  CHECK(e.code() == ErrorCode::Infeasible);
  CHECK(e.mark().file == (dir.path() / "jobs.csv").lexically_normal().string());
  CHECK(e.mark().line == 3);
  CHECK(e.mark().column == 4);
  CHECK(e.key_path() == "workload.jobs[1].gpus");

  write_file(dir.file("jobs.csv"), "name,gpus,duration,checkpoint\nj0,1,2h,\n");
  // A budget's team is checked against the workload's teams in the resolve step too.
  const ConfigError team = config_error([&] {
    gcsim::test::scenario_from_yaml(head + "workload:\n  jobs: {file: jobs.csv}\nbudgets:\n  - {team: vision, limit: 10}\n",
                                    dir.file("s.yaml"));
  });
  CHECK(team.code() == ErrorCode::UnknownName);
  CHECK(team.key_path() == "budgets[0].team");
  CHECK(team.mark().line == 9);
  CHECK(team.mark().column == 12);

  const auto s = gcsim::test::scenario_from_yaml(head + "workload:\n  jobs: {file: jobs.csv}\n", dir.file("s.yaml"));
  const auto it = std::find_if(s.inputs.begin(), s.inputs.end(),
                               [](const gcsim::config::SourceRecord& r) { return r.key == "workload.jobs.file"; });
  REQUIRE(it != s.inputs.end());
  CHECK(it->written == "jobs.csv");
  CHECK(*it->bytes == "name,gpus,duration,checkpoint\nj0,1,2h,\n");
}

// The fast path of a jobs CSV (models/config/workload_reader.cpp, read_plain_job): a table
// of only name, submit, gpus, duration and team columns is read straight from its cells.
// The same rows with one more column, left empty, go through each row's map as before:
// every job must come out the same, and every bad row must fail with the same error at the
// same cell (the two files differ only in their names).
TEST_CASE("a jobs CSV of plain columns reads as the same rows through their maps", "[unit]") {
  TempDir dir("csv-plain-jobs");
  const std::string head =
      "name: csv-plain\nhorizon: 30d\ncluster:\n  node_types:\n"
      "    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 2, price: {on_demand_per_hour: 32}}\n"
      "workload:\n  jobs: {file: ";
  const std::string columns = "name,submit,gpus,duration,team";
  // `rows` as read from a table of the plain columns, and from one with an empty `priority`
  // column added (so every row takes the map path).
  const auto both = [&](const std::string& rows) {
    std::string slow;
    for (std::size_t b = 0; b < rows.size();) {
      const std::size_t e = std::min(rows.find('\n', b), rows.size());
      slow += rows.substr(b, e - b) + ",\n";
      b = e + 1;
    }
    write_file(dir.file("plain.csv"), columns + "\n" + rows);
    write_file(dir.file("maps.csv"), columns + ",priority\n" + slow);
    return std::pair<std::string, std::string>{head + "plain.csv}\n", head + "maps.csv}\n"};
  };
  SECTION("good rows: the same jobs") {
    const auto [plain, maps] = both(
        "a,0s,1,1h,t1\n"
        ",10m,2,30m,\n"          // no name: job-1; no team
        "c,,8,1.5h,t2\n"         // no submit: 0
        "d,1d,007,90s,t1\n"      // leading zeros
        "e, 2h ,4,2d,t3\n"       // blanks around a cell
        "f,5m,+3,1h,t1\n"        // a sign: the map path reads it
        "g,5m,16k,1h,t1\n"       // a count suffix: the map path reads it (infeasible? no: 16000 > 16, see below)
        "\"h i\",1h,1,1h,\"t 4\"\n"  // quoted cells: the map path
        "j.k-l_m,1.25h,2,1e3s,t2\n"
        "n,1d2h,1,1ms,t1\n");
    // 16k GPUs fit no node: that row is refused by the resolve step in both; drop it.
    const ConfigError e1 = config_error([&] { gcsim::test::scenario_from_yaml(plain, dir.file("s.yaml")); });
    const ConfigError e2 = config_error([&] { gcsim::test::scenario_from_yaml(maps, dir.file("s.yaml")); });
    CHECK(e1.code() == ErrorCode::Infeasible);
    CHECK(e1.code() == e2.code());
    CHECK(e1.mark().line == 8);
    CHECK(e1.mark().line == e2.mark().line);
    CHECK(e1.mark().column == e2.mark().column);
    CHECK(e1.key_path() == "workload.jobs[6].gpus");
    CHECK(e1.detail() == e2.detail());
  }
  SECTION("good rows: the same specs") {
    const auto [plain, maps] = both(
        "a,0s,1,1h,t1\n"
        ",10m,2,30m,\n"
        "c,,8,1.5h,t2\n"
        "d,1d,007,90s,t1\n"
        "e, 2h ,4,2d,t3\n"
        "f,5m,+3,1h,t1\n"
        "\"h i\",1h,1,1h,\"t 4\"\n"
        "j.k-l_m,1.25h,2,1e3s,t2\n"
        "n,1d2h,1,1ms,t1\n"
        "o,7m,16,3h,t0\n");
    const auto a = gcsim::test::scenario_from_yaml(plain, dir.file("s.yaml"));
    const auto b = gcsim::test::scenario_from_yaml(maps, dir.file("s.yaml"));
    REQUIRE(a.workload.jobs.size() == 10);
    REQUIRE(b.workload.jobs.size() == 10);
    CHECK(a.workload.teams == b.workload.teams);
    CHECK(a.workload.teams == std::vector<std::string>{"t 4", "t0", "t1", "t2", "t3"});
    for (std::size_t i = 0; i < a.workload.jobs.size(); ++i) {
      INFO(i);
      gcsim::test::check_same_plain_job(a.workload.jobs[i], b.workload.jobs[i]);
    }
    // By hand: job-1 has no name of its own; 1.5 h; 007 is 7; 1d2h; 1e3 s.
    CHECK(a.workload.jobs[1].name == "job-1");
    CHECK(a.workload.jobs[1].team == -1);
    CHECK(a.workload.jobs[2].duration->ns() == 5'400'000'000'000);
    CHECK(a.workload.jobs[3].gpus == 7);
    CHECK(a.workload.jobs[8].submit.ns() == 93'600'000'000'000);
    CHECK(a.workload.jobs[7].duration->ns() == 1'000'000'000'000);
    CHECK(a.workload.jobs[9].gpus == 16);
    // The fast path took 7 of the 10 rows: not the first (which marks the table), the one
    // with a sign (+3) nor the one with quoted cells; of the table with one more column, none.
    const auto plain_rows = [&](const std::string& file) {
      const gcsim::config::ConfigDocument doc = load_yaml_string("jobs: {file: " + file + "}\n", dir.file("s.yaml"));
      gcsim::config::SourceResolver sources;
      return gcsim::models::read_workload(doc.root, gcsim::test::bundled_catalogs().models, sources).jobs_csv_plain_rows;
    };
    CHECK(plain_rows("plain.csv") == 7);
    CHECK(plain_rows("maps.csv") == 0);
  }
  SECTION("bad rows: the same error at the same cell") {
    const std::vector<std::string> bad{
        "b,0s,0,1h,t1",           // gpus below 1
        "b,0s,1.5,1h,t1",         // not an integer
        "b,0s,2000000,1h,t1",     // above 2^20
        "b,0s,\"8\",1h,t1",       // quoted number
        "b,0s,x,1h,t1",
        "b,0s,,1h,t1",            // gpus missing
        "b,0s,1,0s,t1",           // duration below 1 ns
        "b,0s,1,abc,t1",
        "b,0s,1,5x,t1",
        "b,0s,1,3600,t1",         // no unit
        "b,0s,1,,t1",             // duration missing
        "b,-1h,1,1h,t1",          // submit before 0
        "b,soon,1,1h,t1",
        "b/c,0s,1,1h,t1",         // a name with '/'
        "b,0s,1,1h,t\\1",         // a team with '\'
        "a,0s,1,1h,t1",           // a name used twice
        std::string(300, 'n') + ",0s,1,1h,t1",  // a name too long
        "b,0s,17,1h,t1",          // no node holds 17 GPUs (resolve step)
    };
    for (const std::string& row : bad) {
      INFO(row);
      const auto [plain, maps] = both("a,0s,1,1h,t1\n" + row + "\nz,0s,1,1h,t1\n");
      const ConfigError e1 = config_error([&] { gcsim::test::scenario_from_yaml(plain, dir.file("s.yaml")); });
      const ConfigError e2 = config_error([&] { gcsim::test::scenario_from_yaml(maps, dir.file("s.yaml")); });
      CHECK(e1.code() == e2.code());
      CHECK(e1.mark().line == 3);
      CHECK(e1.mark().line == e2.mark().line);
      CHECK(e1.mark().column == e2.mark().column);
      CHECK(e1.key_path() == e2.key_path());
      CHECK(e1.detail() == e2.detail());
    }
  }
}

// The jobs table is read in one pass: a job's error is held while the rest of the rows are
// read, so an error in the CSV itself, later in the file, is still the one reported (as when
// the rows were walked twice); with none, the first job's error is.
TEST_CASE("a jobs CSV's own errors come before its jobs' errors, wherever they are", "[unit]") {
  TempDir dir("csv-job-order");
  const std::string head =
      "name: order\nhorizon: 1d\ncluster:\n  node_types:\n"
      "    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 32}}\n"
      "workload:\n  jobs: {file: jobs.csv}\n";
  const auto load_error = [&](const std::string& csv) {
    write_file(dir.file("jobs.csv"), csv);
    return config_error([&] { gcsim::test::scenario_from_yaml(head, dir.file("s.yaml")); });
  };
  // Row 3 (line 4) asks for 0 GPUs; line 6 opens a quote it never closes.
  const ConfigError quote = load_error("name,gpus,duration\na,1,1h\nb,1,1h\nc,0,1h\nd,1,1h\n\"e,1,1h\n");
  CHECK(quote.code() == ErrorCode::Syntax);
  CHECK(quote.mark().line == 6);
  CHECK(quote.mark().column == 1);
  // A duplicate name on line 3, a row wider than the header on line 5.
  const ConfigError wide = load_error("name,gpus,duration\na,1,1h\na,1,1h\nb,1,1h\nc,1,1h,9\n");
  CHECK(wide.code() == ErrorCode::WrongType);
  CHECK(wide.mark().line == 5);
  CHECK(wide.mark().column == 8);
  // The CSV is sound: the first job's error, not a later one's.
  const ConfigError first = load_error("name,gpus,duration\na,1,1h\na,1,1h\nb,0,1h\n");
  CHECK(first.code() == ErrorCode::Duplicate);
  CHECK(first.mark().line == 3);
  CHECK(first.key_path() == "workload.jobs[1]");
}

// The names are checked by an open-addressing table sized from the file's lines: a name
// used twice is found however far apart the two rows are, and only then.
TEST_CASE("a name used twice in a long jobs CSV is found at its second row", "[unit]") {
  TempDir dir("csv-job-names");
  const std::string head =
      "name: names\nhorizon: 30d\ncluster:\n  node_types:\n"
      "    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 32}}\n"
      "workload:\n  jobs: {file: jobs.csv}\n";
  std::string rows = "name,gpus,duration\n";
  for (int i = 0; i < 5000; ++i) rows += "job" + std::to_string(i) + ",1,1h\n";
  write_file(dir.file("jobs.csv"), rows);
  CHECK(gcsim::test::scenario_from_yaml(head, dir.file("s.yaml")).workload.jobs.size() == 5000);
  write_file(dir.file("jobs.csv"), rows + "job17,1,1h\n");  // row 5001 repeats row 18's name
  const ConfigError e = config_error([&] { gcsim::test::scenario_from_yaml(head, dir.file("s.yaml")); });
  CHECK(e.code() == ErrorCode::Duplicate);
  CHECK(e.mark().line == 5002);
  CHECK(e.detail().find("job name 'job17' is used twice") != std::string::npos);
}

// csv::Reader keeps its line and the row's field buffers from row to row: a row narrower
// than the last, an unquoted cell after a quoted one and an empty trailing cell must each
// read as if the row were the first.
TEST_CASE("csv::Reader reads each row whole, whatever the row before it was", "[unit]") {
  std::istringstream in("a,\"b, c\",d\n\"x\"\"y\"\ne ,f,\n\n# note\n  g\n\"multi\nline\",h\n");
  gcsim::config::csv::Reader reader(in, "t.csv", true);
  gcsim::config::csv::Row row;
  const auto texts = [&] {
    std::vector<std::string> out;
    for (const auto& f : row.fields) out.push_back(f.text + (f.quoted ? "(q)" : "") + "@" + std::to_string(f.column));
    return out;
  };
  REQUIRE(reader.next(row));
  CHECK(row.line == 1);
  CHECK(texts() == std::vector<std::string>{"a@1", "b, c(q)@3", "d@10"});
  REQUIRE(reader.next(row));
  CHECK(row.line == 2);
  CHECK(texts() == std::vector<std::string>{"x\"y(q)@1"});
  REQUIRE(reader.next(row));
  CHECK(row.line == 3);
  CHECK(texts() == std::vector<std::string>{"e@1", "f@4", "@6"});
  REQUIRE(reader.next(row));
  CHECK(row.line == 6);
  CHECK(texts() == std::vector<std::string>{"g@3"});
  REQUIRE(reader.next(row));
  CHECK(row.line == 7);
  CHECK(texts() == std::vector<std::string>{"multi\nline(q)@1", "h@7"});
  CHECK_FALSE(reader.next(row));
}
