// YAML loading: tree shape, 1-based marks and dotted paths, and every loader error
// (missing file, empty file, syntax, duplicates, non-text keys, nesting and alias guards).
// The inputs under "regression" came from the fuzzer (tests/fuzz/scenario_fuzz.cpp).
#include <catch2/catch.hpp>

#include "support/scenario_support.hpp"

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/config/config_node.hpp"
#include "sim/config/reader.hpp"

using gcsim::ConfigError;
using gcsim::ErrorCode;
using gcsim::config::ConfigDocument;
using gcsim::config::ConfigNode;
using gcsim::config::load_yaml_file;
using gcsim::config::load_yaml_string;

namespace {

using gcsim::test::config_error;

ErrorCode load_error(const std::string& text) {
  return config_error([&] { load_yaml_string(text, "t.yaml"); }).code();
}

// A scratch folder under the build tree, removed with it.
std::filesystem::path scratch_dir() {
  auto dir = std::filesystem::path(GCSIM_BINARY_DIR) / "test-scratch" / "config";
  std::filesystem::create_directories(dir);
  return dir;
}

const char* const SCENARIO = R"(# a comment
name: demo
cluster:
  node_types:
    - name: dgx
      gpus: 8
      gpu: "H100"
    - {name: small, gpus: 1}
  spare:
workload: [a, b]
)";

}  // namespace

TEST_CASE("a document becomes a tree with 1-based marks and dotted paths", "[unit]") {
  const ConfigDocument doc = load_yaml_string(SCENARIO, "x.yaml");
  CHECK(doc.file == "x.yaml");
  CHECK(doc.text == SCENARIO);
  const ConfigNode& root = doc.root;
  REQUIRE(root.is_map());
  CHECK(root.path().empty());
  CHECK(root.entries().size() == 3);
  CHECK(root.entries()[0].first == "name");  // document order is kept

  const ConfigNode& types = root.find("cluster")->find("node_types")->at(0);
  CHECK(types.path() == "cluster.node_types[0]");
  const ConfigNode& gpus = *types.find("gpus");
  CHECK(gpus.path() == "cluster.node_types[0].gpus");
  CHECK(gpus.scalar() == "8");
  CHECK_FALSE(gpus.quoted());
  CHECK(gpus.mark().file == "x.yaml");
  CHECK(gpus.mark().line == 6);
  CHECK(gpus.mark().column == 13);
  // The key's own position, for unknown-key errors.
  CHECK(types.key_mark(1).line == 6);
  CHECK(types.key_mark(1).column == 7);

  const ConfigNode& gpu = *types.find("gpu");
  CHECK(gpu.quoted());
  CHECK(gpu.scalar() == "H100");

  const ConfigNode& flow = root.find("cluster")->find("node_types")->at(1);
  CHECK(flow.find("gpus")->path() == "cluster.node_types[1].gpus");
  CHECK(flow.find("gpus")->mark().line == 8);
  CHECK(flow.find("gpus")->mark().column == 27);

  // An empty value is null and carries its key's position, not the next line's.
  const ConfigNode& spare = *root.find("cluster")->find("spare");
  CHECK(spare.is_null());
  CHECK(spare.mark().line == 9);
  CHECK(spare.mark().column == 3);

  const ConfigNode& workload = *root.find("workload");
  REQUIRE(workload.is_sequence());
  CHECK(workload.size() == 2);
  CHECK(workload.at(1).path() == "workload[1]");
  CHECK(workload.at(1).scalar() == "b");
}

