// The cluster: section reader (see cluster_reader.hpp). A node type is read with the
// catalogs (a GPU name, an instance row), never with another section of the scenario.
#include "models/config/cluster_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>

#include "models/config/autoscale_reader.hpp"
#include "models/config/reader_common.hpp"
#include "models/pricing/billing.hpp"
#include "models/pricing/providers.hpp"
#include "sim/config/reader.hpp"
#include "sim/units.hpp"

namespace gcsim::models {

using config::ConfigNode;
using config::MapReader;

namespace {

const GpuSpec& resolve_gpu(const ConfigNode& gpu, const GpuCatalog& gpus) {
  const std::string gpu_name = config::read_string(gpu);
  const GpuSpec* spec = gpus.find(gpu_name);
  if (spec) return *spec;
  // "H100" names a family, not a part: list the parts it starts, else the closest name.
  std::vector<std::string> family;
  for (const auto& g : gpus.entries()) {
    if (g.name.size() > gpu_name.size() &&
        std::equal(gpu_name.begin(), gpu_name.end(), g.name.begin(),
                   [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b)); }))
      family.push_back(g.name);
  }
  std::string hint;
  if (!family.empty()) {
    hint = "; did you mean one of: ";
    for (std::size_t i = 0; i < family.size(); ++i) hint += (i ? ", " : "") + family[i];
    hint += "?";
  } else if (const std::string close = did_you_mean(gpu_name, gpus.all_names()); !close.empty()) {
    hint = "; did you mean '" + close + "'?";
  }
  gpu.fail(ErrorCode::UnknownName, "unknown GPU '" + gpu_name + "'" + hint + " (`gcsim gpus` lists the catalog)");
}

// A host-only catalog row prices the VM without its GPUs: a run or an estimate on it would be
// silently cheap, so the price the market needs must be given for the whole instance.
void refuse_host_only_price(const InstanceSpec& instance, const ConfigNode& at, const ConfigNode* price, Market market) {
  const char* key = market == Market::Spot ? "spot_per_hour" : "on_demand_per_hour";
  if (market == Market::Owned || market == Market::Reserved || (price && price->find(key))) return;
  const std::string host = units::format_usd(market == Market::Spot && instance.spot_usd_per_hour ? *instance.spot_usd_per_hour
                                                                                                  : instance.on_demand_usd_per_hour) +
                           "/h";
  at.fail(ErrorCode::Conflict, instance.ref() + ": the catalog's price (" + host + ") is the host VM's only; " + instance.provider +
                                   " bills its " + std::to_string(instance.gpus) + " GPUs separately. Give price: {" + key +
                                   ": ...} for the whole instance, or import the provider's full catalog (gcsim catalog "
                                   "import --from skypilot-" + instance.provider + ")");
}

