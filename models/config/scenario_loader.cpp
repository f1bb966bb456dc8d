// Scenario file -> validated Scenario (see scenario_loader.hpp). Every key is read through
// config::MapReader, so unknown keys, wrong types, bad units and out-of-range values are
// refused with file:line:column and the key path; references (GPU names, policies) and
// feasibility (a job some node type can hold) are checked here, before anything runs.
#include "models/config/scenario_loader.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>
#include <sstream>

#include "models/config/scheduler_reader.hpp"
#include "models/pricing/billing.hpp"
#include "models/storage/checkpoint_io.hpp"
#include "models/workload/memory_fit.hpp"
#include "sim/config/csv_table.hpp"
#include "sim/config/reader.hpp"

namespace gcsim::models {

using config::ConfigNode;
using config::MapReader;

namespace {

constexpr double INF = std::numeric_limits<double>::infinity();

// What a distribution's values mean, so each value is read with the right unit.
enum class ValueKind { Duration, Count, Integer, Fraction };

double read_value(const ConfigNode& n, ValueKind kind) {
  switch (kind) {
    case ValueKind::Duration: return config::read_duration(n).seconds();
    case ValueKind::Count: return config::read_double(n, 0, INF);
    case ValueKind::Integer: {
      const double v = config::read_double(n, 1, 1e9);
      if (v != std::floor(v)) n.fail(ErrorCode::WrongType, "expected a whole number, got '" + n.scalar() + "'");
      return v;
    }
    case ValueKind::Fraction: {
      const double v = config::read_fraction(n);
      if (!(v > 0 && v <= 1)) n.fail(ErrorCode::OutOfRange, "expected a fraction in (0, 1], got '" + n.scalar() + "'");
      return v;
    }
  }
  return 0;
}

const std::vector<std::string>& dist_names() {
  static const std::vector<std::string> names{"constant", "exponential", "uniform", "normal", "lognormal"};
  return names;
}

Distribution read_distribution(const ConfigNode& n, ValueKind kind) {
  if (n.is_scalar()) return Distribution::constant(read_value(n, kind));
  if (!n.is_map()) n.fail(ErrorCode::WrongType, "expected a value or a distribution map, got a " + std::string(n.kind_name()));
  MapReader r(n);
  Distribution d;
  if (r.has("choice")) {
    d.kind = Distribution::Kind::Choice;
    const ConfigNode& values = r.required("choice");
    if (!values.is_sequence() || values.size() == 0)
      values.fail(ErrorCode::WrongType, "choice needs a non-empty list of values");
    for (const auto& v : values.items()) d.values.push_back(read_value(v, kind));
    if (const ConfigNode* w = r.optional("weights")) {
      if (!w->is_sequence()) w->fail(ErrorCode::WrongType, "weights must be a list of numbers");
      if (w->size() != values.size())
        w->fail(ErrorCode::Conflict, "weights has " + std::to_string(w->size()) + " entries but choice has " +
                                         std::to_string(values.size()));
      double sum = 0;
      for (const auto& x : w->items()) {
        d.weights.push_back(config::read_double(x, 0, INF));
        sum += d.weights.back();
      }
      if (!(sum > 0)) w->fail(ErrorCode::OutOfRange, "weights must not all be zero");
    } else {
      d.weights.assign(d.values.size(), 1.0);
    }
    r.finish();
    return d;
  }
  const ConfigNode& dist = r.required("dist");
  const std::string name = config::read_enum(dist, dist_names());
  auto positive = [&](std::string_view key) {
    const ConfigNode& v = r.required(key);
    const double x = read_value(v, kind == ValueKind::Integer ? ValueKind::Count : kind);
    if (!(x > 0)) v.fail(ErrorCode::OutOfRange, std::string(key) + " must be > 0");
    return x;
  };
  auto number = [&](std::string_view key, double lo) {
    const ConfigNode& v = r.required(key);
    return config::read_double(v, lo, INF);
  };
  if (name == "constant") {
    d.kind = Distribution::Kind::Constant;
    d.p1 = read_value(r.required("value"), kind);
  } else if (name == "exponential") {
    d.kind = Distribution::Kind::Exponential;
    d.p1 = positive("mean");
  } else if (name == "uniform") {
    d.kind = Distribution::Kind::Uniform;
    d.p1 = read_value(r.required("min"), kind == ValueKind::Integer ? ValueKind::Count : kind);
    const ConfigNode& hi = r.required("max");
    d.p2 = read_value(hi, kind == ValueKind::Integer ? ValueKind::Count : kind);
    if (!(d.p2 > d.p1)) hi.fail(ErrorCode::OutOfRange, "max must be greater than min");
    r.finish();
    return d;
  } else if (name == "normal") {
    d.kind = Distribution::Kind::Normal;
    d.p1 = positive("mean");
    d.p2 = kind == ValueKind::Duration ? config::read_duration(r.required("stddev")).seconds() : number("stddev", 0);
  } else {
    d.kind = Distribution::Kind::Lognormal;
    d.p1 = positive("median");
    d.p2 = number("sigma", 0);
  }
  if (const ConfigNode* lo = r.optional("min")) d.min = read_value(*lo, kind == ValueKind::Integer ? ValueKind::Count : kind);
  if (const ConfigNode* hi = r.optional("max")) {
    d.max = read_value(*hi, kind == ValueKind::Integer ? ValueKind::Count : kind);
    if (!(d.max > d.min)) hi->fail(ErrorCode::OutOfRange, "max must be greater than min");
  }
  r.finish();
  return d;
}

std::string read_name(const ConfigNode& n) {
  std::string s = config::read_string(n);
  for (char c : s) {
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20)
      n.fail(ErrorCode::OutOfRange, "names may not contain '/', '\\' or control characters");
  }
  return s;
}

// The catalog documents named by one `catalogs.<kind>` key (a file or a list of files),
// read relative to the scenario file.
std::vector<config::ConfigDocument> read_catalog_files(const ConfigNode& list, const std::string& scenario_file) {
  std::vector<const ConfigNode*> files;
  if (list.is_scalar()) {
    files.push_back(&list);
  } else if (list.is_sequence()) {
    for (const auto& f : list.items()) files.push_back(&f);
  } else {
    list.fail(ErrorCode::WrongType, "expected a file name or a list of file names");
  }
  const auto base = std::filesystem::path(scenario_file).parent_path();
  std::vector<config::ConfigDocument> docs;
  for (const ConfigNode* f : files) {
    const std::string path = (base / config::read_string(*f)).string();
    if (!std::filesystem::is_regular_file(path)) f->fail(ErrorCode::FileNotFound, "catalog file '" + path + "' does not exist");
    docs.push_back(config::load_yaml_file(path));
  }
  return docs;
}

// Bundled catalogs plus the files named by `catalogs.gpus` and `catalogs.models`.
Catalogs read_catalogs(const ConfigNode* node, const Catalogs& bundled, const std::string& scenario_file) {
  Catalogs c = bundled;
  if (!node) return c;
  MapReader r(*node, {"gpus", "models", "instances"});
  if (const ConfigNode* list = r.optional("gpus"))
    for (const auto& doc : read_catalog_files(*list, scenario_file)) c.gpus.add_from(doc.root);
  if (const ConfigNode* list = r.optional("models"))
    for (const auto& doc : read_catalog_files(*list, scenario_file)) c.models.add_from(doc.root);
  if (const ConfigNode* list = r.optional("instances")) {
    // CSV files in the catalog format (docs/pricing.md), relative to the scenario file.
    const auto base = std::filesystem::path(scenario_file).parent_path();
    std::vector<const ConfigNode*> files;
    if (list->is_sequence()) for (const auto& f : list->items()) files.push_back(&f);
    else files.push_back(list);
    for (const ConfigNode* f : files) {
      const std::string path = (base / config::read_string(*f)).string();
      if (!std::filesystem::is_regular_file(path)) f->fail(ErrorCode::FileNotFound, "catalog file '" + path + "' does not exist");
      c.instances.load(path, &c.gpus);
    }
  }
  r.finish();
  return c;
}

const std::vector<std::string>& known_providers() {
  static const std::vector<std::string> names{"aws", "gcp", "azure", "lambda", "alibaba", "tencent", "vast", "colab", "dgx-cloud"};
  return names;
}

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

// Mean interruptions per node-second of a spot pool's process, for `every: optimal`
// (docs/checkpoints.md): Poisson λ; Weibull 1 / (scale Γ(1 + 1/k)); a trace's capacity
// drops per node-second of capacity over the trace; correlated events add rate x fraction.
// Price-driven pools have no rate (their interruptions follow the price, not chance).
double interruption_rate_per_s(const InterruptionSpec& spec) {
  double rate = 0;
  switch (spec.process) {
    case InterruptionProcess::Poisson: rate = spec.rate_per_s; break;
    case InterruptionProcess::Weibull:
      rate = 1.0 / (spec.weibull_scale.seconds() * std::tgamma(1.0 + 1.0 / spec.weibull_shape));
      break;
    case InterruptionProcess::Trace: {
      const auto& pts = spec.trace.points();
      double drops = 0;
      double node_s = 0;
      for (std::size_t i = 0; i < pts.size(); ++i) {
        if (i > 0 && pts[i].capacity < pts[i - 1].capacity) drops += pts[i - 1].capacity - pts[i].capacity;
        if (i + 1 < pts.size()) node_s += pts[i].capacity * (pts[i + 1].at - pts[i].at).seconds();
      }
      rate = node_s > 0 ? drops / node_s : 0;
      break;
    }
    default: break;
  }
  if (spec.correlated) rate += spec.correlated->rate_per_s * spec.correlated->fraction;
  return rate;
}

NodeTypeSpec read_node_type(const ConfigNode& n, const Catalogs& catalogs, const std::string& base_dir) {
  MapReader r(n, {"name", "instance", "provider", "gpu", "gpus", "cpu_cores", "memory", "count", "market", "price",
                  "ownership", "compare_to", "interruptions", "availability", "notice", "provisioning", "pcie",
                  "nvlink", "nics", "gpus_per_pcie_switch"});
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
  if (const ConfigNode* p = r.optional("provider")) t.provider = config::read_enum(*p, known_providers());
  const ConfigNode* gpu = r.optional("gpu");
  if (gpu) t.gpu = resolve_gpu(*gpu, catalogs.gpus);
  else if (instance) t.gpu = *catalogs.gpus.find(instance->gpu);
  else n.fail(ErrorCode::MissingKey, "a node type needs its gpu (e.g. A100-80GB-SXM) or a catalog instance");
  if (const ConfigNode* g = r.optional("gpus")) t.gpus = static_cast<int>(config::read_int(*g, 1, 64));
  else if (instance) t.gpus = instance->gpus;
  else r.required("gpus");
  if (const ConfigNode* c = r.optional("cpu_cores")) t.cpu_cores = static_cast<int>(config::read_int(*c, 1, 1 << 20));
  else if (instance) t.cpu_cores = instance->vcpus;
  if (const ConfigNode* m = r.optional("memory")) t.memory_bytes = config::read_bytes(*m);
  else if (instance) t.memory_bytes = instance->memory_bytes;
  t.count = static_cast<int>(config::read_int(r.required("count"), 1, 1 << 20));

  const ConfigNode* market_node = r.optional("market");
  const Market market = market_node ? parse_market(*market_node) : Market::OnDemand;
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
  t.price = parse_price(price ? *price : empty_block, market, instance ? instance->billing : billing, base_dir, t.gpus,
                        instance ? &defaults : nullptr);
  t.price.market = market;

  const ConfigNode* ownership = r.optional("ownership");
  const ConfigNode* compare = r.optional("compare_to");
  if (market == Market::Owned) {
    if (!ownership) n.fail(ErrorCode::MissingKey, "an owned node type needs ownership: {capex, depreciation, electricity, ...}");
    const double busy_w = default_node_power_w(t.gpu.tdp_w, t.gpus, t.cpu_cores, true);
    const double idle_w = default_node_power_w(t.gpu.tdp_w, t.gpus, t.cpu_cores, false);
    t.ownership = parse_ownership(*ownership, busy_w, idle_w);
    if (compare) {
      const InstanceSpec& alt = catalogs.instances.lookup(*compare);
      t.compare_to = alt.ref();
      t.compare_usd_per_gpu_hour = alt.on_demand_usd_per_gpu_hour();
    }
  } else {
    if (ownership) ownership->fail(ErrorCode::Conflict, "ownership applies to market: owned only");
    if (compare) compare->fail(ErrorCode::Conflict, "compare_to applies to market: owned only");
  }

  const ConfigNode* interruptions = r.optional("interruptions");
  const ConfigNode* availability = r.optional("availability");
  const ConfigNode* notice = r.optional("notice");
  const ConfigNode* provisioning = r.optional("provisioning");
  if (market == Market::Spot) {
    SpotPoolConfig spot;
    if (interruptions) spot.interruptions = parse_interruptions(*interruptions, base_dir, &catalogs.spot_advisor);
    if (availability) spot.availability = parse_availability(*availability, base_dir);
    spot.notice = notice ? config::read_duration(*notice)
                         : instance && instance->spot_notice > sim::SimTime::zero() ? instance->spot_notice
                                                                                     : default_notice(t.provider);
    if (provisioning) spot.provisioning = config::read_duration(*provisioning);
    if (spot.interruptions.price_driven() && !t.price.max_usd_per_hour)
      interruptions->fail(ErrorCode::MissingKey, "process: price needs the pool's price.max_per_hour (its bid)");
    t.interruption_rate_per_s = interruption_rate_per_s(spot.interruptions);
    t.spot = std::move(spot);
  } else {
    for (const ConfigNode* k : {interruptions, availability, notice, provisioning})
      if (k) k->fail(ErrorCode::Conflict, "interruptions, availability, notice and provisioning apply to market: spot only");
  }
  t.internals = topology::resolve_node_internals(topology::parse_node_internals(r), t.gpu);
  r.finish();
  return t;
}

Precision read_precision(const ConfigNode& n) {
  return parse_precision(config::read_enum(n, precision_names()));
}

bool feasible(const ClusterSpec& c, int gpus, std::optional<Precision> precision) {
  return eligible_node_types(c, gpus, precision ? &*precision : nullptr) != 0;
}

[[noreturn]] void fail_infeasible(const ConfigNode& at, const ClusterSpec& c, int gpus,
                                  std::optional<Precision> precision) {
  std::ostringstream msg;
  msg << "no node type can ever hold a job of " << gpus << " GPU" << (gpus == 1 ? "" : "s");
  if (precision) msg << " in " << precision_name(*precision);
  msg << " (a job takes GPUs on one node, or whole nodes of one type); the cluster has:";
  for (const auto& t : c.node_types) {
    msg << " " << t.count << " x " << t.name << " (" << t.gpus << " x " << t.gpu.name;
    if (precision && !t.gpu.supports(*precision)) msg << ", no " << precision_name(*precision);
    msg << ")";
  }
  at.fail(ErrorCode::Infeasible, msg.str());
}

const std::vector<std::string>& collective_names() {
  static const std::vector<std::string> names{"allreduce", "reduce_scatter", "allgather", "broadcast", "alltoall"};
  return names;
}

CommSpec read_comm(const ConfigNode& n) {
  MapReader r(n, {"collective", "algorithm", "bytes", "every", "simulated_steps"});
  CommSpec c;
  if (const ConfigNode* k = r.optional("collective")) c.collective = config::read_enum(*k, collective_names());
  if (const ConfigNode* a = r.optional("algorithm")) c.algorithm = config::read_enum(*a, {"ring", "tree"});
  c.bytes = config::read_bytes(r.required("bytes"));
  c.every = config::read_duration(r.required("every"), sim::SimTime::from_ns(1));
  if (const ConfigNode* s = r.optional("simulated_steps")) c.simulated_steps = config::read_int(*s, 1, 1'000'000);
  return c;
}

// checkpoint: {every: 1h | optimal, write_time: 3m, restore_time: 3m, pause: true}
//          or {every: ..., size: 40GiB | model, tier: shared-fs}: times from the tier's bandwidth.
// A size of `model` is marked -1 here and resolved once the job's model is known.
CheckpointSpec read_checkpoint(const ConfigNode& n, const Scenario& s) {
  MapReader r(n, {"every", "write_time", "restore_time", "size", "tier", "pause"});
  CheckpointSpec c;
  const ConfigNode& every = r.required("every");
  if (every.is_scalar() && every.scalar() == "optimal") c.optimal = true;
  else c.every = config::read_duration(every, sim::SimTime::from_ns(1));
  const ConfigNode* write = r.optional("write_time");
  const ConfigNode* restore = r.optional("restore_time");
  const ConfigNode* size = r.optional("size");
  const ConfigNode* tier = r.optional("tier");
  if (const ConfigNode* p = r.optional("pause")) c.pause = config::read_bool(*p);
  if (size || tier) {
    if (write) write->fail(ErrorCode::Conflict, "give write_time and restore_time, or size and tier, not both");
    if (restore) restore->fail(ErrorCode::Conflict, "give write_time and restore_time, or size and tier, not both");
    if (!size) n.fail(ErrorCode::MissingKey, "a checkpoint written to a tier needs its size (e.g. 40GiB, or model)");
    if (!tier) n.fail(ErrorCode::MissingKey, "a checkpoint of a given size needs the tier it is written to");
    c.tier = config::read_string(*tier);
    if (!s.storage || !s.storage->find(c.tier)) {
      const std::string hint = s.storage ? did_you_mean(c.tier, s.storage->names()) : "";
      tier->fail(ErrorCode::UnknownName, "checkpoint tier '" + c.tier + "' is not a tier of the scenario's storage section" +
                                             (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
    }
    if (size->is_scalar() && size->scalar() == "model") c.size_bytes = -1;
    else c.size_bytes = config::read_bytes(*size);
  } else {
    if (!write) n.fail(ErrorCode::MissingKey, "a checkpoint needs write_time (e.g. 3m), or size and tier");
    c.write_time = config::read_duration(*write);
    c.restore_time = restore ? config::read_duration(*restore) : c.write_time;
  }
  r.finish();
  if (c.size_bytes > 0) c = checkpoint_times_from_tier(c, *s.storage->find(c.tier));
  return c;
}

void read_job_lifecycle(MapReader& r, const Scenario& s, std::optional<CheckpointSpec>& checkpoint,
                        sim::SimTime& image_pull, std::string& team) {
  if (const ConfigNode* c = r.optional("checkpoint")) checkpoint = read_checkpoint(*c, s);
  if (const ConfigNode* p = r.optional("image_pull")) image_pull = config::read_duration(*p);
  if (const ConfigNode* t = r.optional("team")) team = read_name(*t);
}

// `size: model`: the full model state a restart needs (weights and optimizer state,
// unsharded: docs/spot.md), for jobs given by a model.
CheckpointSpec resolve_checkpoint_size(const ConfigNode& at, CheckpointSpec c, const Scenario& s,
                                       const TrainingSpec* training) {
  const ConfigNode* size = at.find("size");
  if (!training) size->fail(ErrorCode::Conflict, "size: model needs a job given by a model; give a size (e.g. 40GiB)");
  const StateBytes b = state_bytes_per_param(training->precision, training->optimizer);
  c.size_bytes = training->figures().params * (b.weights + b.optimizer);
  return checkpoint_times_from_tier(c, *s.storage->find(c.tier));
}

// budgets: [{team: vision, limit: $5000, period: 30d, action: stop_new, alert_at: 80%, check_every: 1h}]
BudgetSpec read_budget(const ConfigNode& n, const WorkloadSpec& w) {
  MapReader r(n, {"team", "limit", "period", "action", "alert_at", "check_every"});
  BudgetSpec b;
  b.mark = n.mark();
  b.path = n.path();
  const ConfigNode& team = r.required("team");
  b.team = read_name(team);
  if (w.team_index(b.team) < 0) {
    const std::string hint = did_you_mean(b.team, w.teams);
    team.fail(ErrorCode::UnknownName, "no job names team '" + b.team + "'" +
                                          (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
  }
  b.limit_usd = config::read_usd(r.required("limit"));
  if (!(b.limit_usd > 0)) n.find("limit")->fail(ErrorCode::OutOfRange, "a budget's limit must be more than $0");
  if (const ConfigNode* p = r.optional("period")) b.period = config::read_duration(*p, sim::SimTime::from_ns(1));
  if (const ConfigNode* a = r.optional("action")) {
    const std::string action = config::read_enum(*a, {"alert", "stop_new", "stop_running"});
    b.action = action == "alert" ? BudgetAction::Alert : action == "stop_new" ? BudgetAction::StopNew : BudgetAction::StopRunning;
  }
  if (const ConfigNode* f = r.optional("alert_at")) {
    b.alert_fraction = config::read_fraction(*f);
    if (!(b.alert_fraction > 0 && b.alert_fraction <= 1)) f->fail(ErrorCode::OutOfRange, "alert_at is a share of the limit, in (0, 100%]");
  }
  if (const ConfigNode* c = r.optional("check_every")) b.check_every = config::read_duration(*c, sim::seconds(1));
  r.finish();
  return b;
}

// Why no node type can hold a model-described job: the memory fit on the largest GPU that
// supports its precision says what it needs and what would fit.
std::string memory_hint(const ClusterSpec& c, const TrainingSpec& t) {
  const GpuSpec* best = nullptr;
  for (const auto& nt : c.node_types)
    if (nt.gpu.supports(t.precision) && (!best || nt.gpu.memory_bytes > best->memory_bytes)) best = &nt.gpu;
  if (!best) return "";
  const MemoryFit fit = check_memory_fit(t, *best);
  return fit.fits ? "" : " On " + best->name + ": " + fit.message;
}

JobSpec read_job(const ConfigNode& n, std::size_t index, const Scenario& s, const Catalogs& catalogs) {
  MapReader r(n, {"name", "submit", "gpus", "duration", "work", "precision", "efficiency", "comm", "model", "seq_len",
                  "batch_per_gpu", "grad_accum", "samples", "epochs", "tokens", "dataset", "parallelism", "optimizer",
                  "decode", "checkpoint", "image_pull", "team"});
  const ClusterSpec& cluster = s.cluster;
  JobSpec j;
  j.mark = n.mark();
  j.path = n.path();
  if (const ConfigNode* name = r.optional("name")) {
    j.name = read_name(*name);
  } else {
    j.name = "job-" + std::to_string(index);
  }
  if (const ConfigNode* s = r.optional("submit")) j.submit = config::read_duration(*s);
  const ConfigNode& gpus = r.required("gpus");
  j.gpus = static_cast<int>(config::read_int(gpus, 1, 1 << 20));
  read_job_lifecycle(r, s, j.checkpoint, j.image_pull, j.team);
  const ConfigNode* duration = r.optional("duration");
  const ConfigNode* work = r.optional("work");
  const ConfigNode* model = r.optional("model");
  const ConfigNode* efficiency = r.optional("efficiency");
  const ConfigNode* comm = r.optional("comm");
  if (model) {
    if (duration) duration->fail(ErrorCode::Conflict, "a job given by its model runs at the modelled speed: drop duration");
    if (work) work->fail(ErrorCode::Conflict, "a job given by its model gives samples, epochs or tokens, not work");
    if (efficiency) efficiency->fail(ErrorCode::Conflict, "the step-time model derives efficiency from the hardware");
    if (comm) comm->fail(ErrorCode::Conflict, "a job given by its model derives its communication from the model");
    j.training = parse_training(r, catalogs.models, j.gpus);
    j.precision = j.training->precision;
    if (j.checkpoint && j.checkpoint->size_bytes < 0) j.checkpoint = resolve_checkpoint_size(*n.find("checkpoint"), *j.checkpoint, s, &*j.training);
    if (j.training->dataset && !j.training->dataset->tier.empty()) {
      const ConfigNode* ds = n.find("dataset");
      const std::string& tier = j.training->dataset->tier;
      if (!s.storage || !s.storage->find(tier)) {
        const std::string hint = s.storage ? did_you_mean(tier, s.storage->names()) : "";
        ds->fail(ErrorCode::UnknownName, "dataset tier '" + tier + "' is not a tier of the scenario's storage section" +
                                             (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
      }
      // Staging copies the dataset to the nodes' local NVMe: the scenario needs one.
      const auto& tiers = s.storage->tiers;
      if (j.training->dataset->access == DataAccess::Stage &&
          std::none_of(tiers.begin(), tiers.end(), [](const StorageTierSpec& t) { return t.kind == TierKind::LocalNvme; })) {
        const ConfigNode* access = ds->find("access");
        (access ? access : ds)->fail(ErrorCode::MissingKey, "access: stage copies the dataset to local NVMe: the storage "
                                                            "section needs a tier of kind local-nvme");
      }
    }
    r.finish();
    if (eligible_node_types(cluster, j.gpus, &j.precision, &*j.training) == 0) {
      const std::string why = memory_hint(cluster, *j.training);
      if (!why.empty()) n.fail(ErrorCode::Infeasible, "the job does not fit in GPU memory on any node type." + why);
      fail_infeasible(gpus, cluster, j.gpus, j.precision);
    }
    return j;
  }
  for (const char* key : {"seq_len", "batch_per_gpu", "grad_accum", "samples", "epochs", "tokens", "dataset",
                          "parallelism", "optimizer", "decode"})
    if (const ConfigNode* k = r.optional(key)) k->fail(ErrorCode::Conflict, std::string(key) + " applies only to jobs given by a model");
  const ConfigNode* precision = r.optional("precision");
  if (duration && work) work->fail(ErrorCode::Conflict, "give either duration or work, not both");
  if (!duration && !work)
    n.fail(ErrorCode::MissingKey, "a job needs a duration (e.g. 6h), work (FLOP, e.g. 2.1e18) or a model");
  std::optional<Precision> needs;
  if (duration) {
    j.duration = config::read_duration(*duration, sim::SimTime::from_ns(1));
    if (precision) precision->fail(ErrorCode::Conflict, "precision applies only to jobs given as work or by a model");
    if (efficiency) efficiency->fail(ErrorCode::Conflict, "efficiency applies only to jobs given as work");
    if (comm) {
      if (!s.network) comm->fail(ErrorCode::Conflict, "comm needs a network: section to send its traffic over");
      j.comm = read_comm(*comm);
    }
  } else {
    if (comm) comm->fail(ErrorCode::Conflict, "comm applies only to jobs given as a duration");
    j.work_flop = config::read_double(*work, 0, INF);
    if (!(*j.work_flop > 0)) work->fail(ErrorCode::OutOfRange, "work must be > 0 FLOP");
    if (!precision) n.fail(ErrorCode::MissingKey, "a job given as work needs a precision (fp32, tf32, amp, bf16, fp8)");
    j.precision = read_precision(*precision);
    needs = j.precision;
    if (efficiency) j.efficiency = read_value(*efficiency, ValueKind::Fraction);
  }
  if (j.checkpoint && j.checkpoint->size_bytes < 0) j.checkpoint = resolve_checkpoint_size(*n.find("checkpoint"), *j.checkpoint, s, nullptr);
  if (j.checkpoint && j.comm) n.find("checkpoint")->fail(ErrorCode::Conflict, "jobs with comm: are not checkpointed (their steps are driven by the network)");
  r.finish();
  if (!feasible(cluster, j.gpus, needs)) fail_infeasible(gpus, cluster, j.gpus, needs);
  return j;
}

GeneratorSpec read_generator(const ConfigNode& n, const Scenario& s) {
  const ClusterSpec& cluster = s.cluster;
  MapReader r(n, {"name", "count", "start", "arrival", "gpus", "duration", "work", "precision", "efficiency",
                  "checkpoint", "image_pull", "team"});
  GeneratorSpec g;
  g.mark = n.mark();
  g.path = n.path();
  read_job_lifecycle(r, s, g.checkpoint, g.image_pull, g.team);
  if (g.checkpoint && g.checkpoint->size_bytes < 0) g.checkpoint = resolve_checkpoint_size(*n.find("checkpoint"), *g.checkpoint, s, nullptr);
  g.name = read_name(r.required("name"));
  g.count = config::read_int(r.required("count"), 1, 100'000'000);
  if (const ConfigNode* s = r.optional("start")) g.start = config::read_duration(*s);
  g.arrival = read_distribution(r.required("arrival"), ValueKind::Duration);
  const ConfigNode& gpus = r.required("gpus");
  g.gpus = read_distribution(gpus, ValueKind::Integer);
  g.gpus.min = std::max(g.gpus.min, 1.0);
  const ConfigNode* duration = r.optional("duration");
  const ConfigNode* work = r.optional("work");
  const ConfigNode* precision = r.optional("precision");
  const ConfigNode* efficiency = r.optional("efficiency");
  if (duration && work) work->fail(ErrorCode::Conflict, "give either duration or work, not both");
  if (!duration && !work) n.fail(ErrorCode::MissingKey, "a generator needs either duration or work");
  std::optional<Precision> needs;
  if (duration) {
    g.duration = read_distribution(*duration, ValueKind::Duration);
    g.duration->min = std::max(g.duration->min, 1e-9);
    if (precision) precision->fail(ErrorCode::Conflict, "precision applies only to jobs given as work");
    if (efficiency) efficiency->fail(ErrorCode::Conflict, "efficiency applies only to jobs given as work");
  } else {
    g.work = read_distribution(*work, ValueKind::Count);
    g.work->min = std::max(g.work->min, 1.0);
    if (!precision) n.fail(ErrorCode::MissingKey, "a generator given as work needs a precision (fp32, tf32, amp, bf16, fp8)");
    g.precision = read_precision(*precision);
    needs = g.precision;
    if (efficiency) {
      g.efficiency = read_distribution(*efficiency, ValueKind::Fraction);
      g.efficiency.min = std::max(g.efficiency.min, 1e-6);
      g.efficiency.max = std::min(g.efficiency.max, 1.0);
    }
  }
  r.finish();
  // Every value the gpus distribution can produce must be placeable.
  const double hi = g.gpus.highest();
  if (!std::isfinite(hi))
    gpus.fail(ErrorCode::Infeasible, "the gpus distribution is unbounded: add max (the largest job the cluster can hold)");
  if (g.gpus.kind == Distribution::Kind::Choice) {
    for (double v : g.gpus.values)
      if (!feasible(cluster, static_cast<int>(v), needs)) fail_infeasible(gpus, cluster, static_cast<int>(v), needs);
  } else if (!feasible(cluster, static_cast<int>(std::llround(hi)), needs)) {
    fail_infeasible(gpus, cluster, static_cast<int>(std::llround(hi)), needs);
  }
  return g;
}

std::string format_double(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The GPU entries a scenario uses, in the catalog's own format, for the trace's provenance.
std::string gpu_catalog_yaml(const ClusterSpec& c) {
  std::ostringstream out;
  out << "gpus:\n";
  std::set<std::string> seen;
  for (const auto& t : c.node_types) {
    const GpuSpec& g = t.gpu;
    if (!seen.insert(g.name).second) continue;
    out << "  - name: " << quote(g.name) << "\n";
    out << "    arch: " << quote(g.arch) << "\n";
    out << "    form_factor: " << quote(g.form_factor) << "\n";
    out << "    fp32: " << format_double(g.fp32_flop_per_s) << "\n";
    out << "    tf32: " << format_double(g.tf32_flop_per_s) << "\n";
    out << "    fp16: " << format_double(g.fp16_flop_per_s) << "\n";
    out << "    bf16: " << format_double(g.bf16_flop_per_s) << "\n";
    out << "    fp8: " << format_double(g.fp8_flop_per_s) << "\n";
    out << "    memory: " << format_double(g.memory_bytes) << "B\n";
    out << "    memory_bandwidth: " << format_double(g.memory_bytes_per_s) << "B/s\n";
    if (g.nvlink_bytes_per_s > 0) out << "    nvlink: " << format_double(g.nvlink_bytes_per_s) << "B/s\n";
    if (g.pcie_gen > 0) out << "    pcie: gen" << g.pcie_gen << "\n";
    out << "    tdp: " << format_double(g.tdp_w) << "W\n";
    out << "    sources: " << quote(g.sources) << "\n";
  }
  return out.str();
}

}  // namespace

int WorkloadSpec::team_index(std::string_view team) const {
  const auto it = std::lower_bound(teams.begin(), teams.end(), team);
  return it != teams.end() && *it == team ? static_cast<int>(it - teams.begin()) : -1;
}

Catalogs load_bundled_catalogs(const LoadOptions& options) {
  Catalogs c{load_bundled_gpu_catalog(options), load_bundled_model_catalog(options.catalog_dir), {}, {}};
  c.instances = load_instance_catalog_dir(bundled_instance_dir(options.catalog_dir), &c.gpus);
  c.spot_advisor = load_bundled_spot_advisor(options.catalog_dir);
  return c;
}

GpuCatalog load_bundled_gpu_catalog(const LoadOptions& options) {
  GpuCatalog catalog;
  catalog.add_from(config::load_yaml_file((std::filesystem::path(options.catalog_dir) / "gpus.yaml").string()).root);
  return catalog;
}

Scenario load_scenario_file(const std::string& path, const LoadOptions& options) {
  config::ConfigDocument doc = config::load_yaml_file(path);
  return load_scenario(std::move(doc), load_bundled_catalogs(options), options.schedulers);
}

Scenario load_scenario(config::ConfigDocument document, const Catalogs& bundled, const SchedulerRegistry& schedulers) {
  const ConfigNode& root = document.root;
  if (!root.is_map()) root.fail(ErrorCode::WrongType, "a scenario is a map of keys (name, horizon, cluster, workload...)");
  MapReader r(root, {"name", "seed", "horizon", "run_until", "catalogs", "cluster", "network", "storage", "scheduler",
                     "workload", "budgets", "output"});
  Scenario s;
  s.source_file = document.file;
  s.name = read_name(r.required("name"));
  if (const ConfigNode* seed = r.optional("seed"))
    s.seed = static_cast<std::uint64_t>(config::read_int(*seed, 0, std::numeric_limits<std::int64_t>::max()));
  s.horizon = config::read_duration(r.required("horizon"), sim::SimTime::from_ns(1));
  if (const ConfigNode* until = r.optional("run_until"))
    s.run_until = config::read_enum(*until, {"done", "horizon"}) == "done" ? RunUntil::Done : RunUntil::Horizon;

  const Catalogs catalogs = read_catalogs(r.optional("catalogs"), bundled, document.file);
  const std::string base_dir = std::filesystem::path(document.file).parent_path().string();

  {
    MapReader c(r.required("cluster"), {"node_types"});
    const ConfigNode& types = c.required("node_types");
    if (!types.is_sequence() || types.size() == 0)
      types.fail(ErrorCode::WrongType, "node_types must be a non-empty list of node types");
    if (types.size() > 64) types.fail(ErrorCode::OutOfRange, "at most 64 node types");
    std::set<std::string> names;
    for (const auto& t : types.items()) {
      s.cluster.node_types.push_back(read_node_type(t, catalogs, base_dir));
      if (!names.insert(s.cluster.node_types.back().name).second)
        t.find("name")->fail(ErrorCode::Duplicate, "node type '" + s.cluster.node_types.back().name + "' is defined twice");
    }
    c.finish();
  }

  if (const ConfigNode* net = r.optional("network")) s.network = topology::parse_network_spec(*net);
  if (const ConfigNode* storage = r.optional("storage")) s.storage = parse_storage(*storage);

  s.scheduler = read_scheduler(r.optional("scheduler"), schedulers);

  {
    MapReader w(r.required("workload"), {"jobs", "generators"});
    std::set<std::string> names;
    if (const ConfigNode* jobs_given = w.optional("jobs")) {
      const ConfigNode jobs_table = config::read_table(*jobs_given);  // inline, or {file: jobs.csv}
      const ConfigNode* jobs = &jobs_table;
      if (!jobs->is_sequence()) jobs->fail(ErrorCode::WrongType, "jobs must be a list");
      for (std::size_t i = 0; i < jobs->size(); ++i) {
        s.workload.jobs.push_back(read_job(jobs->at(i), i, s, catalogs));
        if (!names.insert(s.workload.jobs.back().name).second)
          jobs->at(i).fail(ErrorCode::Duplicate, "job name '" + s.workload.jobs.back().name + "' is used twice");
      }
    }
    if (const ConfigNode* gens = w.optional("generators")) {
      if (!gens->is_sequence()) gens->fail(ErrorCode::WrongType, "generators must be a list");
      std::set<std::string> gnames;
      for (const auto& g : gens->items()) {
        s.workload.generators.push_back(read_generator(g, s));
        if (!gnames.insert(s.workload.generators.back().name).second)
          g.find("name")->fail(ErrorCode::Duplicate, "generator '" + s.workload.generators.back().name + "' is defined twice");
      }
    }
    if (s.workload.jobs.empty() && s.workload.generators.empty())
      w.node().fail(ErrorCode::MissingKey, "the workload has no jobs: add jobs or generators");
    w.finish();
    std::set<std::string> teams;
    for (const auto& j : s.workload.jobs)
      if (!j.team.empty()) teams.insert(j.team);
    for (const auto& g : s.workload.generators)
      if (!g.team.empty()) teams.insert(g.team);
    s.workload.teams.assign(teams.begin(), teams.end());
    if (s.workload.teams.size() > 32000) w.node().fail(ErrorCode::OutOfRange, "at most 32000 teams");
  }

  if (const ConfigNode* budgets = r.optional("budgets")) {
    if (!budgets->is_sequence()) budgets->fail(ErrorCode::WrongType, "budgets must be a list");
    std::set<std::string> seen;
    for (const auto& b : budgets->items()) {
      s.budgets.push_back(read_budget(b, s.workload));
      if (!seen.insert(s.budgets.back().team).second)
        b.find("team")->fail(ErrorCode::Duplicate, "team '" + s.budgets.back().team + "' has two budgets");
    }
  }

  s.output.trace = s.name + ".h5";
  if (const ConfigNode* out = r.optional("output")) {
    MapReader o(*out, {"trace", "flows"});
    if (const ConfigNode* trace = o.optional("trace")) s.output.trace = read_name(*trace);
    if (const ConfigNode* flows = o.optional("flows")) {
      s.output.flows = config::read_bool(*flows);
      if (s.output.flows && !s.network) flows->fail(ErrorCode::Conflict, "flows: true needs a network: section");
    }
    o.finish();
  }
  r.finish();

  s.gpu_catalog_yaml = gpu_catalog_yaml(s.cluster);
  s.source_text = std::move(document.text);
  return s;
}

}  // namespace gcsim::models
