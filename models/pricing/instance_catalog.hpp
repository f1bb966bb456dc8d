// Instance catalogs: cloud and platform offerings a node type may name instead of spelling
// out its hardware (provider, instance type, GPU model and count, vCPUs, memory, local
// storage, network, region/zone, on-demand and spot prices, billing, with the source and
// snapshot date of every price). The bundled catalog is scenarios/catalog/instances/*.csv;
// the file format (every column) is in docs/pricing.md. The importer of the public SkyPilot
// catalog layout is models/importers/skypilot.hpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/gpu/gpu_catalog.hpp"
#include "models/pricing/billing.hpp"
#include "models/pricing/price_spec.hpp"
#include "sim/config/config_node.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

// How an offering is sold: a standard cloud instance; a marketplace of per-host prices with
// interruptible bids (Vast.ai-style); a subscription of prepaid units converted to an hourly
// equivalent (Colab-style compute units); a lease per node per month (DGX Cloud-style).
// HostOnly: the row's prices are the host VM's alone, without its GPUs (GCP bills the GPUs
// of A2/A3 machine types as separate accelerator rows): never a usable instance price.
enum class InstanceMarketKind { Standard, Marketplace, Subscription, Lease, HostOnly };
std::string_view instance_market_kind_name(InstanceMarketKind k);  // "standard", "marketplace", ...

struct InstanceSpec {
  std::string provider;       // lower-case id: aws, gcp, azure, lambda, alibaba, tencent, vast, colab, dgx-cloud
  std::string instance_type;  // the provider's name: p4d.24xlarge
  std::string gpu;            // a name in the GPU catalog (canonical once loaded against one)
  std::string region;         // "" when the price holds in every region or is not regional
  std::string zone;           // "" for a region-level (list) price
  int gpus = 1;
  int vcpus = 0;                     // 0 = not given
  double memory_bytes = 0;           // host memory; 0 = not given
  double local_storage_bytes = 0;    // instance-local NVMe/SSD; 0 = none or not given
  double network_bytes_per_s = 0;    // per node; 0 = not given
  double on_demand_usd_per_hour = 0; // per node
  std::optional<double> spot_usd_per_hour;  // per node; interruptible bid price on marketplaces
  BillingRule billing;
  sim::SimTime spot_notice;          // warning before a spot reclaim (0 = none or not known)
  InstanceMarketKind market_kind = InstanceMarketKind::Standard;
  bool price_assumed = false;        // true when the price is not public: an assumption
  std::string snapshot;              // date of the price: YYYY-MM-DD, YYYY-MM or YYYY (required)
  std::string spot_snapshot;         // date of the spot price when not `snapshot`'s; "" = the same
  std::string source;                // where the figures come from
  std::string origin;                // "file:line" of the row it was read from ("" when added by code)

  double on_demand_usd_per_gpu_hour() const { return on_demand_usd_per_hour / gpus; }
  // Physical cores: a catalog's vCPUs are hardware threads, two per core on the SMT hosts of
  // the clouds' GPU instances (AWS EC2 "CPU options": each vCPU is a thread of a core).
  int physical_cores() const { return vcpus == 0 ? 0 : std::max(1, vcpus / 2); }
  // "aws/p4d.24xlarge@us-east-1" (the zone instead of the region when there is one).
  std::string ref() const;
  // Prices and billing as defaults for a node type's price: block (parse_price's `defaults`).
  PriceSpec price_defaults() const;
};

// How a file's rows join the catalog. Add: a row whose provider, type, region, zone and
// snapshot an entry already has is a Duplicate error (the bundled files among themselves).
// Override: the file is the user's (a scenario's `catalogs.instances`): its rows replace every
// entry loaded with Add of the same provider, type, region and zone, whatever their snapshot,
// and each replacement is reported (overrides()); among Override files, Add's rule holds.
enum class CatalogPrecedence { Add, Override };

