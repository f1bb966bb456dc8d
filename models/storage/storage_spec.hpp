// Storage tiers: what a scenario's `storage:` section describes (local NVMe per node,
// shared file systems, object stores, archives), the read throughput a reader gets from
// one, and what storing and moving data costs. Format: docs/storage.md.
//
// Read throughput of one stream of files of size F (docs/storage.md):
//   min(read bandwidth, IOPS · F, concurrency · F / (latency + F / stream bandwidth))
// Small files are IOPS-bound (the first two terms; "Little's law" for the last: a stream
// with c requests in flight, each taking latency + transfer time; Little 1961).
// Costs: $/GB-month prorated by the hour over a 730-hour month (the convention of AWS and
// GCP price lists), per-request prices per 1000 requests, transfer and retrieval per GB.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"

namespace gcsim::models {

enum class TierKind { LocalNvme, SharedFs, ObjectStore, Archive };
std::string_view tier_kind_name(TierKind k);  // "local-nvme", "shared-fs", "object-store", "archive"

struct StorageTierSpec {
  std::string name;
  TierKind kind = TierKind::SharedFs;
  double read_bytes_per_s = 0;         // aggregate of the tier (per node for local-nvme)
  double write_bytes_per_s = 0;        // same; defaults to read
  double stream_bytes_per_s = 0;       // per-stream cap (object stores); 0 = none
  double iops = 0;                     // requests per second, aggregate; 0 = not limiting
  double latency_s = 0;                // per request (first byte)
  double capacity_bytes = 0;           // 0 = unlimited (per node for local-nvme)
  double usd_per_gb_month = 0;         // stored data
  double usd_per_1k_requests = 0;      // GET-class requests (object stores)
  double transfer_usd_per_gb = 0;      // reading data out of the tier
  double retrieval_delay_s = 0;        // archive: time before the first byte
  double retrieval_usd_per_gb = 0;     // archive: retrieval fee
  bool per_node() const { return kind == TierKind::LocalNvme; }
};

struct StorageSpec {
  std::vector<StorageTierSpec> tiers;
  const StorageTierSpec* find(std::string_view name) const;
  std::vector<std::string> names() const;
};

// The keys of the `storage:` section, of each tier and of an archive's retrieval, listed
// in docs/storage.md (checked by tests/config/test_scenario_keys_docs.cpp).
inline constexpr config::KeySpec STORAGE_KEYS[] = {
    {"tiers", "list of maps", "", true, "at least one", "the storage tiers, below; names unique"},
};
inline constexpr config::KeySpec STORAGE_TIER_KEYS[] = {
    {"name", "text, unique", "", true, "", "jobs name it in dataset.tier and checkpoint.tier"},
    {"kind", "`local-nvme` `shared-fs` `object-store` `archive`", "", true, "", "what the tier is"},
    {.name = "read", .type = "bandwidth", .required = true, .help = "aggregate read bandwidth; per node for local-nvme",
     .kind = config::KeyKind::Bandwidth},
    {.name = "write", .type = "bandwidth", .default_value = "`read`", .help = "aggregate write bandwidth",
     .kind = config::KeyKind::Bandwidth},
    {.name = "stream", .type = "bandwidth", .default_value = "none", .help = "per-stream cap (object stores only)",
     .kind = config::KeyKind::Bandwidth},
    {.name = "iops", .type = "count", .default_value = "not limiting", .help = "requests per second, aggregate",
     .kind = config::KeyKind::Number, .min = 0, .above_min = true, .below_min = "must be greater than zero"},
    {.name = "latency", .type = "duration", .help = "per request, to first byte", .kind = config::KeyKind::Duration,
     .min = 0, .has_default = true, .default_number = 0},
    {.name = "capacity", .type = "bytes", .default_value = "none",
     .help = "capacity (per node for local-nvme, required there)", .kind = config::KeyKind::Bytes},
    {"price", "USD per GB-month", "`0`", false, ">= 0", "stored data"},
    {.name = "request_price", .type = "USD per 1000 requests", .help = "GET-class requests (object stores, archives)",
     .kind = config::KeyKind::Usd, .min = 0, .has_default = true, .default_number = 0},
    {"transfer_price", "USD per GB", "`0`", false, ">= 0", "data read out"},
    {"retrieval", "map", "", false, "", "an archive's retrieval delay and fee (required there)"},
};
inline constexpr config::KeySpec RETRIEVAL_KEYS[] = {
    {.name = "delay", .type = "duration", .required = true, .help = "time before the first byte",
     .kind = config::KeyKind::Duration, .min = 0},
    {"price", "USD per GB", "`0`", false, ">= 0", "retrieval fee"},
};

// Parses the `storage:` section: {tiers: [{name, kind, read, write, stream, iops, latency,
// capacity, price, request_price, transfer_price, retrieval: {delay, price}}]}. Strict;
// kind-specific keys on the wrong kind are Conflict errors.
StorageSpec parse_storage(const config::ConfigNode& section);

// Bytes/s one reader gets reading files of `file_bytes` with `concurrency` requests in
// flight, alone on the tier (see the header comment).
double read_throughput_bytes_per_s(const StorageTierSpec& tier, double file_bytes, int concurrency = 1);

// Storing `bytes` for `duration_s`.
double storage_cost_usd(const StorageTierSpec& tier, double bytes, double duration_s);
// Reading `bytes` out of the tier in files of `file_bytes` (one GET-class request per
// file), by kind of charge.
struct ReadCost {
  double requests_usd = 0;   // bytes / file size requests at request_price per 1000
  double transfer_usd = 0;   // bytes/1e9 · transfer_price
  double retrieval_usd = 0;  // bytes/1e9 · retrieval price (archives)
  double total_usd() const { return requests_usd + transfer_usd + retrieval_usd; }
};
ReadCost read_cost(const StorageTierSpec& tier, double bytes, double file_bytes);
// The total of read_cost().
double read_cost_usd(const StorageTierSpec& tier, double bytes, double file_bytes);

// A tier device's bandwidth for reads of `file_bytes` files: its read bandwidth, or its
// IOPS times the file size when that is less (what the storage coupling shares among a
// device's readers, docs/storage.md "Storage in runs", B_j).
double tier_bandwidth_bytes_per_s(const StorageTierSpec& tier, double file_bytes);

// Staging a dataset from `from` to local NVMe `to`: time (retrieval delay + bytes at the
// slower of the source's read throughput for these files and the target's write bandwidth).
double staging_time_s(const StorageTierSpec& from, const StorageTierSpec& to, double bytes, double file_bytes,
                      int concurrency = 16);

}  // namespace gcsim::models
