// The network's trace tables, /flows and /links (docs/trace-format.md), written here with the
// other tables so that network/ stays a flow library that writes no trace.
#pragma once

#include "models/network/flow_network.hpp"
#include "models/topology/topology.hpp"
#include "sim/time.hpp"
#include "sim/trace/table_writer.hpp"

namespace gcsim::models {

// The /flows table: one row per flow as it finishes (the job is the collective's tag, -1
// for flows not sent by a job's collective). Connects to the network's finished signal.
class FlowRecorder {
 public:
  FlowRecorder(trace::TraceFile& file, network::FlowNetwork& net);

 private:
  trace::Table& table_;
};

// The /links table: per link, its capacity and what it carried over the run.
void write_link_table(trace::TraceFile& file, const topology::Topology& topo, const network::FlowNetwork& net,
                      sim::SimTime end);

}  // namespace gcsim::models