NodeTypeSpec read_node_type(const ConfigNode& n, const Catalogs& catalogs, config::SourceResolver& sources) {
  MapReader r(n, NODE_TYPE_KEYS);
  NodeTypeSpec t;
  t.mark = n.mark();
  t.path = n.path();
  t.name = read_name(r.required("name"));
  // A catalog instance supplies hardware, prices and billing; explicit keys override them.
  const InstanceSpec* instance = nullptr;
  if (const ConfigNode* i = r.optional("instance")) {
    instance = &catalogs.instances.lookup(*i);
    t.instance = instance->ref();
    t.provider = instance->provider;
  }
  if (const ConfigNode* p = r.optional("provider")) t.provider = config::read_enum(*p, provider_names());
  const ConfigNode* gpu = r.optional("gpu");
  if (gpu) t.gpu = resolve_gpu(*gpu, catalogs.gpus);
  else if (instance) t.gpu = *catalogs.gpus.find(instance->gpu);
  else n.fail(ErrorCode::MissingKey, "a node type needs its gpu (e.g. A100-80GB-SXM) or a catalog instance");
  if (const auto g = r.get<std::int64_t>("gpus")) t.gpus = static_cast<int>(*g);
  else if (instance) t.gpus = instance->gpus;
  else t.gpus = static_cast<int>(r.need<std::int64_t>("gpus"));
  if (const auto c = r.get<std::int64_t>("cpu_cores")) t.cpu_cores = static_cast<int>(*c);
  else if (instance) t.cpu_cores = instance->physical_cores();
  if (const auto m = r.get<double>("memory")) t.memory_bytes = *m;
  else if (instance) t.memory_bytes = instance->memory_bytes;
  t.count = static_cast<int>(r.value<std::int64_t>("count"));

  const ConfigNode* market_node = r.optional("market");
  const Market market = market_node ? parse_market(*market_node) : Market::OnDemand;
  if (instance && instance->market_kind == InstanceMarketKind::HostOnly)
    refuse_host_only_price(*instance, *n.find("instance"), r.optional("price"), market);
  const BillingRule billing = t.provider.empty() ? per_second_billing() : default_billing(t.provider);
  const PriceSpec defaults = instance ? instance->price_defaults() : PriceSpec{};
  const ConfigNode* price = r.optional("price");
  if (!price && !instance && market != Market::Owned)
    n.fail(ErrorCode::MissingKey, "a node type needs its price (e.g. {on_demand_per_hour: 32.77}) or a catalog instance");
  if (!price) {
    // Without a price: block, what the market needs must come from the catalog instance.
    const ConfigNode& at = instance ? *n.find("instance") : n;
    if (market == Market::Spot && !defaults.spot_usd_per_hour)
      at.fail(ErrorCode::MissingKey, "market: spot needs a spot price: give price: {spot_per_hour: ...} or " +
                                         std::string(instance ? "name a zone with one (e.g. " + instance->provider + "/" +
                                                                    instance->instance_type + "@<zone>; `gcsim instances`)"
                                                              : "a catalog instance with one"));
    if (market == Market::Reserved)
      n.fail(ErrorCode::MissingKey, "market: reserved needs price: {reserved: {term, upfront, ...}}");
  }
  static const ConfigNode empty_block;
  t.price = parse_price(price ? *price : empty_block, market, instance ? instance->billing : billing, sources, t.gpus,
                        instance ? &defaults : nullptr);
  t.price.market = market;

  const ConfigNode* ownership = r.optional("ownership");
  const ConfigNode* compare = r.optional("compare_to");
  if (market == Market::Owned) {
    if (!ownership) n.fail(ErrorCode::MissingKey, "an owned node type needs ownership: {capex, depreciation, electricity, ...}");
    const double busy_w = default_node_power_w(t.gpu.tdp_w, t.gpus, t.cpu_cores, true);
    const double idle_w = default_node_power_w(t.gpu.tdp_w, t.gpus, t.cpu_cores, false);
    t.ownership = parse_ownership(*ownership, busy_w, idle_w);
  } else if (ownership) {
    ownership->fail(ErrorCode::Conflict, "ownership applies to market: owned only");
  }
  // The break-even of capacity paid whether used or not, against renting on demand.
  if (compare) {
    if (market != Market::Owned && market != Market::Reserved)
      compare->fail(ErrorCode::Conflict, "compare_to applies to market: owned and market: reserved only");
    const InstanceSpec& alt = catalogs.instances.lookup(*compare);
    if (alt.market_kind == InstanceMarketKind::HostOnly)
      compare->fail(ErrorCode::Conflict, alt.ref() + ": the catalog's price is the host VM's only (its GPUs are billed "
                                         "separately): no on-demand alternative to break even against");
    t.compare_to = alt.ref();
    t.compare_usd_per_gpu_hour = alt.on_demand_usd_per_gpu_hour();
  } else if (market == Market::Reserved && t.price.on_demand_usd_per_hour > 0) {
    // A reserved pool's own on-demand price (given, or its catalog instance's).
    t.compare_usd_per_gpu_hour = t.price.on_demand_usd_per_hour / t.gpus;
  }

  const ConfigNode* interruptions = r.optional("interruptions");
  const ConfigNode* availability = r.optional("availability");
  const ConfigNode* notice = r.where("notice");
  const ConfigNode* provisioning = r.where("provisioning");
  if (market == Market::Spot) {
    SpotPoolConfig spot;
    if (interruptions) spot.interruptions = parse_interruptions(*interruptions, sources, &catalogs.spot_advisor);
    if (availability) spot.availability = parse_availability(*availability, sources);
    const std::optional<sim::SimTime> given_notice = r.get<sim::SimTime>("notice");
    spot.notice = given_notice ? *given_notice
                  : instance && instance->spot_notice > sim::SimTime::zero() ? instance->spot_notice
                                                                             : default_notice(t.provider);
    spot.provisioning = r.value<sim::SimTime>("provisioning");
    if (spot.interruptions.price_driven() && !t.price.max_usd_per_hour)
      interruptions->fail(ErrorCode::MissingKey, "process: price needs the pool's price.max_per_hour (its bid)");
    t.spot = std::move(spot);
  } else {
    for (const ConfigNode* k : {interruptions, availability, notice, provisioning})
      if (k) k->fail(ErrorCode::Conflict, "interruptions, availability, notice and provisioning apply to market: spot only");
  }
  if (const ConfigNode* autoscale = r.optional("autoscale")) {
    if (market != Market::OnDemand && market != Market::Spot)
      autoscale->fail(ErrorCode::Conflict, "autoscale applies to market: on_demand and market: spot pools (capacity paid "
                                           "whether used or not does not scale)");
    t.autoscale = read_autoscale(*autoscale, t.count, default_bills_provisioning(t.provider));
    t.max_count = t.autoscale->max;
    if (t.spot) {
      // One delay from a request to up, whoever asks (the autoscaler or the market's
      // replacement): either key gives it; both must agree.
      const ConfigNode* own = autoscale->find("provisioning");
      if (own && provisioning && t.autoscale->provisioning != t.spot->provisioning)
        own->fail(ErrorCode::Conflict, "a spot pool has one provisioning delay: the node type's provisioning (" +
                                           provisioning->scalar() + ") and autoscale.provisioning differ; give one");
      if (own) t.spot->provisioning = t.autoscale->provisioning;
      else t.autoscale->provisioning = t.spot->provisioning;
    }
  } else if (t.count < 1) {
    r.where("count")->fail(ErrorCode::OutOfRange, "'0' is out of range: must be >= 1 (0 only for a pool with autoscale)");
  }
  const bool nics_given = n.find("nics") != nullptr;
  t.internals = topology::resolve_node_internals(topology::parse_node_internals(r), t.gpu);
  // A catalog row's network bandwidth is the node's NICs unless the node type writes its own:
  // one NIC per GPU with an equal share, as the clouds' multi-node GPU instances are wired
  // (docs/pricing.md, "Instance catalogs"). Without either, one 100 Gb/s NIC (docs/network.md).
  if (instance && instance->network_bytes_per_s > 0 && !nics_given) {
    t.internals.nic_count = t.gpus;
    t.internals.nic_bytes_per_s = instance->network_bytes_per_s / t.gpus;
    t.internals.nics_assumed = false;
  }
  return t;
}

}  // namespace