TEST_CASE("a node copied out of its document keeps its file, marks, key marks and path", "[unit]") {
  // The fast path (plain text) and yaml-cpp (an anchor) build the tree differently; a
  // copy must hold what it points to in both, the document gone.
  for (const std::string text : {"a:\n  jobs:\n    - {name: j, gpus: 2}\n",
                                 "a:\n  jobs:\n    - &x {name: j, gpus: 2}\n"}) {
    ConfigNode job;
    {
      const ConfigDocument doc = load_yaml_string(text, "copy.yaml");
      job = doc.root.find("a")->find("jobs")->at(0);
    }
    CHECK(job.path() == "a.jobs[0]");
    CHECK(job.mark().file == "copy.yaml");
    CHECK(job.mark().line == 3);
    REQUIRE(job.entries().size() == 2);
    CHECK(job.key_mark(1).line == 3);
    CHECK(job.key_mark(1).column == (text.find('&') == std::string::npos ? 17 : 20));
    const ConfigNode gpus = *job.find("gpus");
    CHECK(gpus.path() == "a.jobs[0].gpus");
    CHECK(gpus.scalar() == "2");
    CHECK(gpus.mark().file == "copy.yaml");
  }
}

TEST_CASE("node accessors refuse the wrong kind", "[unit]") {
  const ConfigDocument doc = load_yaml_string(SCENARIO, "x.yaml");
  const ConfigNode& name = *doc.root.find("name");
  CHECK(config_error([&] { (void)name.entries(); }).code() == ErrorCode::WrongType);
  CHECK(config_error([&] { (void)name.items(); }).code() == ErrorCode::WrongType);
  CHECK(config_error([&] { (void)doc.root.scalar(); }).code() == ErrorCode::WrongType);
  CHECK(config_error([&] { (void)doc.root.find("workload")->at(5); }).code() == ErrorCode::OutOfRange);
  REQUIRE_THROWS_AS(name.find("x"), ConfigError);
  CHECK(name.kind_name() == "scalar");
  CHECK(doc.root.kind_name() == "map");
  CHECK(doc.root.find("workload")->kind_name() == "list");
  CHECK(doc.root.find("cluster")->find("spare")->kind_name() == "null");
}

TEST_CASE("null spellings, explicit strings and aliases", "[unit]") {
  const ConfigDocument doc = load_yaml_string("a: ~\nb: null\nc: 'null'\nd: &x [1, 2]\ne: *x\nf: !!str 5\n", "t.yaml");
  CHECK(doc.root.find("a")->is_null());
  CHECK(doc.root.find("b")->is_null());
  CHECK(doc.root.find("c")->is_scalar());
  CHECK(doc.root.find("c")->quoted());
  REQUIRE(doc.root.find("e")->is_sequence());
  CHECK(doc.root.find("e")->at(1).scalar() == "2");
  CHECK(doc.root.find("e")->at(1).path() == "e[1]");  // paths follow the alias's place
  CHECK(doc.root.find("f")->quoted());
}

TEST_CASE("a root that is not a map loads, the schema layer refuses it", "[unit]") {
  CHECK(load_yaml_string("[1, 2]", "t.yaml").root.is_sequence());
  CHECK(load_yaml_string("42", "t.yaml").root.is_scalar());
  CHECK(load_yaml_string("~", "t.yaml").root.is_null());
  const ConfigDocument doc = load_yaml_string("- a\n- b\n", "t.yaml");
  CHECK(config_error([&] { gcsim::config::MapReader r(doc.root); }).code() == ErrorCode::WrongType);
}

TEST_CASE("load_yaml_file reads a file and keeps its text", "[unit]") {
  const auto path = scratch_dir() / "ok.yaml";
  {
    std::ofstream out(path, std::ios::binary);
    out << "a: 1\r\nb: [x]\r\n";
  }
  const ConfigDocument doc = load_yaml_file(path.string());
  CHECK(doc.file == path.string());
  CHECK(doc.text == "a: 1\r\nb: [x]\r\n");
  CHECK(doc.root.find("b")->at(0).scalar() == "x");
  CHECK(doc.root.find("b")->at(0).mark().file == path.string());
}