class InstanceCatalog {
 public:
  // Reads a catalog file (docs/pricing.md). With `gpus`, every gpu must resolve there
  // (UnknownName with did-you-mean) and is stored under its canonical name. The file is
  // checked whole before the catalog changes. Errors: ConfigError at file:line:column with
  // the column name as key path (FileNotFound, MissingKey/UnknownKey in the header,
  // WrongType/BadUnit/OutOfRange in cells, Duplicate entries).
  void load(const std::string& path, const GpuCatalog* gpus = nullptr,
            CatalogPrecedence precedence = CatalogPrecedence::Add);
  void load(std::istream& in, const std::string& label, const GpuCatalog* gpus = nullptr,
            CatalogPrecedence precedence = CatalogPrecedence::Add);
  // Adds one entry; std::invalid_argument when an entry with the same provider, type, region,
  // zone and snapshot exists.
  void add(InstanceSpec spec);
  // Accept rows without a snapshot (dated "", the oldest) in later loads: only for the
  // bundled rows a trace written before catalogs required dates recorded (gcsim rerun).
  void accept_undated_rows() { undated_ok_ = true; }
  // One line per bundled row an Override file replaced: "aws/p4d.24xlarge@use1-az1: mine.csv:2
  // replaces the bundled row (aws.csv:18, snapshot 2025-05)".
  const std::vector<std::string>& overrides() const { return overrides_; }

  // The best match: same provider (case-insensitive) and type, and `where` equal to the
  // region or the zone when not empty. Among several, the most recent snapshot wins, then a
  // region-level price (no zone), then the first loaded. nullptr when none.
  // On-demand prices are regional: a zone row whose region has a newer region-level row of
  // the same provider, type and market kind takes that row's on-demand price, date and
  // source (its spot price keeps its own date, spot_snapshot), so that a name with and
  // without its zone gives one on-demand price unless the zone's differs on the same date.
  const InstanceSpec* find(std::string_view provider, std::string_view instance_type, std::string_view where = "") const;
  // "aws/p4d.24xlarge" or "aws/p4d.24xlarge@us-east-1" (or @zone); nullptr when none.
  const InstanceSpec* find_ref(std::string_view ref) const;
  // find_ref, or gcsim::Error "unknown instance ...; did you mean ...?".
  const InstanceSpec& lookup(std::string_view ref) const;
  // The same from a scenario value: ConfigError(UnknownName) at the node.
  const InstanceSpec& lookup(const config::ConfigNode& node) const;
  // Every "provider/type" once, in catalog order (for did-you-mean and listings).
  std::vector<std::string> refs() const;

  // Every entry as lookups see it (zone rows with their region's newer on-demand price).
  const std::vector<InstanceSpec>& list() const { return entries_; }

 private:
  void resolve();  // entries_ from rows_

  std::vector<InstanceSpec> rows_;     // as read
  std::vector<bool> overridable_;      // per row: loaded with CatalogPrecedence::Add
  std::vector<InstanceSpec> entries_;  // rows_ resolved
  std::vector<std::string> overrides_;
  bool undated_ok_ = false;
};

// Loads every *.csv in `dir` in name order (the bundled scenarios/catalog/instances).
// Reads every CSV through `sources` when given (recorded for the trace).
InstanceCatalog load_instance_catalog_dir(const std::string& dir, const GpuCatalog* gpus,
                                          config::SourceResolver* sources = nullptr);
// The bundled folder under a catalog folder (LoadOptions::catalog_dir): "<dir>/instances".
std::string bundled_instance_dir(const std::string& catalog_dir);

// Our catalog format for `entries`, with `comments` written first as `# ` lines
// (config::csv::comment_line: control characters escaped, so a comment stays one line).
std::string format_catalog_csv(const std::vector<InstanceSpec>& entries, const std::vector<std::string>& comments);

// True for a date a catalog's snapshot column takes: YYYY-MM-DD, YYYY-MM or YYYY, a real
// calendar date from 1900 on.
bool valid_catalog_date(std::string_view date);

}  // namespace gcsim::models
