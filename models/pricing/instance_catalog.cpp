// Instance catalog files and lookups; see instance_catalog.hpp. The SkyPilot importer is
// models/importers/skypilot.cpp.
#include "models/pricing/instance_catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "models/pricing/catalog_row.hpp"
#include "models/pricing/csv.hpp"
#include "models/pricing/providers.hpp"
#include "sim/config/names.hpp"
#include "sim/config/reader.hpp"
#include "sim/config/regular_file.hpp"
#include "sim/errors.hpp"
#include "sim/units.hpp"

namespace gcsim::models {
namespace {

using catalog_csv::RowReader;

// Our catalog's columns, in the order we write them.
const std::vector<std::string>& catalog_columns() {
  static const std::vector<std::string> cols{
      "provider",  "instance_type", "gpu",          "gpus",          "vcpus",   "memory",
      "local_storage", "network",   "region",       "zone",          "on_demand_per_hour",
      "spot_per_hour", "billing",   "spot_notice",  "market_kind",   "price_assumed",
      "snapshot",  "spot_snapshot", "source"};
  return cols;
}
const std::set<std::string>& required_columns() {
  static const std::set<std::string> cols{"provider", "instance_type", "gpu", "gpus", "on_demand_per_hour", "snapshot", "source"};
  return cols;
}

const std::vector<std::string>& market_kind_names() {
  static const std::vector<std::string> names{"standard", "marketplace", "subscription", "lease", "host_only"};
  return names;
}

std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

// YYYY, YYYY-MM or YYYY-MM-DD of a real calendar date (proleptic Gregorian, years 1900 to
// 9999): 2024-13-45 and 2024-02-30 are refused, 2024-02-29 is a date, 2023-02-29 is not.
bool valid_snapshot(std::string_view s) {
  if (s.empty()) return true;
  if (s.size() != 4 && s.size() != 7 && s.size() != 10) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 4 || i == 7;
    if (dash ? s[i] != '-' : !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  const auto number = [&](std::size_t from, std::size_t n) {
    int v = 0;
    for (std::size_t i = from; i < from + n; ++i) v = v * 10 + (s[i] - '0');
    return v;
  };
  const int year = number(0, 4);
  if (year < 1900) return false;
  if (s.size() == 4) return true;
  const int month = number(5, 2);
  if (month < 1 || month > 12) return false;
  if (s.size() == 7) return true;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  constexpr int DAYS[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const int day = number(8, 2);
  return day >= 1 && day <= DAYS[month - 1] + (month == 2 && leap ? 1 : 0);
}

InstanceSpec parse_row(const RowReader& r, const GpuCatalog* gpus, bool undated_ok) {
  InstanceSpec s;
  s.provider = r.required_text("provider");
  for (char c : s.provider)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-'))
      r.fail(ErrorCode::WrongType, "provider", "a provider id is lower-case letters, digits and '-', got '" + s.provider + "'");
  s.instance_type = r.required_text("instance_type");
  // A reference is provider/TYPE@WHERE: a type holding '/' or '@', or a place holding '@',
  // could never be named.
  if (s.instance_type.find_first_of("/@") != std::string::npos)
    r.fail(ErrorCode::WrongType, "instance_type",
           "an instance type must not hold '/' or '@' (a reference is provider/type@zone): it could never be named");
  s.gpu = r.required_text("gpu");
  if (gpus != nullptr) {
    const GpuSpec* g = gpus->find(s.gpu);
    if (g == nullptr) {
      const std::string hint = did_you_mean(s.gpu, gpus->all_names());
      r.fail(ErrorCode::UnknownName, "gpu",
             "unknown GPU '" + s.gpu + "'" + (hint.empty() ? " (see gcsim gpus)" : "; did you mean '" + hint + "'?"));
    }
    s.gpu = g->name;
  }
  s.gpus = r.integer("gpus", 1, 64);
  s.vcpus = r.integer("vcpus", 0, 100000);
  s.memory_bytes = r.quantity("memory", units::parse_bytes, "1152GiB");
  s.local_storage_bytes = r.quantity("local_storage", units::parse_bytes, "8TB");
  s.network_bytes_per_s = r.quantity("network", units::parse_bytes_per_s, "400Gbps");
  s.region = r.text("region");
  s.zone = r.text("zone");
  for (const auto& [column, value] : {std::pair<const char*, const std::string*>{"region", &s.region}, {"zone", &s.zone}})
    if (value->find('@') != std::string::npos)
      r.fail(ErrorCode::WrongType, column, std::string(column) + " must not hold '@' (a reference is provider/type@zone)");
  // The parts of the instance's id, which traces hold in fixed-width cells (/pools.instance).
  for (const auto& [column, value] : {std::pair<const char*, const std::string*>{"provider", &s.provider},
                                      {"instance_type", &s.instance_type}, {"region", &s.region}, {"zone", &s.zone}}) {
    if (value->size() > config::MAX_NAME_BYTES)
      r.fail(ErrorCode::OutOfRange, column, std::string(column) + " of " + std::to_string(value->size()) +
                                                " bytes; at most " + std::to_string(config::MAX_NAME_BYTES));
  }
  if (r.text("on_demand_per_hour").empty()) r.fail(ErrorCode::MissingKey, "on_demand_per_hour", "empty on_demand_per_hour");
  s.on_demand_usd_per_hour = r.quantity("on_demand_per_hour", units::parse_usd_per_hour, "32.77 or 36999/mo");
  if (!r.text("spot_per_hour").empty())
    s.spot_usd_per_hour = r.quantity("spot_per_hour", units::parse_usd_per_hour, "6.79");
  s.billing = default_billing(s.provider);
  if (const std::string& b = r.text("billing"); !b.empty()) {
    try {
      s.billing = parse_billing_text(b);
    } catch (const std::invalid_argument& e) {
      r.fail(ErrorCode::BadUnit, "billing", e.what());
    }
  }
  s.spot_notice = s.spot_usd_per_hour ? default_notice(s.provider) : sim::SimTime::zero();
  if (const std::string& n = r.text("spot_notice"); !n.empty()) {
    try {
      s.spot_notice = sim::SimTime::from_ns(units::parse_duration_ns(n));
    } catch (const units::UnitError& e) {
      r.fail(ErrorCode::BadUnit, "spot_notice", std::string(e.what()) + " (e.g. 2m, 30s)");
    }
    if (s.spot_notice < sim::SimTime::zero()) r.fail(ErrorCode::OutOfRange, "spot_notice", "must not be negative");
  }
  if (const std::string& k = r.text("market_kind"); !k.empty()) {
    const auto& names = market_kind_names();
    const auto it = std::find(names.begin(), names.end(), k);
    if (it == names.end()) {
      const std::string hint = did_you_mean(k, names);
      r.fail(ErrorCode::UnknownName, "market_kind",
             "unknown value '" + k + "'" + (hint.empty() ? "; valid values: standard, marketplace, subscription, lease"
                                                         : "; did you mean '" + hint + "'?"));
    }
    s.market_kind = static_cast<InstanceMarketKind>(it - names.begin());
  }
  if (const std::string& a = r.text("price_assumed"); !a.empty()) {
    if (a != "0" && a != "1") r.fail(ErrorCode::WrongType, "price_assumed", "expected 0 or 1, got '" + a + "'");
    s.price_assumed = a == "1";
  }
  // Every price carries its date: a planner must see how old a figure is.
  s.snapshot = undated_ok ? r.text("snapshot") : r.required_text("snapshot");
  if (!valid_snapshot(s.snapshot))
    r.fail(ErrorCode::WrongType, "snapshot", "expected a calendar date YYYY-MM-DD (or YYYY-MM, YYYY; years from 1900), got '" + s.snapshot + "'");
  s.spot_snapshot = r.text("spot_snapshot");
  if (!valid_snapshot(s.spot_snapshot))
    r.fail(ErrorCode::WrongType, "spot_snapshot", "expected a calendar date YYYY-MM-DD (or YYYY-MM, YYYY; years from 1900), got '" + s.spot_snapshot + "'");
  if (!s.spot_snapshot.empty() && !s.spot_usd_per_hour)
    r.fail(ErrorCode::Conflict, "spot_snapshot", "a spot price's date without a spot price");
  if (s.spot_snapshot == s.snapshot) s.spot_snapshot.clear();
  s.source = r.required_text("source");
  return s;
}

auto key_of(const InstanceSpec& s) { return std::tie(s.provider, s.instance_type, s.region, s.zone, s.snapshot); }
auto name_of(const InstanceSpec& s) { return std::tie(s.provider, s.instance_type, s.region, s.zone); }

}  // namespace

// A plain number of at most `max`, else OutOfRange.
double catalog_bounded_number(std::string_view text, double max) {
  const double v = units::parse_number(text);
  if (v > max)
    throw units::UnitError("'" + std::string(text) + "' is out of range: must be at most " + format_number(max),
                           units::UnitError::Kind::OutOfRange);
  return v;
}

std::string_view instance_market_kind_name(InstanceMarketKind k) {
  return market_kind_names()[static_cast<std::size_t>(k)];
}

std::string InstanceSpec::ref() const {
  std::string r = provider + "/" + instance_type;
  if (!zone.empty()) {
    r += "@" + zone;
  } else if (!region.empty()) {
    r += "@" + region;
  }
  return r;
}

PriceSpec InstanceSpec::price_defaults() const {
  PriceSpec p;
  p.on_demand_usd_per_hour = on_demand_usd_per_hour;
  p.spot_usd_per_hour = spot_usd_per_hour;
  if (spot_usd_per_hour) p.spot_profile = PriceProfile(*spot_usd_per_hour);
  p.billing = billing;
  return p;
}

void InstanceCatalog::load(const std::string& path, const GpuCatalog* gpus, CatalogPrecedence precedence) {
  std::istringstream in(config::read_regular_file(path, config::MAX_INPUT_FILE_BYTES, "instance catalog"));
  load(in, path, gpus, precedence);
}

void InstanceCatalog::load(std::istream& in, const std::string& label, const GpuCatalog* gpus,
                           CatalogPrecedence precedence) {
  csv::Reader reader(in, label, true);
  csv::Row row;
  if (!reader.next(row)) throw ConfigError(ErrorCode::EmptyFile, SourceMark{label, 0, 0}, "", "no header line");
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < row.fields.size(); ++i) {
    const std::string& name = row.fields[i].text;
    // Named by number, never quoted: a catalog named by a scenario may be any file.
    if (std::find(catalog_columns().begin(), catalog_columns().end(), name) == catalog_columns().end()) {
      const std::string hint = did_you_mean(name, catalog_columns());
      csv::fail(ErrorCode::UnknownKey, label, row.line, row.fields[i].column, "",
                hide_text("header column " + std::to_string(i + 1) + " is not a catalog column" +
                              (hint.empty() ? "" : "; did you mean '" + hint + "'?"),
                          name) +
                    " (the header names the columns: docs/pricing.md)");
    }
    if (!index.emplace(name, i).second)
      csv::fail(ErrorCode::Duplicate, label, row.line, row.fields[i].column, name,
                "header column " + std::to_string(i + 1) + " repeats column " + std::to_string(index[name] + 1));
  }
  for (const std::string& c : required_columns())
    if (!index.count(c) && !(undated_ok_ && c == "snapshot")) csv::fail(ErrorCode::MissingKey, label, row.line, 1, c, "missing required column '" + c + "'");
  const std::size_t columns = row.fields.size();

  std::vector<InstanceSpec> parsed;
  std::vector<int> lines;
  while (reader.next(row)) {
    if (row.fields.size() != columns)
      csv::fail(ErrorCode::WrongType, label, row.line, row.fields.size() > columns ? row.fields[columns].column : 1, "",
                "expected " + std::to_string(columns) + " fields (as the header), got " + std::to_string(row.fields.size()));
    const RowReader r(row, index, label);
    InstanceSpec s = parse_row(r, gpus, undated_ok_);
    s.origin = label + ":" + std::to_string(row.line);
    // Rows an Override file replaces do not count as duplicates of its own.
    const bool overriding = precedence == CatalogPrecedence::Override;
    for (std::size_t i = 0; i < rows_.size(); ++i)
      if (key_of(rows_[i]) == key_of(s) && !(overriding && overridable_[i]))
        r.fail(ErrorCode::Duplicate, "instance_type",
               "'" + s.ref() + "' (snapshot '" + s.snapshot + "') is already in the catalog (" + rows_[i].origin + ")");
    for (const InstanceSpec& p : parsed)
      if (key_of(p) == key_of(s))
        r.fail(ErrorCode::Duplicate, "instance_type",
               "'" + s.ref() + "' (snapshot '" + s.snapshot + "') is already in the catalog (" + p.origin + ")");
    parsed.push_back(std::move(s));
  }
  if (precedence == CatalogPrecedence::Override) {
    // A user's row replaces the bundled rows of its name, whatever their date: the user
    // chose that figure, and a bundled row left beside it could win a lookup by being newer.
    std::vector<InstanceSpec> kept;
    std::vector<bool> kept_overridable;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      const auto by = std::find_if(parsed.begin(), parsed.end(),
                                   [&](const InstanceSpec& p) { return name_of(p) == name_of(rows_[i]); });
      if (overridable_[i] && by != parsed.end()) {
        overrides_.push_back(by->ref() + ": " + by->origin + " replaces the bundled row (" + rows_[i].origin +
                             ", snapshot " + rows_[i].snapshot + ")");
        continue;
      }
      kept.push_back(std::move(rows_[i]));
      kept_overridable.push_back(overridable_[i]);
    }
    rows_ = std::move(kept);
    overridable_ = std::move(kept_overridable);
  }
  for (InstanceSpec& s : parsed) {
    rows_.push_back(std::move(s));
    overridable_.push_back(precedence == CatalogPrecedence::Add);
  }
  resolve();
}

void InstanceCatalog::add(InstanceSpec spec) {
  for (const InstanceSpec& e : rows_)
    if (key_of(e) == key_of(spec)) throw std::invalid_argument("InstanceCatalog::add: '" + spec.ref() + "' is already in the catalog");
  rows_.push_back(std::move(spec));
  overridable_.push_back(true);
  resolve();
}

void InstanceCatalog::resolve() {
  entries_ = rows_;
  for (InstanceSpec& z : entries_) {
    if (z.zone.empty() || z.region.empty()) continue;
    // The newest region-level row of the zone's region, if newer than the zone's own date.
    const InstanceSpec* newest = nullptr;
    for (const InstanceSpec& r : rows_)
      if (r.zone.empty() && r.region == z.region && r.provider == z.provider && r.instance_type == z.instance_type &&
          r.market_kind == z.market_kind && r.snapshot > z.snapshot && (newest == nullptr || r.snapshot > newest->snapshot))
        newest = &r;
    if (newest == nullptr) continue;
    if (z.spot_usd_per_hour && z.spot_snapshot.empty()) z.spot_snapshot = z.snapshot;
    z.on_demand_usd_per_hour = newest->on_demand_usd_per_hour;
    z.price_assumed = z.price_assumed || newest->price_assumed;
    z.source = "on-demand price: " + newest->source + " (" + newest->snapshot + ", " + newest->origin +
               "); other figures: " + z.source + " (" + z.snapshot + ")";
    z.snapshot = newest->snapshot;
    if (z.spot_snapshot == z.snapshot) z.spot_snapshot.clear();
  }
}

const InstanceSpec* InstanceCatalog::find(std::string_view provider, std::string_view instance_type,
                                          std::string_view where) const {
  const std::string p = ascii_lower(provider);
  const InstanceSpec* best = nullptr;
  for (const InstanceSpec& e : entries_) {
    if (e.provider != p || e.instance_type != instance_type) continue;
    if (!where.empty() && e.region != where && e.zone != where) continue;
    if (best == nullptr) {
      best = &e;
      continue;
    }
    // Newer snapshot first (ISO dates sort as text; "" is oldest), then region-level prices.
    if (e.snapshot > best->snapshot || (e.snapshot == best->snapshot && e.zone.empty() && !best->zone.empty())) best = &e;
  }
  return best;
}

const InstanceSpec* InstanceCatalog::find_ref(std::string_view ref) const {
  const auto slash = ref.find('/');
  if (slash == std::string_view::npos || slash == 0) return nullptr;
  std::string_view type = ref.substr(slash + 1);
  std::string_view where;
  if (const auto at = type.rfind('@'); at != std::string_view::npos) {
    where = type.substr(at + 1);
    type = type.substr(0, at);
  }
  return find(ref.substr(0, slash), type, where);
}

std::vector<std::string> InstanceCatalog::refs() const {
  std::vector<std::string> out;
  for (const InstanceSpec& e : entries_) {
    std::string r = e.provider + "/" + e.instance_type;
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(std::move(r));
  }
  return out;
}

namespace {
std::string unknown_instance_message(const InstanceCatalog& c, std::string_view ref) {
  std::string msg = "unknown instance '" + std::string(ref) + "'";
  std::string_view base = ref.substr(0, ref.rfind('@'));
  if (c.find_ref(base) != nullptr) return msg + ": no entry in that region or zone";
  const std::string hint = did_you_mean(base, c.refs());
  if (!hint.empty()) return msg + "; did you mean '" + hint + "'?";
  if (ref.find('/') == std::string_view::npos) return msg + " (write provider/instance_type, e.g. aws/p4d.24xlarge)";
  return msg + " (see gcsim instances)";
}

}  // namespace

const InstanceSpec& InstanceCatalog::lookup(std::string_view ref) const {
  if (const InstanceSpec* s = find_ref(ref)) return *s;
  throw Error(unknown_instance_message(*this, ref));
}

const InstanceSpec& InstanceCatalog::lookup(const config::ConfigNode& node) const {
  const std::string ref = config::read_string(node);
  if (const InstanceSpec* s = find_ref(ref)) return *s;
  node.fail(ErrorCode::UnknownName, unknown_instance_message(*this, ref));
}

std::string bundled_instance_dir(const std::string& catalog_dir) {
  return (std::filesystem::path(catalog_dir) / "instances").string();
}

InstanceCatalog load_instance_catalog_dir(const std::string& dir, const GpuCatalog* gpus, config::SourceResolver* sources) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw ConfigError(ErrorCode::FileNotFound, SourceMark{dir, 0, 0}, "", "no instance catalog folder");
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".csv") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  InstanceCatalog catalog;
  for (const std::string& f : files) {
    if (sources) {
      std::istringstream in(sources->read_bundled(f, "instance catalog"));
      catalog.load(in, f, gpus);
    } else {
      catalog.load(f, gpus);
    }
  }
  return catalog;
}

