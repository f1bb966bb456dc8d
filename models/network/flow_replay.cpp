// Flow replay on its own engine; see flow_replay.hpp.
#include "models/network/flow_replay.hpp"

#include <cstdio>
#include <istream>
#include <ostream>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "models/network/flow_network.hpp"
#include "models/topology/topology.hpp"
#include "sim/engine.hpp"
#include "sim/errors.hpp"
#include "sim/rng.hpp"
#include "sim/units.hpp"

namespace gcsim::network {

namespace {

struct Row {
  std::string id;
  topology::Vertex src = 0, dst = 0;
  double bytes = 0;
  sim::SimTime start;
  std::span<const LinkId> path;
  sim::SimTime finish;
};

struct Replay {
  sim::Engine* engine;
  FlowNetwork* net;
  std::vector<Row>* rows;
  void start(std::uint64_t i) {
    const Row& r = (*rows)[i];
    net->start_flow(r.path, r.bytes, i);
  }
};

struct Field {
  std::string_view text;
  int column;  // 1-based
};

[[noreturn]] void fail(const std::string& label, int line, int column, const std::string& what) {
  throw Error(label + ":" + std::to_string(line) + ":" + std::to_string(column) + ": error: " + what);
}

std::string_view trim(std::string_view s, int& column) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
    ++column;
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<Field> split(std::string_view line) {
  std::vector<Field> fields;
  int column = 1;
  for (;;) {
    const auto comma = line.find(',');
    const std::string_view raw = line.substr(0, comma);
    int c = column;
    fields.push_back(Field{trim(raw, c), c});
    if (comma == std::string_view::npos) break;
    column += static_cast<int>(comma) + 1;
    line.remove_prefix(comma + 1);
  }
  return fields;
}

double number(const Field& f, const std::string& label, int line, const char* what) {
  try {
    const double v = units::parse_number(f.text);
    if (!(v >= 0)) fail(label, line, f.column, std::string(what) + " must be >= 0, got '" + std::string(f.text) + "'");
    return v;
  } catch (const units::UnitError&) {
    fail(label, line, f.column, std::string(what) + " '" + std::string(f.text) + "' is not a number");
  }
}

}  // namespace

void replay_flows(const topology::NetworkSpec& spec, std::istream& flows_csv, std::ostream& out_csv,
                  const std::string& csv_label) {
  const topology::Topology topo = topology::build_host_topology(spec);
  std::vector<Row> rows;
  std::unordered_set<std::string> ids;
  std::string line;
  int line_no = 0;
  bool header = false;
  static const char* const COLUMNS[] = {"flow_id", "src", "dst", "bytes", "start"};
  auto host = [&](const Field& f) {
    const auto v = topo.find(f.text);
    if (!v || topo.vertex(*v).kind != topology::VertexKind::Host) {
      std::vector<std::string> names;
      for (const auto h : topo.hosts()) names.push_back(topo.vertex(h).name);
      const std::string hint = did_you_mean(f.text, names);
      fail(csv_label, line_no, f.column,
           "'" + std::string(f.text) + "' is not a host" + (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
    }
    return *v;
  };
  while (std::getline(flows_csv, line)) {
    ++line_no;
    int dummy = 1;
    if (trim(line, dummy).empty()) continue;
    const std::vector<Field> fields = split(line);
    if (!header) {
      for (std::size_t i = 0; i < 5; ++i) {
        if (i >= fields.size() || fields[i].text != COLUMNS[i])
          fail(csv_label, line_no, i < fields.size() ? fields[i].column : static_cast<int>(line.size()) + 1,
               "the header must be 'flow_id,src,dst,bytes,start'");
      }
      if (fields.size() > 5) fail(csv_label, line_no, fields[5].column, "the header must be 'flow_id,src,dst,bytes,start'");
      header = true;
      continue;
    }
    if (fields.size() != 5)
      fail(csv_label, line_no, fields.size() > 5 ? fields[5].column : static_cast<int>(line.size()) + 1,
           "expected 5 fields (flow_id,src,dst,bytes,start), got " + std::to_string(fields.size()));
    Row r;
    if (fields[0].text.empty()) fail(csv_label, line_no, fields[0].column, "empty flow_id");
    r.id = std::string(fields[0].text);
    if (!ids.insert(r.id).second) fail(csv_label, line_no, fields[0].column, "flow_id '" + r.id + "' appears twice");
    r.src = host(fields[1]);
    r.dst = host(fields[2]);
    r.bytes = number(fields[3], csv_label, line_no, "bytes");
    r.start = sim::SimTime::from_seconds(number(fields[4], csv_label, line_no, "start"));
    try {
      r.path = topo.route(r.src, r.dst, sim::stable_hash(r.id));
    } catch (const Error& e) {
      fail(csv_label, line_no, fields[2].column, e.what());
    }
    rows.push_back(std::move(r));
  }
  if (!header) fail(csv_label, line_no + 1, 1, "missing header 'flow_id,src,dst,bytes,start'");

  sim::Engine engine;
  FlowNetwork net(engine);
  net.add_links(topo);
  engine.add_resource_model(&net);
  net.finished.connect([&rows](const FlowDone& d) { rows[d.tag].finish = d.finish; });
  Replay replay{&engine, &net, &rows};
  engine.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) engine.schedule_at<&Replay::start>(rows[i].start, &replay, i);
  engine.run();

  out_csv << "flow_id,finish\n";
  char buf[64];
  for (const Row& r : rows) {
    std::snprintf(buf, sizeof buf, "%.17g", r.finish.seconds());
    out_csv << r.id << ',' << buf << '\n';
  }
}

}  // namespace gcsim::network
