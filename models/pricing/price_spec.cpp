// Parsing of markets, price blocks and spot price profiles; see price_spec.hpp.
#include "models/pricing/price_spec.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <optional>
#include <string_view>
#include <utility>

#include "models/core/limits.hpp"
#include "models/pricing/csv.hpp"
#include "sim/config/reader.hpp"
#include "sim/errors.hpp"
#include "sim/units.hpp"

namespace gcsim::models {
namespace {

using config::ConfigNode;
using config::MapReader;

// "$4/GPUh": the period of a price per GPU starts with this (then an optional '-').
constexpr std::string_view PER_GPU = "GPU";

const std::vector<std::string>& upfront_names() {
  static const std::vector<std::string> names{"none", "partial", "all"};
  return names;
}

// The code a unit error in a price trace cell stands for, as config::fail_unit maps it.
ErrorCode unit_error_code(const units::UnitError& e) {
  switch (e.kind()) {
    case units::UnitError::Kind::NotANumber: return ErrorCode::WrongType;
    case units::UnitError::Kind::OutOfRange: return ErrorCode::OutOfRange;
    case units::UnitError::Kind::MissingUnit:
    case units::UnitError::Kind::BadUnit: return ErrorCode::BadUnit;
  }
  return ErrorCode::BadUnit;
}

// Checks a profile's points and period the way PriceProfile requires them.
void check_profile(const std::vector<PricePoint>& points, sim::SimTime repeat, const std::vector<const ConfigNode*>& at_nodes,
                   const ConfigNode* repeat_node, const std::string& label, const std::vector<std::pair<int, int>>& at_marks) {
  auto fail_at = [&](std::size_t i, ErrorCode code, const std::string& detail) {
    if (i < at_nodes.size() && at_nodes[i] != nullptr) at_nodes[i]->fail(code, detail);
    csv::fail(code, label, at_marks[i].first, at_marks[i].second, "time", detail);
  };
  if (points.front().at != sim::SimTime::zero()) fail_at(0, ErrorCode::OutOfRange, "the first price point must be at 0");
  // Each point is a price change, an event of the run: at least a second apart
  // (models/core/limits.hpp), and the wrap of a repeated profile is one more.
  for (std::size_t i = 1; i < points.size(); ++i) {
    if (!(points[i].at > points[i - 1].at))
      fail_at(i, ErrorCode::OutOfRange, "price points must be in strictly increasing time order");
    if (points[i].at - points[i - 1].at < limits::MIN_TRACE_TICK)
      fail_at(i, ErrorCode::OutOfRange,
              "price points must be at least 1 second apart (providers change spot prices every few minutes at most)");
  }
  if (repeat > sim::SimTime::zero() && repeat - points.back().at < limits::MIN_TRACE_TICK) {
    const std::string detail = "repeat (" + units::format_duration_s(repeat.seconds()) +
                               ") must be at least 1 second longer than the last point's time (" +
                               units::format_duration_s(points.back().at.seconds()) + ")";
    if (repeat_node != nullptr) repeat_node->fail(ErrorCode::OutOfRange, detail);
    fail_at(points.size() - 1, ErrorCode::OutOfRange, detail);
  }
}

// MissingKey for `key` of the map `node`, with the key in the path as MapReader::required
// reports it, and `why` telling which other value makes it required.
[[noreturn]] void fail_missing(const ConfigNode& node, std::string_view key, const std::string& why) {
  throw ConfigError(ErrorCode::MissingKey, node.mark(), config::join_key_path(node.path(), key),
                    "missing required key '" + std::string(key) + "'" + (why.empty() ? "" : " (" + why + ")"));
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The price period of a price per GPU ("h" of "$4/GPUh" or "$4/GPU-h"), or nullopt when
// the text is not one. An empty period ("$4/GPU") is a per-GPU price without its period.
std::optional<std::string_view> per_gpu_period(std::string_view text) {
  const std::size_t slash = text.rfind('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::string_view period = trim(text.substr(slash + 1));
  if (!period.starts_with(PER_GPU)) return std::nullopt;
  period.remove_prefix(PER_GPU.size());
  if (!period.empty() && period.front() == '-') period.remove_prefix(1);
  return period;
}

ReservedTerms parse_reserved(const ConfigNode& node, int gpus_per_node) {
  MapReader r(node, RESERVED_KEYS);
  ReservedTerms t;
  // The upfront is spread over the term: at least an hour (as an owned node's
  // depreciation), so that upfront / term stays a price per hour within the limits.
  t.term = r.need<sim::SimTime>("term");
  const std::string up = r.has("upfront") ? config::read_enum(*r.optional("upfront"), upfront_names()) : "none";
  t.upfront = up == "none" ? Upfront::None : up == "partial" ? Upfront::Partial : Upfront::All;
  const ConfigNode* amount = r.where("upfront_usd");
  const ConfigNode* hourly = r.optional("per_hour");
  if (amount != nullptr) t.upfront_usd = *r.get<double>("upfront_usd");
  if (hourly != nullptr) t.usd_per_hour = read_node_usd_per_hour(*hourly, gpus_per_node);
  switch (t.upfront) {
    case Upfront::None:
      if (amount != nullptr) amount->fail(ErrorCode::Conflict, "upfront_usd needs upfront: partial or all");
      if (hourly == nullptr) fail_missing(node, "per_hour", "a no-upfront reservation is paid by the hour");
      break;
    case Upfront::Partial:
      if (amount == nullptr) fail_missing(node, "upfront_usd", "upfront: partial");
      if (hourly == nullptr) fail_missing(node, "per_hour", "upfront: partial");
      break;
    case Upfront::All:
      if (amount == nullptr) fail_missing(node, "upfront_usd", "upfront: all");
      if (hourly != nullptr && t.usd_per_hour > 0)
        hourly->fail(ErrorCode::Conflict, "an all-upfront reservation has no hourly charge");
      break;
  }
  r.finish();
  return t;
}

}  // namespace

double parse_node_usd_per_hour(std::string_view text, int gpus_per_node) {
  const std::string_view t = trim(text);
  const std::optional<std::string_view> period = per_gpu_period(t);
  if (!period) return units::parse_usd_per_hour(t);
  if (period->empty())
    throw units::UnitError("'" + std::string(t) + "' is a price per GPU without its period: write e.g. $4/GPUh",
                           units::UnitError::Kind::BadUnit);
  const std::string per_hour = std::string(t.substr(0, t.rfind('/'))) + "/" + std::string(*period);
  try {
    return units::parse_usd_per_hour(per_hour) * gpus_per_node;
  } catch (const units::UnitError& e) {
    throw units::UnitError("in the price per GPU '" + std::string(t) + "': " + e.what(), e.kind());
  }
}

double read_node_usd_per_hour(const ConfigNode& n, int gpus_per_node) {
  // Per node: the engine's own reader, unchanged (quoted numbers, signs, messages).
  if (!n.is_scalar() || !per_gpu_period(trim(n.scalar()))) return config::read_usd_per_hour(n);
  double usd = 0;
  try {
    usd = parse_node_usd_per_hour(n.scalar(), gpus_per_node);
  } catch (const units::UnitError& e) {
    config::fail_unit(n, e);
  }
  if (!(usd >= 0)) n.fail(ErrorCode::OutOfRange, "'" + n.scalar() + "' must not be negative");
  return usd;
}

std::string_view market_name(Market m) {
  switch (m) {
    case Market::OnDemand: return "on_demand";
    case Market::Spot: return "spot";
    case Market::Reserved: return "reserved";
    case Market::Owned: return "owned";
  }
  return "unknown";
}

const std::vector<std::string>& market_names() {
  static const std::vector<std::string> names{"on_demand", "spot", "reserved", "owned"};
  return names;
}

std::optional<Market> market_from_name(std::string_view name) {
  if (name == "on_demand") return Market::OnDemand;
  if (name == "spot") return Market::Spot;
  if (name == "reserved") return Market::Reserved;
  if (name == "owned") return Market::Owned;
  return std::nullopt;
}

Market parse_market(const ConfigNode& node) { return *market_from_name(config::read_enum(node, market_names())); }

std::string_view upfront_name(Upfront u) {
  switch (u) {
    case Upfront::None: return "none";
    case Upfront::Partial: return "partial";
    case Upfront::All: return "all";
  }
  return "unknown";
}

double PriceSpec::usd_per_hour_at(sim::SimTime t) const {
  switch (market) {
    case Market::OnDemand: return on_demand_usd_per_hour;
    case Market::Spot: return spot_profile.empty() ? 0 : spot_profile.value_at(t);
    case Market::Reserved: return reserved_effective_usd_per_hour();
    case Market::Owned: return 0;
  }
  return 0;
}

PriceProfile read_price_profile_csv(std::istream& in, const std::string& label, sim::SimTime repeat,
                                    int gpus_per_node) {
  csv::Reader reader(in, label, true);
  csv::Row row;
  if (!reader.next(row)) csv::fail(ErrorCode::EmptyFile, label, 0, 0, "", "no header 'time,usd_per_hour'");
  static const char* const header[] = {"time", "usd_per_hour"};
  for (std::size_t i = 0; i < 2; ++i) {
    if (i >= row.fields.size() || row.fields[i].text != header[i])
      csv::fail(ErrorCode::MissingKey, label, row.line, i < row.fields.size() ? row.fields[i].column : 1, header[i],
                "the header must be 'time,usd_per_hour'");
  }
  if (row.fields.size() > 2)  // the cell is not quoted: the file may be any file a link points to
    csv::fail(ErrorCode::UnknownKey, label, row.line, row.fields[2].column, "",
              "header column 3 is one too many; the header must be 'time,usd_per_hour'");
  std::vector<PricePoint> points;
  std::vector<std::pair<int, int>> marks;
  while (reader.next(row)) {
    if (row.fields.size() != 2)
      csv::fail(ErrorCode::WrongType, label, row.line, row.fields.size() > 2 ? row.fields[2].column : row.fields[0].column, "",
                "expected 2 fields (time,usd_per_hour), got " + std::to_string(row.fields.size()));
    PricePoint p;
    try {
      p.at = sim::SimTime::from_ns(units::parse_duration_ns(row.fields[0].text));
    } catch (const units::UnitError& e) {
      csv::fail(unit_error_code(e), label, row.line, row.fields[0].column, "time",
                hide_text(std::string(e.what()) + " (write a duration such as 0h or 30m)", row.fields[0].text));
    }
    try {
      p.value = parse_node_usd_per_hour(row.fields[1].text, gpus_per_node);
    } catch (const units::UnitError& e) {
      csv::fail(unit_error_code(e), label, row.line, row.fields[1].column, "usd_per_hour", hide_text(e.what(), row.fields[1].text));
    }
    if (p.at < sim::SimTime::zero())
      csv::fail(ErrorCode::OutOfRange, label, row.line, row.fields[0].column, "time", "a time must not be negative");
    if (p.value < 0)
      csv::fail(ErrorCode::OutOfRange, label, row.line, row.fields[1].column, "usd_per_hour", "a price must not be negative");
    points.push_back(p);
    marks.emplace_back(row.line, row.fields[0].column);
  }
  if (points.empty()) csv::fail(ErrorCode::EmptyFile, label, row.line, 0, "", "no price rows after the header");
  check_profile(points, repeat, {}, nullptr, label, marks);
  return PriceProfile(std::move(points), repeat);
}

PriceProfile parse_price_profile(const ConfigNode& node, config::SourceResolver& sources, int gpus_per_node) {
  MapReader r(node, PRICE_PROFILE_KEYS);
  const ConfigNode* points_node = r.optional("points");
  const ConfigNode* file_node = r.optional("file");
  const ConfigNode* repeat_node = r.where("repeat");
  const sim::SimTime repeat = r.get<sim::SimTime>("repeat").value_or(sim::SimTime::zero());
  r.finish();
  if (points_node != nullptr && file_node != nullptr)
    file_node->fail(ErrorCode::Conflict, "give points or file, not both");
  if (points_node == nullptr && file_node == nullptr)
    fail_missing(node, "points", "or 'file'");
  if (file_node != nullptr) {
    const std::string path = config::SourceResolver::resolve(file_node->mark().file, config::read_string(*file_node));
    std::istringstream in(sources.read(*file_node, "price trace"));
    return read_price_profile_csv(in, path, repeat, gpus_per_node);
  }
  if (!points_node->is_sequence() || points_node->size() == 0)
    points_node->fail(ErrorCode::WrongType, "points must be a non-empty list of {at, price}");
  std::vector<PricePoint> points;
  std::vector<const ConfigNode*> at_nodes;
  for (const ConfigNode& item : points_node->items()) {
    MapReader pr(item, PRICE_POINT_KEYS);
    PricePoint p;
    p.at = pr.need<sim::SimTime>("at");
    const ConfigNode& at = *pr.where("at");
    p.value = read_node_usd_per_hour(pr.required("price"), gpus_per_node);
    pr.finish();
    points.push_back(p);
    at_nodes.push_back(&at);
  }
  check_profile(points, repeat, at_nodes, repeat_node, "", {});
  return PriceProfile(std::move(points), repeat);
}

PriceSpec parse_price(const ConfigNode& block, Market market, const BillingRule& provider_default,
                      config::SourceResolver& sources, int gpus_per_node, const PriceSpec* defaults) {
  MapReader r(block, PRICE_KEYS);
  PriceSpec p;
  p.market = market;
  p.billing = defaults != nullptr ? defaults->billing : provider_default;
  const ConfigNode* on_demand = r.optional("on_demand_per_hour");
  const ConfigNode* spot = r.optional("spot_per_hour");
  const ConfigNode* profile = r.optional("spot_profile");
  const ConfigNode* max = r.optional("max_per_hour");
  const ConfigNode* reserved = r.optional("reserved");
  const ConfigNode* billing = r.optional("billing");
  r.finish();

  const std::string on_market = " on a pool with market: " + std::string(market_name(market));
  if (market == Market::Owned) {
    // An owned pool's cost is its ownership: block; a price here would be silently unused.
    for (const ConfigNode* n : {on_demand, spot, profile, max, reserved, billing})
      if (n != nullptr)
        n->fail(ErrorCode::Conflict, "owned nodes are priced by their ownership: block, not by price:" );
    return p;
  }
  if (market != Market::Spot) {
    for (const ConfigNode* n : {spot, profile, max})
      if (n != nullptr) n->fail(ErrorCode::Conflict, "spot prices and bids apply to market: spot, not" + on_market);
  }
  if (market != Market::Reserved && reserved != nullptr)
    reserved->fail(ErrorCode::Conflict, "reserved terms apply to market: reserved, not" + on_market);

  if (on_demand != nullptr) {
    p.on_demand_usd_per_hour = read_node_usd_per_hour(*on_demand, gpus_per_node);
  } else if (defaults != nullptr) {
    p.on_demand_usd_per_hour = defaults->on_demand_usd_per_hour;
  } else if (market == Market::OnDemand) {
    fail_missing(block, "on_demand_per_hour", "market: on_demand");
  }
  if (billing != nullptr) p.billing = parse_billing(*billing);

  if (market == Market::Spot) {
    if (spot != nullptr && profile != nullptr)
      profile->fail(ErrorCode::Conflict, "give spot_per_hour or spot_profile, not both");
    if (spot != nullptr) {
      p.spot_usd_per_hour = read_node_usd_per_hour(*spot, gpus_per_node);
      p.spot_profile = PriceProfile(*p.spot_usd_per_hour);
    } else if (profile != nullptr) {
      p.spot_profile = parse_price_profile(*profile, sources, gpus_per_node);
    } else if (defaults != nullptr && defaults->spot_usd_per_hour) {
      p.spot_usd_per_hour = defaults->spot_usd_per_hour;
      p.spot_profile = PriceProfile(*p.spot_usd_per_hour);
    } else {
      fail_missing(block, "spot_per_hour", "or 'spot_profile', for market: spot");
    }
    if (max != nullptr) p.max_usd_per_hour = read_node_usd_per_hour(*max, gpus_per_node);
  }
  if (market == Market::Reserved) {
    if (reserved == nullptr) fail_missing(block, "reserved", "market: reserved");
    p.reserved = parse_reserved(*reserved, gpus_per_node);
  }
  return p;
}

}  // namespace gcsim::models
