// Flow replay, to test the network alone (`gcsim flows SCENARIO FLOWS.csv`): flows read
// from a CSV are started at their start times on the scenario's fabric (its hosts as
// endpoints) and their finish times written out.
//
// Input: a header `flow_id,src,dst,bytes,start` then one flow per line; src and dst are
// host names, bytes a non-negative number, start seconds >= 0. Output: `flow_id,finish`
// (seconds, "%.17g"; the id quoted when it needs it) in input order. A flow from a host to itself finishes at its start.
// Flows take least-cost paths, the ECMP choice hashed from the flow_id text.
#pragma once

#include <iosfwd>
#include <string>

#include "models/topology/topology_spec.hpp"

namespace gcsim::network {

// Read with the CSV reader of every CSV input (sim/config/csv.hpp: RFC 4180 quotes, blank
// lines skipped). Throws ConfigError at `csv_label`:line:column for malformed input: syntax
// (wrong header, missing or extra fields, empty flow_id, bad quoting), wrong-type (a
// number that is not one), out-of-range (a negative one), unknown-name (a host),
// duplicate (a flow id), infeasible (an unreachable destination), empty-file (no header);
// and ConfigError from the topology build.
void replay_flows(const topology::NetworkSpec& spec, std::istream& flows_csv, std::ostream& out_csv,
                  const std::string& csv_label);

}  // namespace gcsim::network