TEST_CASE("missing, unreadable and directory paths are FileNotFound", "[unit]") {
  const auto missing = (scratch_dir() / "no-such-file.yaml").string();
  const ConfigError e = config_error([&] { load_yaml_file(missing); });
  CHECK(e.code() == ErrorCode::FileNotFound);
  CHECK(e.mark().file == missing);
  CHECK(config_error([&] { load_yaml_file(scratch_dir().string()); }).code() == ErrorCode::FileNotFound);
  REQUIRE_THROWS_AS(load_yaml_file(""), ConfigError);
  // A device would never end ("/dev/zero"); refused before reading.
  CHECK(config_error([] { load_yaml_file("/dev/null"); }).code() == ErrorCode::FileNotFound);
}

TEST_CASE("empty and comment-only documents are EmptyFile", "[unit]") {
  CHECK(load_error("") == ErrorCode::EmptyFile);
  CHECK(load_error("   \n\n\t\n") == ErrorCode::EmptyFile);
  CHECK(load_error("# only a comment\n  # another\n") == ErrorCode::EmptyFile);
  CHECK(load_error("---\n") == ErrorCode::EmptyFile);
  CHECK(load_error("--- # nothing\n...\n") == ErrorCode::EmptyFile);
  const auto path = scratch_dir() / "empty.yaml";
  std::ofstream(path) << "# nothing here\n";
  REQUIRE_THROWS_AS(load_yaml_file(path.string()), ConfigError);
  CHECK(config_error([&] { load_yaml_file(path.string()); }).code() == ErrorCode::EmptyFile);
}

TEST_CASE("syntax errors carry yaml-cpp's position, 1-based", "[unit]") {
  const ConfigError e = config_error([] { load_yaml_string("a: [1\nb: 2\n", "s.yaml"); });
  CHECK(e.code() == ErrorCode::Syntax);
  CHECK(e.mark().file == "s.yaml");
  CHECK(e.mark().line == 2);
  CHECK(e.mark().column == 2);
  // yaml-cpp alone would let an open quote swallow the rest of the file.
  const ConfigError open_quote = config_error([] { load_yaml_string("a: 1\nb: \"unterminated\nc: 2\n", "q.yaml"); });
  CHECK(open_quote.code() == ErrorCode::Syntax);
  CHECK(open_quote.mark().line == 2);
  CHECK(open_quote.mark().column == 4);
  CHECK(load_error("a: 'unterminated\n") == ErrorCode::Syntax);
  CHECK(load_error("a: 'it''s\n") == ErrorCode::Syntax);
  CHECK(load_error("a: \"x\\\"\n") == ErrorCode::Syntax);
  CHECK_NOTHROW(load_yaml_string("a: 'it''s'\nb: \"q\\\"q\"\nc: \"multi\n  line\"\n", "t.yaml"));
  CHECK(load_error("a: b: c\n") == ErrorCode::Syntax);
  CHECK(load_error("a:\n  - x\n  y: 1\n") == ErrorCode::Syntax);
  CHECK(load_error("{a: 1\n") == ErrorCode::Syntax);
  CHECK(load_error("a: *nowhere\n") == ErrorCode::Syntax);
  // Several documents in one scenario file are refused, not silently cut to the first.
  const ConfigError multi = config_error([] { load_yaml_string("a: 1\n---\nb: 2\n", "m.yaml"); });
  CHECK(multi.code() == ErrorCode::Syntax);
  CHECK(multi.mark().line == 2);  // at the '---'
  // A stray ',' at the top level: yaml-cpp's LoadAll would loop forever (fuzzer finding).
  CHECK(load_error(",") == ErrorCode::Syntax);
  CHECK(load_error("[a],") == ErrorCode::Syntax);
  CHECK(load_error(", a") == ErrorCode::Syntax);
  CHECK(load_error("a: 1\n, b\n") == ErrorCode::Syntax);
}