std::string format_catalog_csv(const std::vector<InstanceSpec>& entries, const std::vector<std::string>& comments) {
  std::string out;
  for (const std::string& c : comments) out += csv::comment_line(c);
  const auto& cols = catalog_columns();
  for (std::size_t i = 0; i < cols.size(); ++i) out += (i ? "," : "") + cols[i];
  out += "\n";
  const double gib = 1024.0 * 1024.0 * 1024.0;
  for (const InstanceSpec& s : entries) {
    const std::vector<std::string> cells{
        s.provider,
        s.instance_type,
        s.gpu,
        std::to_string(s.gpus),
        s.vcpus > 0 ? std::to_string(s.vcpus) : "",
        s.memory_bytes > 0 ? format_number(s.memory_bytes / gib) + "GiB" : "",
        s.local_storage_bytes > 0 ? format_number(s.local_storage_bytes / 1e9) + "GB" : "",
        s.network_bytes_per_s > 0 ? format_number(s.network_bytes_per_s * 8 / 1e9) + "Gbps" : "",
        s.region,
        s.zone,
        format_number(s.on_demand_usd_per_hour),
        s.spot_usd_per_hour ? format_number(*s.spot_usd_per_hour) : "",
        format_billing_compact(s.billing),
        s.spot_notice > sim::SimTime::zero() ? format_number(s.spot_notice.seconds()) + "s" : "",
        std::string(instance_market_kind_name(s.market_kind)),
        s.price_assumed ? "1" : "0",
        s.snapshot,
        s.spot_snapshot,
        s.source};
    for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + csv::escape(cells[i]);
    out += "\n";
  }
  return out;
}

bool valid_catalog_date(std::string_view date) { return !date.empty() && valid_snapshot(date); }

}  // namespace gcsim::models
