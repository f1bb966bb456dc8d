// Flow replay on its own engine; see flow_replay.hpp.
#include "models/network/flow_replay.hpp"

#include <cstdio>
#include <istream>
#include <ostream>
#include <unordered_set>
#include <vector>

#include "models/network/flow_network.hpp"
#include "models/topology/topology.hpp"
#include "sim/config/csv.hpp"
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
  sim::SimTime finish = sim::SimTime::max();  // max(): not finished
  int line = 0;
  int bytes_column = 0;
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

using config::csv::Field;

// Errors keep the replay's file:line:column form, with a stable code (ConfigError).
[[noreturn]] void fail(ErrorCode code, const std::string& label, int line, int column, const std::string& what) {
  config::csv::fail(code, label, line, column, "", what);
}

double number(const Field& f, const std::string& label, int line, const char* what) {
  try {
    const double v = units::parse_number(f.text);
    if (!(v >= 0))
      fail(ErrorCode::OutOfRange, label, line, f.column, std::string(what) + " must be >= 0, got '" + f.text + "'");
    return v;
  } catch (const units::UnitError&) {
    fail(ErrorCode::WrongType, label, line, f.column, std::string(what) + " '" + f.text + "' is not a number");
  }
}

// The column just after a row's last field (where a missing field would start).
int end_column(const config::csv::Row& row) {
  const Field& last = row.fields.back();
  return last.column + static_cast<int>(last.text.size()) + (last.quoted ? 2 : 0);
}

}  // namespace

void replay_flows(const topology::NetworkSpec& spec, std::istream& flows_csv, std::ostream& out_csv,
                  const std::string& csv_label) {
  const topology::Topology topo = topology::build_host_topology(spec);
  std::vector<Row> rows;
  std::unordered_set<std::string> ids;
  config::csv::Reader reader(flows_csv, csv_label, false);
  config::csv::Row row;
  int line_no = 0;
  bool header = false;
  static const char* const COLUMNS[] = {"flow_id", "src", "dst", "bytes", "start"};
  auto host = [&](const Field& f) {
    const auto v = topo.find(f.text);
    if (!v || topo.vertex(*v).kind != topology::VertexKind::Host) {
      std::vector<std::string> names;
      for (const auto h : topo.hosts()) names.push_back(topo.vertex(h).name);
      const std::string hint = did_you_mean(f.text, names);
      fail(ErrorCode::UnknownName, csv_label, line_no, f.column,
           "'" + f.text + "' is not a host" + (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
    }
    return *v;
  };
  // The row being read, for hide_text: a message names the line and column of a bad value
  // and never quotes it (a flows file linked to a secret would print it: docs/units.md,
  // "Messages never quote input files").
  std::string row_text;
  try {
  while (reader.next(row)) {
    line_no = row.line;
    row_text.clear();
    for (const Field& f : row.fields) row_text.append(f.text).push_back('\n');
    const std::vector<Field>& fields = row.fields;
    if (!header) {
      for (std::size_t i = 0; i < 5; ++i) {
        if (i >= fields.size() || fields[i].text != COLUMNS[i])
          fail(ErrorCode::Syntax, csv_label, line_no, i < fields.size() ? fields[i].column : end_column(row),
               "the header must be 'flow_id,src,dst,bytes,start'");
      }
      if (fields.size() > 5)
        fail(ErrorCode::Syntax, csv_label, line_no, fields[5].column, "the header must be 'flow_id,src,dst,bytes,start'");
      header = true;
      continue;
    }
    if (fields.size() != 5)
      fail(ErrorCode::Syntax, csv_label, line_no, fields.size() > 5 ? fields[5].column : end_column(row),
           "expected 5 fields (flow_id,src,dst,bytes,start), got " + std::to_string(fields.size()));
    Row r;
    if (fields[0].text.empty()) fail(ErrorCode::Syntax, csv_label, line_no, fields[0].column, "empty flow_id");
    r.id = fields[0].text;
    if (!ids.insert(r.id).second)
      fail(ErrorCode::Duplicate, csv_label, line_no, fields[0].column, "flow_id '" + r.id + "' appears twice");
    r.src = host(fields[1]);
    r.dst = host(fields[2]);
    r.bytes = number(fields[3], csv_label, line_no, "bytes");
    r.start = sim::SimTime::from_seconds(number(fields[4], csv_label, line_no, "start"));
    // Simulated time is 64-bit nanoseconds: about 292 years, and max() means "never".
    if (r.start.is_max())
      fail(ErrorCode::OutOfRange, csv_label, line_no, fields[4].column,
           "start '" + fields[4].text + "' is beyond the simulated time range (about 292 years)");
    r.line = line_no;
    r.bytes_column = fields[3].column;
    try {
      r.path = topo.route(r.src, r.dst, sim::stable_hash(r.id));
    } catch (const Error& e) {
      fail(ErrorCode::Infeasible, csv_label, line_no, fields[2].column, e.what());
    }
    // Alone on its path, at the bottleneck's full rate, a flow is as fast as it can be: if
    // even then its last byte lands past the time range, refuse it now, before the run.
    const double bottleneck = topo.path_bottleneck_bytes_per_s(r.path);
    const double fastest_s = r.bytes / bottleneck;
    if ((r.start + sim::SimTime::from_seconds(fastest_s)).is_max()) {
      char rate[32];
      std::snprintf(rate, sizeof rate, "%g", bottleneck);
      fail(ErrorCode::OutOfRange, csv_label, line_no, r.bytes_column,
           "flow '" + r.id + "' does not finish within the simulated time range (about 292 years): alone at its "
           "path's bottleneck of " + rate + " B/s, its " + fields[3].text + " bytes take " +
               units::format_duration_s(fastest_s) + " after its start at " + units::format_duration_s(r.start.seconds()));
    }
    rows.push_back(std::move(r));
  }
  } catch (const ConfigError& e) {
    throw ConfigError(e.code(), e.mark(), e.key_path(), hide_text(e.detail(), row_text));
  }
  if (!header) fail(ErrorCode::EmptyFile, csv_label, line_no + 1, 1, "missing header 'flow_id,src,dst,bytes,start'");

  sim::Engine engine;
  FlowNetwork net(engine);
  net.add_links(topo);
  engine.add_resource_model(&net);
  net.finished.connect([&rows](const FlowDone& d) { rows[d.tag].finish = d.finish; });
  Replay replay{&engine, &net, &rows};
  engine.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) engine.schedule_at<&Replay::start>(rows[i].start, &replay, i);
  engine.run();

  // A flow whose last byte would arrive beyond the time range never finishes: say which,
  // rather than print a finish time it does not have.
  for (const Row& r : rows)
    if (r.finish.is_max())
      fail(ErrorCode::OutOfRange, csv_label, r.line, r.bytes_column,
           hide_text("flow '" + r.id + "' does not finish within the simulated time range (about 292 years) at the "
                     "rates the network gives it",
                     r.id));
  out_csv << "flow_id,finish\n";
  char buf[64];
  for (const Row& r : rows) {
    std::snprintf(buf, sizeof buf, "%.17g", r.finish.seconds());
    out_csv << config::csv::escape(r.id) << ',' << buf << '\n';
  }
}

}  // namespace gcsim::network
