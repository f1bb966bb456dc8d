// Reading and validating the network and node-internals specs; see topology_spec.hpp.
#include "models/topology/topology_spec.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "sim/config/names.hpp"
#include "models/gpu/gpu_spec.hpp"
#include "sim/config/csv_table.hpp"
#include "sim/units.hpp"

namespace gcsim::topology {

using config::ConfigNode;
using config::MapReader;

std::string_view link_kind_name(LinkKind k) {
  switch (k) {
    case LinkKind::NvLink: return "nvlink";
    case LinkKind::NvSwitch: return "nvswitch";
    case LinkKind::Pcie: return "pcie";
    case LinkKind::Ethernet: return "ethernet";
    case LinkKind::Infiniband: return "infiniband";
  }
  return "?";
}

std::string_view fabric_name(Fabric f) {
  switch (f) {
    case Fabric::SingleSwitch: return "single-switch";
    case Fabric::LeafSpine: return "leaf-spine";
    case Fabric::FatTree: return "fat-tree";
    case Fabric::Explicit: return "explicit";
  }
  return "?";
}

double pcie_bytes_per_s(int gen, int lanes) {
  // GT/s per lane; 128b/130b encoding from gen3 on.
  const double gt_per_s = gen == 3 ? 8e9 : gen == 4 ? 16e9 : 32e9;
  return gt_per_s * lanes * (128.0 / 130.0) / 8.0;
}

double nvlink_link_bytes_per_s(int gen) { return gen == 1 ? 20e9 : 25e9; }

namespace {

const std::vector<std::string>& fabric_names() {
  static const std::vector<std::string> names{"single-switch", "leaf-spine", "fat-tree", "explicit"};
  return names;
}

LinkKind read_link_kind(const ConfigNode& n) {
  static const std::vector<std::string> names{"nvlink", "nvswitch", "pcie", "ethernet", "infiniband"};
  const std::string s = config::read_enum(n, names);
  if (s == "nvlink") return LinkKind::NvLink;
  if (s == "nvswitch") return LinkKind::NvSwitch;
  if (s == "pcie") return LinkKind::Pcie;
  if (s == "infiniband") return LinkKind::Infiniband;
  return LinkKind::Ethernet;
}

FabricLinkSpec read_fabric_link(const ConfigNode& n) {
  MapReader r(n, FABRIC_LINK_KEYS);
  FabricLinkSpec s;
  s.bytes_per_s = r.value<double>("speed");
  s.latency = r.value<sim::SimTime>("latency");
  if (const ConfigNode* v = r.optional("kind")) s.kind = read_link_kind(*v);
  r.finish();
  return s;
}

// "4", 4, "4:1" -> 4; must be >= 1.
double read_oversubscription(const ConfigNode& n) {
  const std::string& text = n.scalar();
  double value = 0;
  try {
    const auto colon = text.find(':');
    if (colon == std::string::npos) {
      value = units::parse_number(text);
    } else {
      const double num = units::parse_number(std::string_view(text).substr(0, colon));
      const double den = units::parse_number(std::string_view(text).substr(colon + 1));
      if (!(den > 0)) n.fail(ErrorCode::OutOfRange, "oversubscription '" + text + "': the ratio's right side must be > 0");
      value = num / den;
    }
  } catch (const units::UnitError& e) {
    n.fail(ErrorCode::WrongType, "oversubscription '" + text + "' is not a number or a ratio like 4:1 (" + e.what() + ")");
  }
  if (!(value >= 1.0)) n.fail(ErrorCode::OutOfRange, "oversubscription must be >= 1 (1 = non-blocking), got '" + text + "'");
  return value;
}

std::vector<std::string> read_name_list(const ConfigNode& n, std::string_view what) {
  if (!n.is_sequence()) n.fail(ErrorCode::WrongType, std::string(what) + " must be a list of names, got a " + std::string(n.kind_name()));
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const ConfigNode& item : n.items()) {
    std::string name = config::read_string(item);
    config::check_name_length(item, name);
    if (!seen.insert(name).second) item.fail(ErrorCode::Duplicate, std::string(what) + ": '" + name + "' is listed twice");
    names.push_back(std::move(name));
  }
  return names;
}

// `hosts:` of a generated fabric: a count or a list of names.
void read_generated_hosts(const ConfigNode& n, NetworkSpec& s) {
  if (n.is_sequence()) {
    s.hosts = read_name_list(n, "hosts");
    if (s.hosts.empty()) n.fail(ErrorCode::OutOfRange, "hosts must not be empty");
    s.host_count = static_cast<int>(s.hosts.size());
  } else {
    s.host_count = static_cast<int>(config::read_int(n, 1, MAX_GENERATED_HOSTS));
  }
}

// Reads an explicit fabric's routes into s.routes, each checked: its hosts exist and
// differ, its ordered pair is given once, and its links exist and walk from `from` to `to`.
// read() takes a route's map and reports an error at its node; read_plain() takes a CSV row
// of unquoted cells and reads it only when it passes every check (else false, nothing
// changed), so that a large valid table is checked without a map per row.
class RouteReader {
 public:
  explicit RouteReader(NetworkSpec& s) : s_(s), hosts_(s.hosts.size()), pair_given_(hosts_ * hosts_) {
    // Indexed once: a full table of 256 hosts has 65,280 routes, and a linear search per
    // hop made checking them slower than loading the file.
    for (std::size_t i = 0; i < s.hosts.size(); ++i) host_index_.emplace(s.hosts[i], i);
    for (std::size_t i = 0; i < s.links.size(); ++i) link_index_.emplace(s.links[i].name, i);
  }

