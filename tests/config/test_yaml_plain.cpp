// The loader's fast path (sim/config/yaml_plain.hpp) against yaml-cpp: wherever the fast
// path accepts a text, both must build the same tree (kinds, scalars, quoting, marks, key
// marks, paths); everything it gives up on still loads or fails exactly as before. Also
// the alias guard: it bounds what aliases expand to, not the size of an honest file.
#include <catch2/catch.hpp>

#include "support/scenario_support.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>

#include "sim/config/config_node.hpp"
#include "sim/config/yaml_plain.hpp"

using gcsim::ErrorCode;
using gcsim::config::ConfigNode;
using gcsim::config::load_yaml_string;
using gcsim::test::config_error;
namespace detail = gcsim::config::detail;

namespace {

// "" when equal, else where they first differ.
std::string difference(const ConfigNode& a, const ConfigNode& b) {
  const auto ma = a.mark();
  const auto mb = b.mark();
  const std::string at = a.path() + " (" + std::to_string(ma.line) + ":" + std::to_string(ma.column) + "): ";
  if (a.kind() != b.kind()) return at + "kind " + std::string(a.kind_name()) + " vs " + std::string(b.kind_name());
  if (ma.file != mb.file || ma.line != mb.line || ma.column != mb.column)
    return at + "mark vs " + std::to_string(mb.line) + ":" + std::to_string(mb.column);
  if (a.path() != b.path()) return at + "path vs " + b.path();
  if (a.is_scalar() && (a.scalar() != b.scalar() || a.quoted() != b.quoted()))
    return at + "scalar '" + a.scalar() + "' vs '" + b.scalar() + "'";
  if (a.is_sequence()) {
    if (a.size() != b.size()) return at + "size";
    for (std::size_t i = 0; i < a.size(); ++i)
      if (auto d = difference(a.at(i), b.at(i)); !d.empty()) return d;
  }
  if (a.is_map()) {
    if (a.entries().size() != b.entries().size()) return at + "entries";
    for (std::size_t i = 0; i < a.entries().size(); ++i) {
      if (a.entries()[i].first != b.entries()[i].first) return at + "key " + a.entries()[i].first;
      if (a.key_mark(i).line != b.key_mark(i).line || a.key_mark(i).column != b.key_mark(i).column)
        return at + "key mark of " + a.entries()[i].first;
      if (auto d = difference(a.entries()[i].second, b.entries()[i].second); !d.empty()) return d;
    }
  }
  return "";
}

// Whether the fast path took the text; when it did, the trees must be equal.
bool fast_path_agrees(const std::string& text) {
  const auto fast = detail::parse_plain_yaml(text, std::string("t.yaml"));
  if (!fast) return false;
  const auto full = detail::load_yaml_string_full(text, "t.yaml");
  INFO(text);
  CHECK(difference(*fast, full.root) == "");
  return true;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string job_list(int jobs) {
  std::string text = "workload:\n  jobs:\n";
  for (int i = 0; i < jobs; ++i)
    text += "    - {name: j" + std::to_string(i) + ", gpus: 1, duration: 2h, submit: 10m}\n";
  return text;
}

}  // namespace

TEST_CASE("the fast path builds yaml-cpp's tree for the plain subset", "[unit]") {
  const char* const texts[] = {
      "a: 1\nb:\n  c: x y\n  d:\n  - p\n  - {q: 1, r: [s, \"t\"]}\n  - name: n\n    v: 2\ne: []\nf: {}\ng: ~\nh: null\n",
      "- a\n- b: 1\n  c: 2\n-   x: 3\n",
      "# lead\nname: demo   # trailing\n\ncluster:\n  # inside\n  spare:\nworkload: [a, b]\n",
      "a: 'it''s'\nb: \"q q\"\nc: ''\nd: \"\"\ne: -1.5\nf: $200,000\ng: [$200, 000]\nh: x#y\n",
      "a:\n- x\n- y\nb: 2\n",
      "- a:\n  - x\n  b: 1\n- c\n",
      "k: {a: [1, [2, [3]]], b: {c: {}}}\n",
      "a:\n  b:\n    c: 1\n  d: 2\ne: 3\n",
      "prices: {on_demand_per_hour: \"$4/GPUh\", spot: 1.2/h}\n",
      "list: [~, null, NULL, Null, 'null']\n",
      "a: 1\nb:\n", "x:\n  spare:\ny: 1\n", "x:\n  - a:\n  - b\n",
      // A document that is one flow collection: JSON, on one line or printed over many.
      "[1, 2]\n", "{a: 1}\n", "{\"a\": 1, \"b c\": [x, \"y\"]}\n", "[]", "{}\n# end\n",
      "[\n    {\n        \"status\": \"Pass\",\n        \"n\": 8,\n        \"t\": \"2017-10-07 01:12:09\",\n"
      "        \"e\": null,\n        \"l\": [\n            \"gpu0\",\n            \"gpu1\"\n        ],\n"
      "        \"m\": {}\n    },\n    {\"status\": \"Killed\", \"attempts\": []}\n]\n",
      "{\n\"a\": [1,\n2\n  ,3]}\n",
  };
  for (const char* t : texts) CHECK(fast_path_agrees(t));
}

TEST_CASE("the Philly job logs (JSON as published) are read by the fast path, as yaml-cpp reads them", "[unit]") {
  for (const char* file : {"tests/fixtures/traces/philly_cluster_job_log",
                           "scenarios/examples/traces/philly_cluster_job_log_sample"}) {
    INFO(file);
    CHECK(fast_path_agrees(read_file(std::filesystem::path(GCSIM_SOURCE_DIR) / file)));
  }
}

namespace {

// A random JSON-like document for the differential test below: nested lists and maps,
// quoted and plain keys, scalars of every kind the fast path reads (numbers, words, null,
// quoted text with blanks, colons, commas and brackets), and blanks and line breaks
// wherever JSON allows them (and a few where it does not, for the fast path to refuse).
class RandomJson {
 public:
  explicit RandomJson(std::uint32_t seed) : rng_(seed) {}
  std::string document() {
    std::string out;
    if (pick(4) == 0) out += "\n";
    value(out, 0, pick(2) == 0);
    blanks(out);
    if (pick(3) == 0) out += "\n# end";
    if (pick(2) == 0) out += "\n";
    // A third of them damaged: a character dropped, or one of JSON's own put in somewhere.
    if (!out.empty() && pick(3) == 0) {
      const std::size_t at = pick(static_cast<std::uint32_t>(out.size()));
      if (pick(2) == 0) out.erase(at, 1);
      else out.insert(at, 1, ",:[]{}\" \n'"[pick(10)]);
    }
    return out;
  }