ClusterSpec read_cluster(const ConfigNode& node, const Catalogs& catalogs, config::SourceResolver& sources) {
  ClusterSpec cluster;
  MapReader c(node, CLUSTER_KEYS);
  const ConfigNode& types = c.required("node_types");
  if (!types.is_sequence() || types.size() == 0)
    types.fail(ErrorCode::WrongType, "node_types must be a non-empty list of node types");
  if (types.size() > 64) types.fail(ErrorCode::OutOfRange, "at most 64 node types");
  std::set<std::string> names;
  for (const auto& t : types.items()) {
    cluster.node_types.push_back(read_node_type(t, catalogs, sources));
    if (!names.insert(cluster.node_types.back().name).second)
      t.find("name")->fail(ErrorCode::Duplicate, "node type '" + cluster.node_types.back().name + "' is defined twice");
  }
  // A fallback names another node type, one that can grow or has room of its own.
  for (std::size_t i = 0; i < cluster.node_types.size(); ++i) {
    NodeTypeSpec& t = cluster.node_types[i];
    if (!t.autoscale || t.autoscale->fallback.empty()) continue;
    const ConfigNode& at = *types.at(i).find("autoscale")->find("fallback");
    std::vector<std::string> others;
    for (const auto& o : cluster.node_types) others.push_back(o.name);
    const auto it = std::find(others.begin(), others.end(), t.autoscale->fallback);
    if (it == others.end()) {
      const std::string near = did_you_mean(t.autoscale->fallback, others);
      at.fail(ErrorCode::UnknownName, "no node type '" + t.autoscale->fallback + "'" +
                                          (near.empty() ? "" : "; did you mean '" + near + "'?"));
    }
    if (static_cast<std::size_t>(it - others.begin()) == i) at.fail(ErrorCode::Conflict, "a pool cannot fall back to itself");
    t.autoscale->fallback_type = static_cast<int>(it - others.begin());
  }
  if (cluster.total_gpus() > MAX_TOTAL_GPUS)
    types.fail(ErrorCode::OutOfRange, "the node types hold " + std::to_string(cluster.total_gpus()) +
                                          " GPUs in all, more than the limit of 2,147,483,647 (2^31 - 1: GPUs are "
                                          "numbered with 32-bit ids)");
  return cluster;
}

}  // namespace gcsim::models