  void read(const ConfigNode& item) {
    MapReader rr(item, ROUTE_KEYS);
    RouteSpec route;
    const ConfigNode& from = rr.required("from");
    const ConfigNode& to = rr.required("to");
    route.from = config::read_string(from);
    route.to = config::read_string(to);
    auto host_of = [&](const ConfigNode& end, const std::string& name) {
      const std::size_t h = host(name);
      if (h == NONE) {
        const std::string hint = did_you_mean(name, s_.hosts);
        end.fail(ErrorCode::UnknownName, "'" + name + "' is not a host" + (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
      }
      return h;
    };
    const std::size_t from_host = host_of(from, route.from);
    const std::size_t to_host = host_of(to, route.to);
    if (from_host == to_host) to.fail(ErrorCode::Infeasible, "a route needs two different hosts");
    if (pair_given_[from_host * hosts_ + to_host])
      item.fail(ErrorCode::Duplicate, "a route from '" + route.from + "' to '" + route.to + "' is already given");
    const ConfigNode& links = rr.required("links");
    if (!links.is_sequence() || links.size() == 0) links.fail(ErrorCode::WrongType, "a route's links must be a non-empty list of link names");
    const std::string* at = &route.from;
    route.links.reserve(links.size());
    for (const ConfigNode& ln : links.items()) {
      const std::string name = config::read_string(ln);
      const std::size_t l = link(name);
      if (l == NONE) {
        std::vector<std::string> names;
        for (const auto& k : s_.links) names.push_back(k.name);
        const std::string hint = did_you_mean(name, names);
        ln.fail(ErrorCode::UnknownName, "no link named '" + name + "'" + (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
      }
      const std::string* next = step(l, *at);
      if (next == nullptr)
        ln.fail(ErrorCode::Infeasible, "link '" + name + "' does not touch '" + *at + "', where the route has reached");
      at = next;
      route.links.push_back(name);
    }
    if (*at != route.to) links.fail(ErrorCode::Infeasible, "the route ends at '" + *at + "', not at '" + route.to + "'");
    rr.finish();
    add(std::move(route), from_host, to_host);
  }

  bool read_plain(const config::csv::Row& row, std::size_t from_column, std::size_t to_column, std::size_t links_column) {
    const std::size_t cells = row.fields.size();
    if (from_column >= cells || to_column >= cells || links_column >= cells) return false;
    const config::csv::Field& from = row.fields[from_column];
    const config::csv::Field& to = row.fields[to_column];
    const config::csv::Field& links = row.fields[links_column];
    if (from.quoted || to.quoted || links.quoted || links.text.empty()) return false;
    const std::size_t from_host = host(from.text), to_host = host(to.text);
    if (from_host == NONE || to_host == NONE || from_host == to_host || pair_given_[from_host * hosts_ + to_host])
      return false;
    RouteSpec route;
    const std::string* at = &s_.hosts[from_host];
    bool walks = true;
    config::for_each_list_item(links.text, [&](std::size_t b, std::size_t e) {
      if (!walks) return;
      const std::string_view name = std::string_view(links.text).substr(b, e - b);
      const std::size_t l = name.empty() ? NONE : link(name);
      const std::string* next = l == NONE ? nullptr : step(l, *at);
      if (next == nullptr) {
        walks = false;
        return;
      }
      at = next;
      route.links.emplace_back(name);
    });
    if (!walks || *at != to.text) return false;
    route.from = from.text;
    route.to = to.text;
    add(std::move(route), from_host, to_host);
    return true;
  }

 private:
  static constexpr std::size_t NONE = static_cast<std::size_t>(-1);

  std::size_t host(std::string_view name) const {
    const auto found = host_index_.find(name);
    return found == host_index_.end() ? NONE : found->second;
  }
  std::size_t link(std::string_view name) const {
    const auto found = link_index_.find(name);
    return found == link_index_.end() ? NONE : found->second;
  }
  // The node reached from `at` over link l, or nullptr when l does not touch `at`.
  const std::string* step(std::size_t l, const std::string& at) const {
    const ExplicitLinkSpec& link = s_.links[l];
    if (link.a == at) return &link.b;
    if (link.b == at) return &link.a;
    return nullptr;
  }
  void add(RouteSpec route, std::size_t from_host, std::size_t to_host) {
    pair_given_[from_host * hosts_ + to_host] = true;
    s_.routes.push_back(std::move(route));
  }

  NetworkSpec& s_;
  std::size_t hosts_;
  std::vector<bool> pair_given_;  // [from * hosts + to]
  std::unordered_map<std::string_view, std::size_t> host_index_;
  std::unordered_map<std::string_view, std::size_t> link_index_;
};

void read_explicit(MapReader& r, NetworkSpec& s, config::SourceResolver* sources) {
  const ConfigNode& hosts_node = r.required("hosts");
  s.hosts = read_name_list(hosts_node, "hosts");
  if (s.hosts.empty()) hosts_node.fail(ErrorCode::OutOfRange, "an explicit fabric needs at least one host");
  s.host_count = static_cast<int>(s.hosts.size());

  // Inline, or {file: links.csv} (sim/config/csv_table.hpp); `between` is "a;b" there.
  const ConfigNode links_node = config::read_table(r.required("links"), {"between"}, sources, EXPLICIT_LINK_KEYS);
  if (!links_node.is_sequence()) links_node.fail(ErrorCode::WrongType, "links must be a list of maps");
  if (links_node.size() == 0) links_node.fail(ErrorCode::OutOfRange, "an explicit fabric needs at least one link");
  std::set<std::string> link_names;
  for (const ConfigNode& item : links_node.items()) {
    MapReader lr(item, EXPLICIT_LINK_KEYS);
    ExplicitLinkSpec l;
    const ConfigNode& name = lr.required("name");
    l.name = config::read_string(name);
    config::check_name_length(name, l.name);
    if (!link_names.insert(l.name).second) name.fail(ErrorCode::Duplicate, "link '" + l.name + "' is defined twice");
    const ConfigNode& between = lr.required("between");
    if (!between.is_sequence() || between.size() != 2)
      between.fail(ErrorCode::WrongType, "between must be a list of two node names, like [H0, H1]");
    l.a = config::read_string(between.at(0));
    l.b = config::read_string(between.at(1));
    if (l.a == l.b) between.fail(ErrorCode::Infeasible, "link '" + l.name + "' connects '" + l.a + "' to itself");
    l.bytes_per_s = lr.need<double>("bandwidth");
    l.latency = lr.value<sim::SimTime>("latency");
    if (const ConfigNode* v = lr.optional("duplex")) l.half_duplex = config::read_enum(*v, {"full", "half"}) == "half";
    if (const ConfigNode* v = lr.optional("kind")) l.kind = read_link_kind(*v);
    lr.finish();
    s.links.push_back(std::move(l));
  }

  if (const ConfigNode* routes_given = r.optional("routes")) {
    RouteReader routes(s);
    if (const auto table = config::CsvTable::open(*routes_given, {"links"}, sources, ROUTE_KEYS)) {
      // A row in the plain form is checked on its cells; any other row (quoted, with a
      // cell missing, or refused) is read as its map, which reports the error at its cell.
      const std::size_t from = table->column("from"), to = table->column("to"), links = table->column("links");
      config::csv::Row row;
      for (std::size_t i = 0; table->next(row); ++i)
        if (!routes.read_plain(row, from, to, links)) routes.read(table->node(row, i));
    } else {
      if (!routes_given->is_sequence()) routes_given->fail(ErrorCode::WrongType, "routes must be a list of {from, to, links}");
      s.routes.reserve(routes_given->size());
      for (const ConfigNode& item : routes_given->items()) routes.read(item);
    }
  }
}

config::KeyTable fabric_keys(Fabric f) {
  switch (f) {
    case Fabric::SingleSwitch: return SINGLE_SWITCH_KEYS;
    case Fabric::LeafSpine: return LEAF_SPINE_KEYS;
    case Fabric::FatTree: return FAT_TREE_KEYS;
    case Fabric::Explicit: return EXPLICIT_KEYS;
  }
  return SINGLE_SWITCH_KEYS;
}

}  // namespace

std::int64_t leaf_spine_capacity(const NetworkSpec& s) {
  std::int64_t capacity = 0;
  if (s.leaves <= 0) return 0;
  if (__builtin_mul_overflow(std::int64_t{s.leaves}, std::int64_t{s.nodes_per_leaf}, &capacity))
    return std::numeric_limits<std::int64_t>::max();
  return capacity;
}

NetworkSpec parse_network_spec(const ConfigNode& network, config::SourceResolver* sources) {
  NetworkSpec s;
  s.mark = network.mark();
  s.path = network.path();
  // The fabric first: it decides which keys the rest of the map may hold.
  if (const ConfigNode* f = MapReader(network).optional("fabric")) {
    const std::string name = config::read_enum(*f, fabric_names());
    s.fabric = name == "leaf-spine" ? Fabric::LeafSpine
               : name == "fat-tree" ? Fabric::FatTree
               : name == "explicit" ? Fabric::Explicit
                                    : Fabric::SingleSwitch;
  }
  std::vector<config::KeySpec> keys(std::begin(NETWORK_KEYS), std::end(NETWORK_KEYS));
  const config::KeyTable own = fabric_keys(s.fabric);
  keys.insert(keys.end(), own.begin(), own.end());
  MapReader r(network, keys);  // refuses keys of another fabric, and missing required keys, at once
  switch (s.fabric) {
    case Fabric::SingleSwitch:
      if (const ConfigNode* v = r.optional("link")) s.link = read_fabric_link(*v);
      if (const ConfigNode* v = r.optional("hosts")) read_generated_hosts(*v, s);
      break;
    case Fabric::LeafSpine: {
      if (const ConfigNode* v = r.optional("link")) s.link = read_fabric_link(*v);
      s.nodes_per_leaf = static_cast<int>(r.need<std::int64_t>("nodes_per_leaf"));
      s.spines = static_cast<int>(r.need<std::int64_t>("spines"));
      if (const std::optional<std::int64_t> v = r.get<std::int64_t>("leaves")) s.leaves = static_cast<int>(*v);
      if (const ConfigNode* v = r.optional("oversubscription")) s.oversubscription = read_oversubscription(*v);
      if (const ConfigNode* v = r.optional("hosts")) {
        read_generated_hosts(*v, s);
        if (s.leaves > 0 && s.host_count > leaf_spine_capacity(s))
          v->fail(ErrorCode::Infeasible, std::to_string(s.host_count) + " hosts do not fit on " + std::to_string(s.leaves) +
                                             " leaves of " + std::to_string(s.nodes_per_leaf));
      }
      break;
    }
    case Fabric::FatTree: {
      if (const ConfigNode* v = r.optional("link")) s.link = read_fabric_link(*v);
      s.k = static_cast<int>(r.need<std::int64_t>("k"));
      if (s.k % 2 != 0) r.where("k")->fail(ErrorCode::OutOfRange, "a k-ary fat-tree needs an even k, got " + std::to_string(s.k));
      if (const ConfigNode* v = r.optional("hosts")) {
        read_generated_hosts(*v, s);
        const long long capacity = static_cast<long long>(s.k) * s.k * s.k / 4;
        if (s.host_count > capacity)
          v->fail(ErrorCode::Infeasible, std::to_string(s.host_count) + " hosts exceed a k=" + std::to_string(s.k) +
                                             " fat-tree's " + std::to_string(capacity) + " ports");
      }
      break;
    }
    case Fabric::Explicit:
      read_explicit(r, s, sources);
      break;
  }
  r.finish();
  return s;
}

NodeInternalsSpec parse_node_internals(MapReader& node_type) {
  NodeInternalsSpec s;
  static const std::vector<std::string> gens{"gen3", "gen4", "gen5"};
  if (const ConfigNode* p = node_type.optional("pcie")) {
    if (p->is_map()) {
      MapReader pr(*p, PCIE_KEYS);
      s.pcie_gen = static_cast<int>(pr.need<std::int64_t>("gen"));
      s.pcie_lanes = static_cast<int>(pr.value<std::int64_t>("lanes"));
      if ((s.pcie_lanes & (s.pcie_lanes - 1)) != 0)
        pr.where("lanes")->fail(ErrorCode::OutOfRange, "PCIe lanes must be 1, 2, 4, 8 or 16");
      pr.finish();
    } else {
      s.pcie_gen = config::read_enum(*p, gens).back() - '0';
    }
  }
  s.gpus_per_pcie_switch = static_cast<int>(node_type.value<std::int64_t>(GPUS_PER_PCIE_SWITCH_KEY));
  if (const ConfigNode* n = node_type.optional("nvlink")) {
    s.nvlink_mark = n->mark();
    s.nvlink_path = n->path();
    if (n->is_map()) {
      MapReader nr(*n, NVLINK_KEYS);
      s.nvlink = NvlinkMode::PointToPoint;
      s.nvlink_gen = static_cast<int>(nr.need<std::int64_t>("gen"));
      s.nvlink_links = static_cast<int>(nr.need<std::int64_t>("links"));
      nr.finish();
    } else {
      s.nvlink = config::read_enum(*n, {"none", "nvswitch"}) == "none" ? NvlinkMode::None : NvlinkMode::NvSwitch;
    }
  }
  if (const ConfigNode* n = node_type.optional("nics")) {
    MapReader nr(*n, NIC_KEYS);
    s.nics_assumed = false;
    s.nic_count = static_cast<int>(nr.value<std::int64_t>("count"));
    s.nic_bytes_per_s = nr.value<double>("speed");
    s.rdma = nr.value<bool>("rdma");
    nr.finish();
  }
  return s;
}

NodeInternalsSpec resolve_node_internals(const NodeInternalsSpec& spec, const models::GpuSpec& gpu) {
  NodeInternalsSpec s = spec;
  if (s.pcie_gen == 0) s.pcie_gen = gpu.pcie_gen >= 3 && gpu.pcie_gen <= 5 ? gpu.pcie_gen : 4;
  if (s.nvlink == NvlinkMode::Auto) s.nvlink = gpu.nvlink_bytes_per_s > 0 ? NvlinkMode::NvSwitch : NvlinkMode::None;
  if (s.nvlink == NvlinkMode::NvSwitch && !(gpu.nvlink_bytes_per_s > 0))
    throw ConfigError(ErrorCode::Infeasible, s.nvlink_mark, s.nvlink_path,
                      "nvlink: nvswitch needs a GPU with NVLink; " + gpu.name + " has none");
  return s;
}

}  // namespace gcsim::topology
