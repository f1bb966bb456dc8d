// Parsing storage tiers and the throughput / cost functions (see storage_spec.hpp).
#include "models/storage/storage_spec.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

#include "sim/config/reader.hpp"
#include "sim/errors.hpp"
#include "sim/units.hpp"

namespace gcsim::models {
namespace {

using config::ConfigNode;
using config::MapReader;

const std::vector<std::string>& kind_names() {
  static const std::vector<std::string> names{"local-nvme", "shared-fs", "object-store", "archive"};
  return names;
}

// "0.30/GB-month", "$0.023/GB-month", "20/TB-month", or a bare number (USD per GB-month:
// the key says so).
double read_price_per_gb(const ConfigNode& n, std::string_view per_what) {
  const std::string text = config::read_string(n);
  std::string t = text;
  t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
  if (!t.empty() && t.front() == '$') t.erase(0, 1);
  double scale = 1;
  const auto slash = t.find('/');
  if (slash != std::string::npos) {
    const std::string unit = t.substr(slash + 1);
    t.resize(slash);
    const std::string gb = "GB" + std::string(per_what);
    const std::string tb = "TB" + std::string(per_what);
    if (unit == gb) {
      scale = 1;
    } else if (unit == tb) {
      scale = 1e-3;
    } else {
      n.fail(ErrorCode::BadUnit, "expected a price per " + gb + " (e.g. 0.30/" + gb + "), got '" + text + "'");
    }
  }
  double v = 0;
  try {
    v = units::parse_number(t);
  } catch (const units::UnitError&) {
    n.fail(ErrorCode::WrongType, "expected a price such as 0.30/GB" + std::string(per_what) + ", got '" + text + "'");
  }
  if (v < 0) n.fail(ErrorCode::OutOfRange, "a price must not be negative");
  // Costs stay finite by construction (docs/units.md, "Limits: time and numbers").
  if (v * scale > units::MAX_USD)
    n.fail(ErrorCode::OutOfRange, "'" + text + "' is too large: the limit is $1e12 per GB (larger values have no "
                                  "physical meaning and would make totals overflow)");
  return v * scale;
}

StorageTierSpec parse_tier(const ConfigNode& node) {
  MapReader r(node, STORAGE_TIER_KEYS);
  StorageTierSpec t;
  t.name = config::read_string(r.required("name"));
  const std::string kind = config::read_enum(r.required("kind"), kind_names());
  t.kind = kind == "local-nvme"     ? TierKind::LocalNvme
           : kind == "shared-fs"    ? TierKind::SharedFs
           : kind == "object-store" ? TierKind::ObjectStore
                                    : TierKind::Archive;
  t.read_bytes_per_s = r.need<double>("read");
  t.write_bytes_per_s = r.get<double>("write").value_or(t.read_bytes_per_s);
  if (const ConfigNode* s = r.where("stream")) {
    if (t.kind != TierKind::ObjectStore) s->fail(ErrorCode::Conflict, "a per-stream bandwidth applies to object stores only");
    t.stream_bytes_per_s = *r.get<double>("stream");
  }
  if (const std::optional<double> i = r.get<double>("iops")) t.iops = *i;
  t.latency_s = r.value<sim::SimTime>("latency").seconds();
  if (const std::optional<double> c = r.get<double>("capacity")) t.capacity_bytes = *c;
  if (t.kind == TierKind::LocalNvme && t.capacity_bytes == 0)
    node.fail(ErrorCode::MissingKey, "a local-nvme tier needs its capacity per node (staging evicts by it)");
  if (const ConfigNode* p = r.optional("price")) t.usd_per_gb_month = read_price_per_gb(*p, "-month");
  if (const ConfigNode* p = r.where("request_price")) {
    if (t.kind != TierKind::ObjectStore && t.kind != TierKind::Archive)
      p->fail(ErrorCode::Conflict, "request prices apply to object stores and archives");
  }
  t.usd_per_1k_requests = r.value<double>("request_price");
  if (const ConfigNode* p = r.optional("transfer_price")) t.transfer_usd_per_gb = read_price_per_gb(*p, "");
  if (const ConfigNode* ret = r.optional("retrieval")) {
    if (t.kind != TierKind::Archive) ret->fail(ErrorCode::Conflict, "retrieval applies to archive tiers only");
    MapReader rr(*ret, RETRIEVAL_KEYS);
    t.retrieval_delay_s = rr.need<sim::SimTime>("delay").seconds();
    if (const ConfigNode* p = rr.optional("price")) t.retrieval_usd_per_gb = read_price_per_gb(*p, "");
  } else if (t.kind == TierKind::Archive) {
    node.fail(ErrorCode::MissingKey, "an archive tier needs retrieval: {delay: ..., price: ...}");
  }
  return t;
}

}  // namespace

std::string_view tier_kind_name(TierKind k) {
  switch (k) {
    case TierKind::LocalNvme: return "local-nvme";
    case TierKind::SharedFs: return "shared-fs";
    case TierKind::ObjectStore: return "object-store";
    case TierKind::Archive: return "archive";
  }
  return "unknown";
}

const StorageTierSpec* StorageSpec::find(std::string_view name) const {
  for (const StorageTierSpec& t : tiers)
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<std::string> StorageSpec::names() const {
  std::vector<std::string> out;
  for (const StorageTierSpec& t : tiers) out.push_back(t.name);
  return out;
}

StorageSpec parse_storage(const ConfigNode& section) {
  MapReader r(section, STORAGE_KEYS);
  const ConfigNode& tiers = r.required("tiers");
  if (!tiers.is_sequence() || tiers.size() == 0) tiers.fail(ErrorCode::WrongType, "tiers must be a non-empty list");
  StorageSpec s;
  std::set<std::string> names;
  for (const ConfigNode& t : tiers.items()) {
    s.tiers.push_back(parse_tier(t));
    if (!names.insert(s.tiers.back().name).second)
      t.find("name")->fail(ErrorCode::Duplicate, "storage tier '" + s.tiers.back().name + "' is defined twice");
  }
  return s;
}

double read_throughput_bytes_per_s(const StorageTierSpec& t, double file_bytes, int concurrency) {
  double rate = t.read_bytes_per_s;
  if (t.iops > 0 && file_bytes > 0) rate = std::min(rate, t.iops * file_bytes);
  if (file_bytes > 0 && (t.latency_s > 0 || t.stream_bytes_per_s > 0)) {
    const double transfer = t.stream_bytes_per_s > 0 ? file_bytes / t.stream_bytes_per_s : 0;
    const double per_request = t.latency_s + transfer;
    if (per_request > 0) rate = std::min(rate, std::max(1, concurrency) * file_bytes / per_request);
  }
  return rate;
}

double storage_cost_usd(const StorageTierSpec& t, double bytes, double duration_s) {
  return bytes / 1e9 * t.usd_per_gb_month * duration_s / (static_cast<double>(units::HOURS_PER_MONTH) * 3600.0);
}

ReadCost read_cost(const StorageTierSpec& t, double bytes, double file_bytes) {
  const double requests = file_bytes > 0 ? bytes / file_bytes : 0;
  return ReadCost{requests / 1000.0 * t.usd_per_1k_requests, bytes / 1e9 * t.transfer_usd_per_gb,
                  bytes / 1e9 * t.retrieval_usd_per_gb};
}

double read_cost_usd(const StorageTierSpec& t, double bytes, double file_bytes) {
  return read_cost(t, bytes, file_bytes).total_usd();
}

double tier_bandwidth_bytes_per_s(const StorageTierSpec& tier, double file_bytes) {
  double b = tier.read_bytes_per_s;
  if (tier.iops > 0 && file_bytes > 0) b = std::min(b, tier.iops * file_bytes);
  return b;
}

double staging_time_s(const StorageTierSpec& from, const StorageTierSpec& to, double bytes, double file_bytes,
                      int concurrency) {
  const double rate = std::min(read_throughput_bytes_per_s(from, file_bytes, concurrency), to.write_bytes_per_s);
  return from.retrieval_delay_s + bytes / rate;
}

}  // namespace gcsim::models
