// Elastic pools in a trace (see pools.hpp).
#include "analysis/pools.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "analysis/plot_support.hpp"
#include "analysis/plots.hpp"
#include "analysis/report.hpp"
#include "sim/trace/trace_reader.hpp"

namespace gcsim::analysis {

namespace schema = trace::schema;
namespace fs = std::filesystem;

ElasticPoolTables read_elastic_pools(const std::string& path) {
  ElasticPoolTables out;
  const std::unique_ptr<trace::TraceReader> r = trace::TraceReader::open(path);
  const std::string sizes(schema::POOL_SIZES.name), decisions(schema::SCALE_DECISIONS.name);
  if (r->has_table(sizes)) {
    const auto t = r->column_f64(sizes, "time_s");
    const auto pool = r->column_int(sizes, "pool");
    const auto slots = r->column_int(sizes, "slots");
    const auto prov = r->column_int(sizes, "provisioning");
    const auto up = r->column_int(sizes, "up");
    const auto draining = r->column_int(sizes, "draining");
    const auto held = r->column_f64(sizes, "held_gpus");
    const auto busy = r->column_f64(sizes, "busy_gpus");
    const auto waiting = r->column_f64(sizes, "waiting_gpus");
    const auto memory = r->column_f64(sizes, "memory_used");
    out.sizes.resize(t.size());
    for (std::size_t i = 0; i < t.size(); ++i)
      out.sizes[i] = PoolSizeRow{t[i],        static_cast<std::int32_t>(pool[i]),     static_cast<std::int32_t>(slots[i]),
                                 static_cast<std::int32_t>(prov[i]), static_cast<std::int32_t>(up[i]),
                                 static_cast<std::int32_t>(draining[i]), held[i], busy[i], waiting[i], memory[i]};
  }
  if (r->has_table(decisions)) {
    const auto t = r->column_f64(decisions, "time_s");
    const auto pool = r->column_int(decisions, "pool");
    const auto direction = r->column_int(decisions, "direction");
    const auto trigger = r->column_int(decisions, "trigger");
    const auto labels = r->enum_labels(decisions, "trigger");
    const auto value = r->column_f64(decisions, "value");
    const auto nodes = r->column_int(decisions, "nodes");
    const auto before = r->column_int(decisions, "size_before");
    const auto after = r->column_int(decisions, "size_after");
    out.decisions.resize(t.size());
    for (std::size_t i = 0; i < t.size(); ++i) {
      const auto k = static_cast<std::size_t>(trigger[i]);
      out.decisions[i] = ScaleDecisionRow{t[i],
                                          static_cast<std::int32_t>(pool[i]),
                                          direction[i] == 0,
                                          k < labels.size() ? labels[k] : std::to_string(trigger[i]),
                                          value[i],
                                          static_cast<std::int32_t>(nodes[i]),
                                          static_cast<std::int32_t>(before[i]),
                                          static_cast<std::int32_t>(after[i])};
    }
  }
  return out;
}

std::vector<ElasticPoolSummary> summarize_elastic_pools(const TraceData& trace, const ElasticPoolTables& tables) {
  std::map<std::int32_t, ElasticPoolSummary> by_pool;
  std::map<std::int32_t, const PoolSizeRow*> last;
  const double end_s = trace.attrs.end_s;
  // Each row holds until the pool's next row (or the end of the run).
  const auto integrate = [&](const PoolSizeRow& row, double until_s) {
    ElasticPoolSummary& s = by_pool[row.pool];
    const double h = std::max(0.0, until_s - row.time_s) / 3600.0;
    s.waiting_gpu_hours += row.waiting_gpus * h;
    s.gpu_hours_held += row.held_gpus * h;
    if (row.provisioning + row.up + row.draining >= row.slots) s.waiting_at_max_gpu_hours += row.waiting_gpus * h;
  };
  for (const PoolSizeRow& row : tables.sizes) {
    if (row.time_s > end_s) break;
    if (auto it = last.find(row.pool); it != last.end()) integrate(*it->second, row.time_s);
    last[row.pool] = &row;
    ElasticPoolSummary& s = by_pool[row.pool];
    const std::int32_t n = row.provisioning + row.up + row.draining;
    if (s.slots == 0) {
      s.fewest = s.most = n;
    }
    s.slots = row.slots;
    s.fewest = std::min(s.fewest, n);
    s.most = std::max(s.most, n);
  }
  for (const auto& [pool, row] : last) integrate(*row, end_s);
  for (const ScaleDecisionRow& d : tables.decisions) {
    ElasticPoolSummary& s = by_pool[d.pool];
    (d.out ? s.scale_outs : s.scale_ins) += 1;
  }
  std::vector<ElasticPoolSummary> out;
  for (auto& [pool, s] : by_pool) {
    if (pool >= 0 && static_cast<std::size_t>(pool) < trace.pools.size()) s.name = trace.pools[static_cast<std::size_t>(pool)].name;
    else s.name = "pool " + std::to_string(pool);
    for (const NodeRecord& n : trace.nodes) {
      if (n.node_type != s.name) continue;
      s.node_hours += n.up_time_s / 3600.0;
      s.cost_usd += n.cost_usd;
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string format_elastic_pools(const std::vector<ElasticPoolSummary>& pools) {
  if (pools.empty()) return "";
  std::string out = "\nElastic pools (autoscale; docs/autoscaling.md)\n";
  for (const ElasticPoolSummary& p : pools) {
    char line[512];
    std::snprintf(line, sizeof line, "  %s: %d..%d nodes (max %d); %d scale-out%s, %d scale-in%s\n", p.name.c_str(), p.fewest,
                  p.most, p.slots, p.scale_outs, p.scale_outs == 1 ? "" : "s", p.scale_ins, p.scale_ins == 1 ? "" : "s");
    out += line;
    out += "    node-hours " + format_count(p.node_hours, 1) + ", cost " + format_usd(p.cost_usd) + ", GPU-hours held " +
           format_count(p.gpu_hours_held, 1) + "\n";
    out += "    waiting scaling did not prevent: " + format_count(p.waiting_gpu_hours, 1) + " GPU-hours (" +
           format_count(p.waiting_at_max_gpu_hours, 1) + " at max, " +
           format_count(std::max(0.0, p.waiting_gpu_hours - p.waiting_at_max_gpu_hours), 1) +
           " below it: a trigger's `for`, provisioning, cooldown, no rule to grow, or a spot market without capacity)\n";
  }
  return out;
}

std::string elastic_pools_json(const std::vector<ElasticPoolSummary>& pools, int depth) {
  std::vector<std::string> items;
  for (const ElasticPoolSummary& p : pools) {
    JsonObject o(depth + 1);
    o.string("name", p.name);
    o.integer("max", p.slots);
    o.integer("fewest_nodes", p.fewest);
    o.integer("most_nodes", p.most);
    o.integer("scale_outs", p.scale_outs);
    o.integer("scale_ins", p.scale_ins);
    o.number("node_hours", p.node_hours);
    o.number("cost_usd", p.cost_usd);
    o.number("gpu_hours_held", p.gpu_hours_held);
    o.number("waiting_gpu_hours", p.waiting_gpu_hours);
    o.number("waiting_at_max_gpu_hours", p.waiting_at_max_gpu_hours);
    items.push_back(o.finish());
  }
  return json_array(items, depth);
}

std::vector<std::string> plot_elastic_pools(const TraceData& trace, const ElasticPoolTables& tables, const std::string& dir,
                                            const std::string& suffix) {
  using namespace plotting;
  std::vector<std::string> paths;
  const std::vector<ElasticPoolSummary> pools = summarize_elastic_pools(trace, tables);
  const double end_s = trace.attrs.end_s;
  const TimeUnit unit = time_unit_for(end_s);
  for (const ElasticPoolSummary& p : pools) {
    std::int32_t index = -1;
    for (std::size_t i = 0; i < trace.pools.size(); ++i)
      if (trace.pools[i].name == p.name) index = static_cast<std::int32_t>(i);
    if (index < 0) continue;
    const PoolRecord& rec = trace.pools[static_cast<std::size_t>(index)];
    Points demand, capacity, provisioned, cost;
    double top = 0;
    // Steps: each row holds until the next; drawn "with steps" (the last value to the end).
    for (const PoolSizeRow& row : tables.sizes) {
      if (row.pool != index || row.time_s > end_s) continue;
      const double x = row.time_s / unit.seconds;
      const double d = row.held_gpus + row.waiting_gpus;
      const double c = static_cast<double>(row.up + row.draining) * rec.gpus_per_node;
      const double all = static_cast<double>(row.provisioning + row.up + row.draining) * rec.gpus_per_node;
      demand.emplace_back(x, d);
      capacity.emplace_back(x, c);
      provisioned.emplace_back(x, all);
      top = std::max({top, d, c, all});
    }
    if (demand.empty()) continue;
    // The pool's charges as the ledger posts them (a node's bill when its session closes, a
    // job's share when its run ends): the total at the end is the pool's cost.
    double usd = 0;
    cost.emplace_back(0.0, 0.0);
    for (const ChargeRecord& c : trace.ledger) {
      if (c.pool != index || c.time_s > end_s) continue;
      usd += c.usd;
      cost.emplace_back(c.time_s / unit.seconds, usd);
    }
    for (Points* pts : {&demand, &capacity, &provisioned, &cost}) pts->emplace_back(end_s / unit.seconds, pts->back().second);
    std::string safe;
    for (const char c : p.name) safe += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
    paths.push_back(plot_png(fs::path(dir), "pool_" + safe + suffix, [&](Gnuplot& gp) {
      gp << "set title " << gp_quote("pool " + p.name + ": demand, capacity and cost over time") << "\n";
      set_time_area(gp, end_s, unit);
      gp << "set rmargin at screen 0.88\n";  // room for the cost axis
      gp << "set ylabel 'GPUs'\n";
      gp << "set yrange [0:" << std::max(1.0, top * 1.1) << "]\n";
      gp << "set y2label 'cost so far (USD, as posted)'\n";
      gp << "set y2range [0:" << std::max(1.0, usd * 1.1) << "]\n";
      gp << "set y2tics\n";
      gp << "set key outside top center horizontal\n";
      gp << "plot '-' using 1:2 with steps lw 2 lc rgb '#d62728' title 'demand (held + waiting GPUs)',"
            " '-' using 1:2 with steps lw 2 lc rgb '#1f77b4' title 'capacity (GPUs up)',"
            " '-' using 1:2 with steps lw 1 dt 2 lc rgb '#1f77b4' title 'provisioned (booting too)',"
            " '-' using 1:2 axes x1y2 with steps lw 2 lc rgb '#2ca02c' title 'cost so far (right axis)'\n";
      gp.send1d(demand);
      gp.send1d(capacity);
      gp.send1d(provisioned);
      gp.send1d(cost);
    }));
  }
  return paths;
}

}  // namespace gcsim::analysis
