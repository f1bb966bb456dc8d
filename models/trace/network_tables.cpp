// The network's trace tables (see network_tables.hpp).
#include "models/trace/network_tables.hpp"

#include <cstdint>

#include "models/core/event_priorities.hpp"
#include "models/trace/schema_tables.hpp"

namespace gcsim::models {

FlowRecorder::FlowRecorder(trace::TraceFile& file, network::FlowNetwork& net)
    : table_(add_table(file, trace::schema::FLOWS, 16384)) {
  net.finished.connect(ORDER_FLOW_TRACE, [this](const network::FlowDone& d) {
    const std::uint64_t job = d.tag >> 32;
    table_.begin_row()
        .i64(0, static_cast<std::int64_t>(d.id))
        .i64(1, job == 0xffffffffULL ? -1 : static_cast<std::int64_t>(job))
        .f64(2, d.bytes)
        .f64(3, d.start.seconds())
        .f64(4, d.finish.seconds());
  });
}

void write_link_table(trace::TraceFile& file, const topology::Topology& topo, const network::FlowNetwork& net,
                      sim::SimTime end) {
  trace::Table& t = add_table(file, trace::schema::LINKS);
  const auto& links = topo.links();
  for (std::size_t i = 0; i < links.size(); ++i) {
    const network::LinkStats s = net.link_stats(static_cast<network::LinkId>(i), end);
    t.begin_row()
        .i32(0, static_cast<std::int32_t>(i))
        .str(1, links[i].name)
        .str(2, topology::link_kind_name(links[i].kind))
        .f64(3, links[i].bytes_per_s)
        .f64(4, links[i].latency.seconds())
        .f64(5, s.bytes)
        .f64(6, s.busy.seconds())
        .f64(7, s.utilization);
  }
}

}  // namespace gcsim::models
