// Flow replay, to test the network alone (`gcsim flows SCENARIO FLOWS.csv`): flows read
// from a CSV are started at their start times on the scenario's fabric (its hosts as
// endpoints) and their finish times written out.
//
// Input: a header `flow_id,src,dst,bytes,start` then one flow per line; src and dst are
// host names, bytes a non-negative number, start seconds >= 0. Output: `flow_id,finish`
// (seconds, "%.17g") in input order. A flow from a host to itself finishes at its start.
// Flows take least-cost paths, the ECMP choice hashed from the flow_id text.
#pragma once

#include <iosfwd>
#include <string>

#include "models/topology/topology_spec.hpp"

namespace gcsim::network {

// Throws gcsim::Error naming `csv_label`:line:column for malformed input (wrong header,
// missing or extra fields, bad numbers, unknown hosts, duplicate flow ids, unreachable
// destinations), and ConfigError from the topology build.
void replay_flows(const topology::NetworkSpec& spec, std::istream& flows_csv, std::ostream& out_csv,
                  const std::string& csv_label);

}  // namespace gcsim::network