TEST_CASE("a key repeated in one map is Duplicate, at the second occurrence", "[unit]") {
  const ConfigError e = config_error([] { load_yaml_string("a: 1\nb:\n  c: 1\n  c: 2\n", "d.yaml"); });
  CHECK(e.code() == ErrorCode::Duplicate);
  CHECK(e.key_path() == "b.c");
  CHECK(e.mark().line == 4);
  CHECK(e.mark().column == 3);
  CHECK(load_error("a: 1\na: 1\n") == ErrorCode::Duplicate);
  CHECK(load_error("- {x: 1, x: 2}\n") == ErrorCode::Duplicate);
  // The same key in sibling maps is fine.
  CHECK_NOTHROW(load_yaml_string("- {x: 1}\n- {x: 2}\n", "t.yaml"));
}

TEST_CASE("map keys must be text", "[unit]") {
  CHECK(load_error("? [k]\n: v\n") == ErrorCode::WrongType);
  CHECK(load_error("{[a]: 1}\n") == ErrorCode::WrongType);
  CHECK(load_error("? {a: 1}\n: v\n") == ErrorCode::WrongType);
  CHECK(load_error("~: 1\n") == ErrorCode::WrongType);
}

TEST_CASE("nesting beyond 64 levels is TooDeep, without exhausting the stack", "[unit]") {
  auto brackets = [](int n) { return std::string(n, '[') + "1" + std::string(n, ']'); };
  CHECK_NOTHROW(load_yaml_string(brackets(gcsim::config::MAX_DEPTH), "t.yaml"));
  CHECK(load_error(brackets(gcsim::config::MAX_DEPTH + 1)) == ErrorCode::TooDeep);
  // The inputs that overflow a recursive parser: unbalanced and huge.
  CHECK(load_error(std::string(100000, '[')) == ErrorCode::TooDeep);
  CHECK(load_error(std::string(100000, '{')) == ErrorCode::TooDeep);
  CHECK(load_error("a: " + std::string(50000, '[')) == ErrorCode::TooDeep);

  const ConfigError pos = config_error([&] { load_yaml_string("a:\n  b: " + std::string(200, '['), "t.yaml"); });
  CHECK(pos.code() == ErrorCode::TooDeep);
  CHECK(pos.mark().line == 2);
  CHECK(pos.mark().column > 0);

  std::string dashes;
  for (int i = 0; i < 20000; ++i) dashes += "- ";
  CHECK(load_error(dashes + "x\n") == ErrorCode::TooDeep);

  std::string indented;
  for (int i = 0; i < 3000; ++i) indented += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
  CHECK(load_error(indented) == ErrorCode::TooDeep);

  // Brackets inside quotes, comments and block scalars are text.
  CHECK_NOTHROW(load_yaml_string("a: \"" + std::string(1000, '[') + "\"\n", "t.yaml"));
  CHECK_NOTHROW(load_yaml_string("a: '" + std::string(1000, '{') + "'\n", "t.yaml"));
  CHECK_NOTHROW(load_yaml_string("a: 1 # " + std::string(1000, '[') + "\n", "t.yaml"));
  CHECK_NOTHROW(load_yaml_string("a: |\n  " + std::string(1000, '[') + "\n  more\nb: 2\n", "t.yaml"));
  CHECK_NOTHROW(load_yaml_string("a: x" + std::string(1000, '[') + "\n", "t.yaml"));
}

TEST_CASE("alias bombs and self-referencing aliases are refused", "[unit]") {
  // Nine-fold expansion per level: 9^10 nodes from a few hundred bytes.
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 10; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
    for (int j = 1; j < 9; ++j) bomb += ", " + prev;
    bomb += "]\n";
  }
  CHECK(load_error(bomb) == ErrorCode::TooDeep);
  CHECK(load_error("&a [*a]\n") == ErrorCode::TooDeep);
  CHECK(load_error("a: &a {b: *a}\n") == ErrorCode::TooDeep);
}