 private:
  std::uint32_t pick(std::uint32_t n) { return static_cast<std::uint32_t>(rng_() % n); }
  void blanks(std::string& out) {
    switch (pick(6)) {
      case 0: out += "\n" + std::string(pick(9), ' '); break;
      case 1: out += " "; break;
      case 2: out += "\n\n  "; break;
      default: break;
    }
  }
  void scalar(std::string& out) {
    static const char* const words[] = {"1", "-2.5", "0", "1e3", "null", "true", "false", "x", "a b", "~", "$2/h", "10m"};
    static const char* const texts[] = {"\"2017-10-07 01:12:09\"", "\"Pass\"", "\"\"", "\"a, b]\"", "\"{x}\"",
                                        "'single'", "\"null\"", "\"q: r\""};
    if (pick(2) == 0) out += words[pick(12)];
    else out += texts[pick(8)];
  }
  void key(std::string& out) {
    static const char* const keys[] = {"\"status\"", "\"a b\"", "\"gpus\"", "\"x:y\"", "jobid", "vc", "\"k-1\"",
                                       "\"[k]\"", "'q'", "\"t\"", "n2", "\"u.v\""};
    out += keys[pick(12)];
  }
  void value(std::string& out, int depth, bool collection) {
    if (!collection || depth > 4) {
      scalar(out);
      return;
    }
    const bool map = pick(2) == 0;
    out += map ? "{" : "[";
    const std::uint32_t n = pick(4);
    std::vector<std::string> used;
    for (std::uint32_t i = 0; i < n; ++i) {
      blanks(out);
      if (map) {
        std::string k;
        key(k);
        if (std::find(used.begin(), used.end(), k) != used.end()) continue;  // no duplicate keys
        used.push_back(k);
        out += k + ": ";
      }
      value(out, depth + 1, pick(3) == 0);
      blanks(out);
      if (i + 1 < n) out += ",";
    }
    blanks(out);
    out += map ? "}" : "]";
  }
  std::mt19937 rng_;
};

}  // namespace

TEST_CASE("random JSON: wherever the fast path takes a document, yaml-cpp builds the same tree", "[unit]") {
  int taken = 0;
  for (std::uint32_t seed = 1; seed <= 3000; ++seed) {
    const std::string text = RandomJson(seed).document();
    INFO("seed " << seed);
    const auto fast = detail::parse_plain_yaml(text, std::string("t.yaml"));
    if (!fast) continue;
    ++taken;
    INFO(text);
    const auto full = [&] {
      try {
        return std::optional(detail::load_yaml_string_full(text, "t.yaml"));
      } catch (const gcsim::ConfigError& e) {
        FAIL_CHECK("the fast path took a text yaml-cpp refuses: " << e.what());
        return std::optional<gcsim::config::ConfigDocument>();
      }
    }();
    if (full) CHECK(difference(*fast, full->root) == "");
  }
  CHECK(taken > 800);  // the generator mostly writes what the fast path reads
}

TEST_CASE("load_yaml_data: the same tree as load_yaml_string, the text held by the tree alone", "[unit]") {
  // One text the fast path reads, one it leaves to yaml-cpp (an escape), one that fails.
  for (const std::string& text : {std::string("[{\"a\": 1}, {\"b\": \"x\"}]\n"), std::string("[{\"a\": \"x\\ty\"}]\n")}) {
    INFO(text);
    const auto data = gcsim::config::load_yaml_data(text, "log.json");
    const auto full = load_yaml_string(text, "log.json");
    CHECK(data.text.empty());
    CHECK(full.text == text);
    CHECK(difference(data.root, full.root) == "");
    CHECK(gcsim::config::document_memory_bytes(data) >= text.size());  // the tree's copy
    CHECK(gcsim::config::document_memory_bytes(full) >= 2 * text.size());
  }
  const auto e = config_error([] { gcsim::config::load_yaml_data("[1, 2\n", "log.json"); });
  CHECK(e.code() == ErrorCode::Syntax);
  CHECK(e.mark().file == "log.json");
}

TEST_CASE("JSON the fast path leaves to yaml-cpp: escapes, compact separators, comments, tabs", "[unit]") {
  const char* const texts[] = {
      "{\"a\": \"x\\ny\"}\n", "{\"a\":1}\n",   "{\"a\" : 1}\n", "[1,\n# c\n2]\n", "[1,\t2]\n",
      "{\"null\": 1}\n",        "{\"\": 1}\n",   "{'it''s': 1}\n", "[1, 2]\n[3]\n",  "a: [1,\n  2]\n",
      "{\"a\": 1,\n}\n",        "[\"a\"\n \"b\"]\n", "{\"a\":\n 1}\n",
  };
  for (const char* t : texts) {
    INFO(t);
    CHECK_FALSE(detail::parse_plain_yaml(t, std::string("t.yaml")).has_value());
  }
}

TEST_CASE("the fast path gives up on what it does not read, and errors are yaml-cpp's", "[unit]") {
  const char* const texts[] = {
      "a: &x [1]\nb: *x\n", "a: !!str 5\n", "a: |\n  text\n", "a: >\n  text\n", "a: [1,\n  2]\n",
      "a: \"x\\ty\"\n",      "a:\tb\n",      "a: 1\r\n",      "---\na: 1\n",     "%YAML 1.2\n---\na: 1\n",
      "a: b: c\n",           "a: 4:1\n",     "? k\n: v\n",    "a: 1\na: 2\n",    "a:\n  - x\n  y: 1\n",
      "a: x\n  y\n",          "- - x\n",      "[1, 2]x\n",     "42\n",            "a: [1, ]\n",
      "{a: 1} b\n",           "a: {b: }\n",   "null: 1\n",     "a: \"open\n",     "a: caf\xc3\xa9\n",
      "",                     "# only\n",     "  a: 1\n",      "a: [x]y\n",       "a: 'q'x\n",
  };
  for (const char* t : texts) {
    INFO(t);
    CHECK_FALSE(detail::parse_plain_yaml(t, std::string("t.yaml")).has_value());
  }
  // A carriage return or a NUL, even inside a comment (found by the fuzzer: yaml-cpp ends
  // the comment at the CR and the stream at the NUL, and refused the text as empty).
  for (const std::string& t : {std::string("# c\rb\na: 1\n"), std::string("#\0\na: 1\n", 8), std::string("a: 1 # \0\nb: 2\n", 15)}) {
    CHECK_FALSE(detail::parse_plain_yaml(t, std::string("t.yaml")).has_value());
  }
  // A '?' inside a plain scalar: text to YAML 1.2, an unknown token to yaml-cpp in a flow
  // collection (found by the fuzzer: "[$2.50/?h]" was read by the fast path, refused by
  // yaml-cpp). Indicators inside flow scalars go to yaml-cpp too.
  for (const char* t : {"a: [$2.50/?h]\n", "a: b?c\n", "a: [x&y]\n", "a: {k: v*w}\n", "a: [1|2]\n"}) {
    INFO(t);
    CHECK_FALSE(detail::parse_plain_yaml(t, std::string("t.yaml")).has_value());
  }
  CHECK(config_error([] { load_yaml_string("a: [$2.50/?h]\n", "q.yaml"); }).code() == ErrorCode::Syntax);
  // An empty value followed by a sibling key: yaml-cpp marks the null at the next key
  // (found by the fuzzer: "b:\nnulls: [~]" gave b's null 2:1 there, 1:1 here).
  CHECK_FALSE(detail::parse_plain_yaml("b:\nnulls: [~, null, Null]\n", std::string("t.yaml"))
                  .has_value());
  // The same errors, codes and positions as before the fast path existed.
  const auto e = config_error([] { load_yaml_string("a:\n  - x\n  y: 1\n", "s.yaml"); });
  CHECK(e.code() == ErrorCode::Syntax);
  CHECK(config_error([] { load_yaml_string("a: 1\na: 2\n", "d.yaml"); }).code() == ErrorCode::Duplicate);
  CHECK(config_error([] { load_yaml_string("null: 1\n", "k.yaml"); }).code() == ErrorCode::WrongType);
}

TEST_CASE("nesting: the fast path takes 64 levels and leaves 65 to the guard", "[unit]") {
  auto brackets = [](int n) { return "a: " + std::string(n, '[') + "1" + std::string(n, ']') + "\n"; };
  CHECK(fast_path_agrees(brackets(gcsim::config::MAX_DEPTH - 1)));
  CHECK_FALSE(detail::parse_plain_yaml(brackets(gcsim::config::MAX_DEPTH), std::string("t"))
                  .has_value());
  CHECK(config_error([&] { load_yaml_string(brackets(gcsim::config::MAX_DEPTH), "t.yaml"); }).code() ==
        ErrorCode::TooDeep);
}

TEST_CASE("every scenario and catalog in the tree loads the same by both paths", "[unit]") {
  int fast = 0;
  int files = 0;
  int examples = 0;
  int fast_examples = 0;
  for (const char* dir : {"scenarios", "tests"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(std::filesystem::path(GCSIM_SOURCE_DIR) / dir)) {
      if (entry.path().extension() != ".yaml") continue;
      ++files;
      const bool example = entry.path().string().find("/scenarios/examples/") != std::string::npos;
      examples += example;
      const std::string text = read_file(entry.path());
      INFO(entry.path().string());
      const auto full = [&] {
        try {
          return std::optional(detail::load_yaml_string_full(text, "t.yaml"));
        } catch (const gcsim::ConfigError&) {
          return std::optional<gcsim::config::ConfigDocument>();
        }
      }();
      if (const auto quick = detail::parse_plain_yaml(text, std::string("t.yaml"))) {
        ++fast;
        fast_examples += example;
        REQUIRE(full.has_value());
        CHECK(difference(*quick, full->root) == "");
      }
    }
  }
  CHECK(files >= 10);
  CHECK(fast > 0);
  // Most bundled examples are in the subset: the fast path is what runs (the fuzz corpus
  // under tests/ is odd on purpose and goes to yaml-cpp).
  CHECK(examples >= 8);
  CHECK(2 * fast_examples >= examples);
}

TEST_CASE("a 200,000-job list loads (the guard counts alias expansions, not written nodes)", "[unit]") {
  const std::string text = job_list(200'000);
  const auto doc = load_yaml_string(text, "jobs.yaml");
  const ConfigNode& jobs = *doc.root.find("workload")->find("jobs");
  REQUIRE(jobs.size() == 200'000);
  const ConfigNode& last = jobs.at(199'999);
  CHECK(last.path() == "workload.jobs[199999]");
  CHECK(last.find("submit")->path() == "workload.jobs[199999].submit");
  CHECK(last.find("submit")->scalar() == "10m");
  CHECK(last.mark().line == 200'002);
  CHECK(last.mark().column == 7);
  CHECK(last.find("gpus")->mark().column == 29);  // "    - {name: j199999, gpus: 1, ..."
  CHECK(last.key_mark(1).column == 23);
}

TEST_CASE("aliases may expand to MAX_ALIAS_NODES nodes, no more", "[unit]") {
  // An anchored list of 1000 items, then n aliases of it: n * 1001 expanded nodes.
  auto text = [](int aliases) {
    std::string t = "base: &b [";
    for (int i = 0; i < 1000; ++i) t += i ? ", x" : "x";
    t += "]\nuses:\n";
    for (int i = 0; i < aliases; ++i) t += "  - *b\n";
    return t;
  };
  CHECK(load_yaml_string(text(900), "t.yaml").root.find("uses")->size() == 900);
  CHECK(config_error([&] { load_yaml_string(text(1000), "t.yaml"); }).code() == ErrorCode::TooDeep);
}

TEST_CASE("an honest file of more than MAX_ALIAS_NODES nodes loads through yaml-cpp too", "[.slow]") {
  // One alias sends the whole file to yaml-cpp; its 1.2 million written nodes are not charged.
  const std::string text = "x: &x 1\ny: *x\n" + job_list(200'000);
  const auto doc = detail::load_yaml_string_full(text, "jobs.yaml");
  CHECK(doc.root.find("workload")->find("jobs")->size() == 200'000);
}

TEST_CASE("the tree: a copy of a node keeps its tree, the document's text is not it", "[unit]") {
  // 64 bytes a node (a job of the list above costs one node, four entries and a place).
  CHECK(sizeof(ConfigNode) <= 64);
  ConfigNode job;
  {
    auto doc = load_yaml_string(job_list(3), "jobs.yaml");
    // The caller may change the text it gets back: the keys and scalars are views of the
    // tree's own copy.
    doc.text.assign(doc.text.size(), 'x');
    job = doc.root.find("workload")->find("jobs")->at(2);
  }
  // The document is gone; the copy holds the whole tree: text, places, marks.
  REQUIRE(job.is_map());
  CHECK(job.entries()[0].first == "name");
  CHECK(job.find("name")->scalar() == "j2");
  CHECK(job.find("submit")->scalar() == "10m");
  CHECK(job.path() == "workload.jobs[2]");
  CHECK(job.find("duration")->path() == "workload.jobs[2].duration");
  CHECK(job.mark().file == "jobs.yaml");
  CHECK(job.mark().line == 5);
  CHECK(job.key_mark(3).column == 41);  // "    - {name: j2, gpus: 1, duration: 2h, submit: 10m}"
  // Copies and moves of copies: each keeps the tree; the last one frees it.
  ConfigNode moved = std::move(job);
  ConfigNode again = moved;
  moved = ConfigNode();
  CHECK(again.find("gpus")->scalar() == "1");
  const gcsim::ConfigError e = config_error([&] { (void)again.find("name")->items(); });
  CHECK(e.mark().file == "jobs.yaml");
  CHECK(e.key_path() == "workload.jobs[2].name");
  CHECK(e.mark().line == 5);
  CHECK(e.mark().column == 14);
}

TEST_CASE("the tree: nodes of other trees built into a new one stay alive with it", "[unit]") {
  ConfigNode list;
  ConfigNode map;
  {
    const auto a = load_yaml_string("a: [x, 'it''s']\n", "a.yaml");
    const auto b = load_yaml_string("b: {k: v}\n", "b.yaml");
    list = ConfigNode::make_sequence({a.root.find("a")->at(1), b.root.find("b")->entries()[0].second},
                                     {"m.yaml", 1, 1}, "m");
    map = ConfigNode::make_map({{"first", a.root.find("a")->at(0)}, {"second", list}}, {"n.yaml", 2, 3}, "n");
  }
  REQUIRE(list.size() == 2);
  CHECK(list.at(0).scalar() == "it's");  // unfolded: not a view of the text
  CHECK(list.at(0).quoted());
  CHECK(list.at(0).mark().file == "a.yaml");
  CHECK(list.at(0).path() == "a[1]");
  CHECK(list.at(1).scalar() == "v");
  CHECK(list.at(1).mark().file == "b.yaml");
  CHECK(list.mark().file == "m.yaml");
  CHECK(map.entries()[1].first == "second");
  CHECK(map.find("second")->at(1).scalar() == "v");
  CHECK(map.find("first")->scalar() == "x");
  CHECK(map.path() == "n");
  CHECK(map.mark().line == 2);
}

TEST_CASE("the slow path's text: escapes, folded lines, CRLF, anchors, empty values", "[unit]") {
  // What the fast path gives up on is read by yaml-cpp into the tree's own storage; the
  // values are YAML's, the positions and paths as the fast path gives them.
  const auto doc = load_yaml_string(
      "a: \"x\\ty\\u00e9\"\r\n"  // escapes (a tab, an e-acute), and CRLF line ends
      "b: one\r\n  two\r\n"    // a plain scalar folded over two lines
      "c: &c {k: [p, q]}\r\n"
      "d: *c\r\n"
      "e:\r\n"
      "f: '' # comment\r\n",
      "s.yaml");
  const ConfigNode& r = doc.root;
  CHECK(r.find("a")->scalar() == "x\ty\xc3\xa9");
  CHECK(r.find("a")->quoted());
  CHECK(r.find("b")->scalar() == "one two");
  CHECK(r.find("d")->find("k")->at(1).scalar() == "q");
  CHECK(r.find("d")->find("k")->at(1).path() == "d.k[1]");  // the alias's copy, at its new place
  CHECK(r.find("c")->find("k")->at(1).path() == "c.k[1]");
  CHECK(r.find("d")->find("k")->at(1).mark().line == 4);    // where the anchored text is written
  CHECK(r.find("e")->is_null());
  CHECK(r.find("e")->mark().line == 6);
  CHECK(r.find("e")->mark().column == 1);
  CHECK(r.find("f")->scalar().empty());
  CHECK(r.find("f")->quoted());
  CHECK(r.key_mark(5).line == 7);
  // The same without CR, escapes or folding goes the fast path: the same tree as yaml-cpp's.
  CHECK(fast_path_agrees("c: {k: [p, q]}\nf: '' # comment\ng: 'a''b''''c'\nh: \"\"\ne:\n"));
}
