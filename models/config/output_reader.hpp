// The `output:` section: the trace's file name, its compression level and the optional
// /flows, /events and /metrics tables, the rows of /service_requests. That flows
// need a network section is checked in the resolve step.
#pragma once

#include <string>

#include "models/config/scenario.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"
#include "sim/trace/chunk_filters.hpp"

namespace gcsim::models {

inline constexpr config::KeySpec OUTPUT_KEYS[] = {
    {"trace", "file name (no `/`)", "`<name>.h5`", false, "1..170 bytes, not `.` or `..`",
     "the trace's file name inside the output folder"},
    {.name = "flows", .type = "bool", .help = "also write the /flows table, one row per network flow",
     .kind = config::KeyKind::Bool, .has_default = true, .default_number = 0},
    {.name = "compression", .type = "integer",
     .help = "the trace's deflate level: 0 none (fastest, largest), 9 smallest; `--trace-compression` overrides it",
     .kind = config::KeyKind::Integer, .min = trace::MIN_COMPRESSION_LEVEL, .max = trace::MAX_COMPRESSION_LEVEL,
     .has_default = true, .default_number = trace::DEFAULT_COMPRESSION_LEVEL},
    {.name = "events", .type = "bool",
     .help = "write the /events table (every submit, start, finish, stop); false leaves it out: no figure needs it, "
             "only the plots' interruption marks of traces without /node_events",
     .kind = config::KeyKind::Bool, .has_default = true, .default_number = 1},
    {.name = "request_rows", .type = "integer",
     .help = "the most completed requests of each service kept in /service_requests, a regular 1-in-k sample (k a "
             "power of two, /services.sample_every); 0: none",
     .kind = config::KeyKind::Integer, .min = 0, .max = static_cast<double>(MAX_REQUEST_ROWS), .has_default = true,
     .default_number = static_cast<double>(DEFAULT_REQUEST_ROWS)},
    {.name = "service_interval", .type = "duration",
     .help = "the interval of each service's samples (requests, latency quantiles, SLO attainment, replicas; docs/serving.md)",
     .kind = config::KeyKind::Duration, .min = 1, .has_default = true, .default_number = 60e9},
    {"metrics", "map", "none", false, "", "sample simulated GPU metrics into the /metrics table (with network:, node latency into /node_latency; metrics.md)"},
};

// output.metrics: the simulated GPU metrics (docs/metrics.md). Its only key is required:
// `metrics: {}` would sample at an interval nobody chose.
inline constexpr config::KeySpec METRICS_KEYS[] = {
    {.name = "every", .type = "duration", .required = true,
     .help = "the sampling interval of the exported series (DCGM's scrape interval)",
     .kind = config::KeyKind::Duration, .min = 1},
};

// The longest file name output.trace may be (bytes): 255, the usual file system limit, less
// a run's seed and replication suffix ("-s<20 digits>-r<20 digits>", cli/main.cpp) and the
// temporary suffix the trace is first written under (40, sim/atomic_file.cpp).
inline constexpr std::size_t MAX_OUTPUT_FILE_NAME_BYTES = 170;

// `node` may be null (no output section): the defaults, the trace named after the scenario
// (`name_node`, where a name too long for a file name is refused). The trace's file name is
// refused (out-of-range) when empty, "." or "..", or over MAX_OUTPUT_FILE_NAME_BYTES.
OutputSpec read_output(const config::ConfigNode* node, const config::ConfigNode& name_node,
                       const std::string& scenario_name);

}  // namespace gcsim::models
