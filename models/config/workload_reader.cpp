// The `workload:` section reader (see workload_reader.hpp).
#include "models/config/workload_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <set>
#include <unordered_map>
#include <utility>
#include <string_view>

#include "models/config/distribution_reader.hpp"
#include "models/config/plain_jobs.hpp"
#include "models/config/reader_common.hpp"
#include "models/config/service_reader.hpp"
#include "models/importers/trace_import.hpp"
#include "sim/allocator.hpp"
#include "sim/config/csv_table.hpp"
#include "sim/config/names.hpp"
#include "sim/config/reader.hpp"
#include "sim/units.hpp"

namespace gcsim::models {

using config::ConfigNode;
using config::MapReader;

namespace {

using detail::TeamNames;

// The jobs' names seen so far, to find a name used twice: an open-addressing table of
// job indices, each slot tagged with the high half of its name's hash so that a probe
// reads a job's name only when the tags agree (a std::unordered_set allocated a node per
// job and was a fifth of loading a large CSV table). At most half full; grows by doubling.
class JobNameSet {
 public:
  explicit JobNameSet(const std::vector<JobSpec>& jobs) : jobs_(jobs) {}
  void reserve(std::size_t names) {
    std::size_t want = 16;
    while (want < 2 * names) want *= 2;
    if (want > slots_.size()) rehash(want);
  }
  // Adds jobs_[job]'s name; false if an earlier job has it.
  bool insert(std::uint32_t job) { return insert(job, hash(job)); }
  // The same in two steps, so that the slot's cache line is fetched while the caller works
  // on: hash and prefetch (a slot is a random place in a table of megabytes), insert later.
  std::uint64_t hash(std::uint32_t job) const { return std::hash<std::string_view>{}(jobs_[job].name); }
  void prefetch(std::uint64_t h) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[static_cast<std::size_t>(h) & (slots_.size() - 1)], 1);
  }
  // The slot of a job about to be read with this name: fetched while the rest of its row is read.
  void prefetch_name(std::string_view name) const { prefetch(std::hash<std::string_view>{}(name)); }
  bool insert(std::uint32_t job, std::uint64_t h) {
    if (2 * (size_ + 1) > slots_.size()) rehash(std::max<std::size_t>(16, 2 * slots_.size()));
    const std::string& name = jobs_[job].name;
    const std::uint64_t tag = h & ~std::uint64_t{0xffffffffu};
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t at = static_cast<std::size_t>(h) & mask;; at = (at + 1) & mask) {
      const std::uint64_t held = slots_[at];
      if (held == EMPTY) {
        slots_[at] = tag | job;
        ++size_;
        return true;
      }
      if ((held & ~std::uint64_t{0xffffffffu}) == tag && jobs_[held & 0xffffffffu].name == name) return false;
    }
  }

 private:
  // Job ids stay below 0xffffffff (MAX_TOTAL_JOBS), so no slot of a job is all ones.
  static constexpr std::uint64_t EMPTY = ~std::uint64_t{0};
  void rehash(std::size_t slots) {
    std::vector<std::uint64_t> old = std::move(slots_);
    slots_.assign(slots, EMPTY);
    for (const std::uint64_t held : old) {
      if (held == EMPTY) continue;
      const std::uint64_t h = std::hash<std::string_view>{}(jobs_[held & 0xffffffffu].name);
      std::size_t at = static_cast<std::size_t>(h) & (slots - 1);
      while (slots_[at] != EMPTY) at = (at + 1) & (slots - 1);
      slots_[at] = held;
    }
  }
  const std::vector<JobSpec>& jobs_;
  std::vector<std::uint64_t> slots_;
  std::size_t size_ = 0;
};

const std::vector<std::string>& collective_names() {
  static const std::vector<std::string> names{"allreduce", "reduce_scatter", "allgather", "broadcast", "alltoall"};
  return names;
}

CommSpec read_comm(const ConfigNode& n) {
  MapReader r(n, COMM_KEYS);
  CommSpec c;
  if (const ConfigNode* k = r.optional("collective")) c.collective = config::read_enum(*k, collective_names());
  if (const ConfigNode* a = r.optional("algorithm")) c.algorithm = config::read_enum(*a, {"ring", "tree"});
  c.bytes = r.value<double>("bytes");
  c.every = r.value<sim::SimTime>("every");
  c.simulated_steps = r.value<std::int64_t>("simulated_steps");
  return c;
}

// checkpoint: {every: 1h | optimal, write_time: 3m, restore_time: 3m, pause: true}
//          or {every: ..., size: 40GiB | model, tier: shared-fs}.
// A tier's write and restore times, and a size of `model` (marked -1 here), are the resolve
// step's: they need the storage section and the job's model.
CheckpointSpec read_checkpoint(const ConfigNode& n) {
  MapReader r(n, CHECKPOINT_KEYS);
  CheckpointSpec c;
  const ConfigNode& every = r.required("every");
  if (every.is_scalar() && every.scalar() == "optimal") c.optimal = true;
  else c.every = config::read_duration(every, sim::seconds(1));  // as the optimal interval's floor
  const ConfigNode* write = r.where("write_time");
  const ConfigNode* restore = r.where("restore_time");
  const ConfigNode* size = r.optional("size");
  const ConfigNode* tier = r.optional("tier");
  c.pause = r.value<bool>("pause");
  if (size || tier) {
    if (write) write->fail(ErrorCode::Conflict, "give write_time and restore_time, or size and tier, not both");
    if (restore) restore->fail(ErrorCode::Conflict, "give write_time and restore_time, or size and tier, not both");
    if (!size) n.fail(ErrorCode::MissingKey, "a checkpoint written to a tier needs its size (e.g. 40GiB, or model)");
    if (!tier) n.fail(ErrorCode::MissingKey, "a checkpoint of a given size needs the tier it is written to");
    c.tier = config::read_string(*tier);
    if (size->is_scalar() && size->scalar() == "model") c.size_bytes = -1;
    else c.size_bytes = config::read_bytes(*size);
  } else {
    if (!write) n.fail(ErrorCode::MissingKey, "a checkpoint needs write_time (e.g. 3m), or size and tier");
    c.write_time = r.need<sim::SimTime>("write_time");
    c.restore_time = r.get<sim::SimTime>("restore_time").value_or(c.write_time);
  }
  return c;
}

// estimate: 30m | {error: lognormal, sigma: 0.5}; a generator takes the error form only.
EstimateSpec read_estimate(const ConfigNode& n, bool may_give) {
  EstimateSpec e;
  if (n.is_scalar()) {
    if (!may_give)
      n.fail(ErrorCode::WrongType, "a generator's jobs differ in length: give {error: lognormal, sigma: S}");
    e.given = config::read_duration(n, sim::SimTime::from_ns(1));
    return e;
  }
  MapReader r(n, ESTIMATE_KEYS);
  config::read_enum(r.required("error"), {"lognormal"});
  e.sigma = r.value<double>("sigma");
  return e;
}

// `team`: null when the caller reads the key itself (a generator's may be a choice).
void read_job_lifecycle(MapReader& r, std::optional<CheckpointSpec>& checkpoint, sim::SimTime& image_pull,
                        std::string* team, int& priority, std::optional<sim::SimTime>& deadline,
                        std::vector<std::string>& gpu_types) {
  if (const ConfigNode* c = r.optional("checkpoint")) checkpoint = read_checkpoint(*c);
  image_pull = r.value<sim::SimTime>("image_pull");
  if (team)
    if (const ConfigNode* t = r.optional("team")) *team = read_name(*t);
  priority = static_cast<int>(r.value<std::int64_t>("priority"));
  if (const auto d = r.get<sim::SimTime>("deadline")) deadline = *d;
  // `gpu`: one name or a list (names are checked against the GPU catalog in the resolve step).
  if (const ConfigNode* g = r.optional("gpu")) {
    if (g->is_sequence()) {
      if (g->size() == 0) g->fail(ErrorCode::OutOfRange, "gpu: name at least one GPU (or leave the key out: any)");
      for (const ConfigNode& item : g->items()) gpu_types.push_back(config::read_string(item));
    } else {
      gpu_types.push_back(config::read_string(*g));
    }
  }
}

// `size: model` takes the job's model; the size itself is computed in the resolve step.
void refuse_model_size_without_model(const ConfigNode& job, const std::optional<CheckpointSpec>& c) {
  if (c && c->size_bytes < 0)
    job.find("checkpoint")->find("size")->fail(ErrorCode::Conflict,
                                               "size: model needs a job given by a model; give a size (e.g. 40GiB)");
}

// `teams`: the team names seen so far, in order; the job's team is its index there (made
// the sorted index once every job is read).
JobSpec read_job(const ConfigNode& n, std::size_t index, const ModelCatalog& models, TeamNames& teams) {
  MapReader r(n, JOB_KEYS);
  JobSpec j;
  if (const ConfigNode* name = r.optional("name")) {
    j.name = read_name(*name);
  } else {
    j.name = "job-" + std::to_string(index);
  }
  j.submit = r.value<sim::SimTime>("submit");
  j.gpus = static_cast<int>(r.value<std::int64_t>("gpus"));
  const ConfigNode* milli = r.where("gpu_milli");
  j.gpu_milli = static_cast<std::int16_t>(r.value<std::int64_t>("gpu_milli"));
  if (milli) {
    if (j.gpu_milli < 1000 && j.gpus != 1)
      milli->fail(ErrorCode::Conflict, "a share of a GPU (gpu_milli below 1000) is for one-GPU jobs; this one asks for " +
                                           std::to_string(j.gpus) + " GPUs");
  }
  {
    std::optional<CheckpointSpec> checkpoint;
    std::string team;
    int priority = 0;
    read_job_lifecycle(r, checkpoint, j.image_pull, &team, priority, j.deadline, j.gpu_types);
    if (checkpoint) j.checkpoint = std::move(*checkpoint);
    j.priority = static_cast<std::int16_t>(priority);
    j.team = teams.add(team);
  }
  if (const ConfigNode* e = r.optional("estimate")) j.estimate = read_estimate(*e, true);
  const ConfigNode* duration = r.where("duration");
  const ConfigNode* work = r.where("work");
  const ConfigNode* model = r.optional("model");
  const ConfigNode* efficiency = r.where("efficiency");
  const ConfigNode* comm = r.optional("comm");
  if (model) {
    if (duration) duration->fail(ErrorCode::Conflict, "a job given by its model runs at the modelled speed: drop duration");
    if (work) work->fail(ErrorCode::Conflict, "a job given by its model gives samples, epochs or tokens, not work");
    if (efficiency) efficiency->fail(ErrorCode::Conflict, "the step-time model derives efficiency from the hardware");
    if (comm) comm->fail(ErrorCode::Conflict, "a job given by its model derives its communication from the model");
    if (milli && j.gpu_milli < 1000)
      milli->fail(ErrorCode::Conflict, "the step-time model runs jobs on whole GPUs: a share of a GPU (gpu_milli below "
                                       "1000) is for jobs given by a duration or work");
    j.training = parse_training(r, models, j.gpus);
    j.precision = j.training->precision;
    return j;
  }
  static constexpr std::string_view MODEL_ONLY[] = {"seq_len", "batch_per_gpu", "grad_accum", "samples", "epochs",
                                                    "tokens",  "dataset",       "parallelism", "optimizer", "decode"};
  for (const std::string_view key : MODEL_ONLY)
    if (const ConfigNode* k = r.where(key)) k->fail(ErrorCode::Conflict, std::string(key) + " applies only to jobs given by a model");
  const ConfigNode* precision = r.optional("precision");
  if (duration && work) work->fail(ErrorCode::Conflict, "give either duration or work, not both");
  if (!duration && !work)
    n.fail(ErrorCode::MissingKey, "a job needs a duration (e.g. 6h), work (FLOP, e.g. 2.1e18) or a model");
  if (duration) {
    j.duration = r.get<sim::SimTime>("duration");
    if (precision) precision->fail(ErrorCode::Conflict, "precision applies only to jobs given as work or by a model");
    if (efficiency) efficiency->fail(ErrorCode::Conflict, "efficiency applies only to jobs given as work");
    if (comm) j.comm = read_comm(*comm);
  } else {
    if (comm) comm->fail(ErrorCode::Conflict, "comm applies only to jobs given as a duration");
    j.work_flop = r.get<double>("work");
    if (!precision) n.fail(ErrorCode::MissingKey, "a job given as work needs a precision (fp32, tf32, amp, bf16, fp8)");
    j.precision = read_precision(*precision);
    j.efficiency = r.value<double>("efficiency");
  }
  if (j.checkpoint && j.checkpoint->size_bytes < 0) refuse_model_size_without_model(n, CheckpointSpec(*j.checkpoint));
  if (j.checkpoint && j.comm) n.find("checkpoint")->fail(ErrorCode::Conflict, "jobs with comm: are not checkpointed (their steps are driven by the network)");
  return j;
}

// rate: {per_hour: [168 or 24 numbers], scale: S}, jobs per hour (times S).
WeekRate read_week_rate(const ConfigNode& n) {
  MapReader r(n, RATE_KEYS);
  const ConfigNode& hours = r.required("per_hour");
  if (!hours.is_sequence() || (hours.size() != 168 && hours.size() != 24))
    hours.fail(ErrorCode::WrongType, "per_hour needs 168 numbers (one per hour of the week, Monday 00:00 first) or 24 "
                                     "(one per hour of the day)" +
                                         (hours.is_sequence() ? ", got " + std::to_string(hours.size()) : std::string()));
  const double scale = r.value<double>("scale");
  std::vector<double> values;
  values.reserve(hours.size());
  double sum = 0;
  for (const auto& v : hours.items()) {
    values.push_back(config::read_double(v, 0, 1e12) * scale);
    sum += values.back();
  }
  if (!(sum > 0)) hours.fail(ErrorCode::OutOfRange, "per_hour: the rates must not all be 0");
  return WeekRate::from_hours(values.data(), values.size());
}

// team: {choice: [a, b], weights: [3, 1]}.
void read_team_choice(const ConfigNode& n, GeneratorSpec& g) {
  MapReader r(n, TEAM_CHOICE_KEYS);
  const ConfigNode& names = r.required("choice");
  if (!names.is_sequence() || names.size() == 0) names.fail(ErrorCode::WrongType, "choice needs a non-empty list of team names");
  std::set<std::string> seen;  // a fitted trace's generator may name thousands of users
  for (const auto& v : names.items()) {
    g.team_choice.push_back(read_name(v));
    if (!seen.insert(g.team_choice.back()).second)
      v.fail(ErrorCode::Duplicate, "team '" + g.team_choice.back() + "' is named twice");
  }
  if (const ConfigNode* w = r.optional("weights")) {
    if (!w->is_sequence()) w->fail(ErrorCode::WrongType, "weights must be a list of numbers");
    if (w->size() != names.size())
      w->fail(ErrorCode::Conflict, "weights has " + std::to_string(w->size()) + " entries but choice has " +
                                       std::to_string(names.size()));
    double sum = 0;
    for (const auto& x : w->items()) {
      g.team_weights.push_back(config::read_double(x, 0, std::numeric_limits<double>::infinity()));
      sum += g.team_weights.back();
    }
    if (!(sum > 0)) w->fail(ErrorCode::OutOfRange, "weights must not all be zero");
  } else {
    g.team_weights.assign(g.team_choice.size(), 1.0);
  }
}

GeneratorSpec read_generator(const ConfigNode& n) {
  MapReader r(n, GENERATOR_KEYS);
  GeneratorSpec g;
  g.mark = n.mark();
  g.path = n.path();
  read_job_lifecycle(r, g.checkpoint, g.image_pull, nullptr, g.priority, g.deadline, g.gpu_types);
  if (const ConfigNode* t = r.optional("team")) {
    if (t->is_map()) read_team_choice(*t, g);
    else g.team = read_name(*t);
  }
  if (const ConfigNode* e = r.optional("estimate")) g.estimate = read_estimate(*e, false);
  refuse_model_size_without_model(n, g.checkpoint);
  g.name = read_name(r.required("name"));
  g.count = r.value<std::int64_t>("count");
  g.start = r.value<sim::SimTime>("start");
  if (const auto end = r.get<sim::SimTime>("end")) {
    if (*end <= g.start) r.where("end")->fail(ErrorCode::OutOfRange, "end must be after start");
    g.end = *end;
  }
  const ConfigNode* rate = r.optional("rate");
  const ConfigNode* arrival = r.optional("arrival");
  const ConfigNode* active = r.optional("active");
  if (rate && arrival)
    rate->fail(ErrorCode::Conflict, "give either arrival (the time between arrivals) or rate (jobs per hour), not both");
  if (rate && active)
    active->fail(ErrorCode::Conflict, "a rate by hour of the week says when jobs arrive: give the hours without jobs a "
                                      "rate of 0 instead of active");
  if (!rate && !arrival)
    n.fail(ErrorCode::MissingKey, "a generator needs arrival (the time between arrivals, e.g. {dist: exponential, "
                                  "mean: 10m}) or rate ({per_hour: [...]})");
  if (rate) {
    g.rate = read_week_rate(*rate);
  } else {
    g.arrival = read_distribution(*arrival, ValueKind::Duration);
  }
  if (active) {
    MapReader hours(*active, ACTIVE_KEYS);
    g.active = read_week_calendar(hours);
  }
  const ConfigNode& gpus = r.required("gpus");
  g.gpus = read_distribution(gpus, ValueKind::Integer);
  g.gpus.min = std::max(g.gpus.min, 1.0);
  if (const ConfigNode* milli = r.optional("gpu_milli")) {
    g.gpu_milli = read_distribution(*milli, ValueKind::Integer);
    // A constant, uniform or choice with values out of range is an error; the other shapes
    // are truncated to 1..1000 (redrawn, as every bounded distribution).
    const Distribution::Kind k = g.gpu_milli->kind;
    const bool bounded = k == Distribution::Kind::Constant || k == Distribution::Kind::Uniform ||
                         k == Distribution::Kind::Choice || k == Distribution::Kind::Empirical;
    if (bounded && (g.gpu_milli->lowest() < 1 || g.gpu_milli->highest() > 1000))
      milli->fail(ErrorCode::OutOfRange, "gpu_milli draws shares of one GPU in thousandths: its values must lie in 1..1000");
    g.gpu_milli->min = std::max(g.gpu_milli->min, 1.0);
    g.gpu_milli->max = std::min(g.gpu_milli->max, 1000.0);
  }
  const ConfigNode* duration = r.optional("duration");
  const ConfigNode* work = r.optional("work");
  const ConfigNode* precision = r.optional("precision");
  const ConfigNode* efficiency = r.optional("efficiency");
  if (duration && work) work->fail(ErrorCode::Conflict, "give either duration or work, not both");
  if (!duration && !work) n.fail(ErrorCode::MissingKey, "a generator needs either duration or work");
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
    if (efficiency) {
      g.efficiency = read_distribution(*efficiency, ValueKind::Fraction);
      g.efficiency.min = std::max(g.efficiency.min, 1e-6);
      g.efficiency.max = std::min(g.efficiency.max, 1.0);
    }
  }
  // Every value the gpus distribution can produce must be placeable: bounded here, each
  // value checked against the cluster in the resolve step.
  if (!std::isfinite(g.gpus.highest()))
    gpus.fail(ErrorCode::Infeasible, "the gpus distribution is unbounded: add max (the largest job the cluster can hold)");
  return g;
}

long long memory_mib(const TraceMachineGroup& g) { return std::llround(g.memory_bytes / (1024.0 * 1024.0)); }

// The name of the node type a kind of machine makes: its GPU as the trace names it, GPUs,
// CPUs and memory ("V100-8gpu-96cpu-512GiB"; a machine list that gives no CPUs or host
// memory, as Philly's, leaves them out).
std::string machine_type_name(const TraceMachineGroup& g) {
  const long long mib = memory_mib(g);
  std::string name = g.trace_gpu + "-" + std::to_string(g.gpus) + "gpu";
  if (g.cpu_cores > 0 || mib > 0) name += "-" + std::to_string(g.cpu_cores) + "cpu-" + std::to_string(mib / 1024) + "GiB";
  for (char& c : name)
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20) c = '_';
  return name;
}

// The cluster section a trace's machines make, as a scenario would write it: one node type
// per kind of machine, marked at its first machine's line in the machine list; priced per
// GPU-hour from gpu_prices, else at zero (the import report says so).
std::shared_ptr<const ConfigNode> machines_cluster(const std::vector<TraceMachineGroup>& groups, const std::string& file) {
  std::vector<ConfigNode> types;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const TraceMachineGroup& g = groups[i];
    const SourceMark at{file, g.line, 1};
    const std::string path = "cluster.node_types[" + std::to_string(i) + "]";
    auto scalar = [&](std::string text, const char* key) {
      return ConfigNode::make_scalar(std::move(text), false, at, path + "." + key);
    };
    const long long mib = memory_mib(g);
    const std::string name = machine_type_name(g);
    const std::string price = g.usd_per_gpu_hour > 0 ? units::shortest_text(g.usd_per_gpu_hour) + "/GPUh" : "0";
    std::vector<std::pair<std::string, ConfigNode>> entries;
    entries.emplace_back("name", scalar(name, "name"));
    entries.emplace_back("gpu", scalar(g.gpu, "gpu"));
    entries.emplace_back("gpus", scalar(std::to_string(g.gpus), "gpus"));
    if (g.cpu_cores > 0) entries.emplace_back("cpu_cores", scalar(std::to_string(g.cpu_cores), "cpu_cores"));
    if (mib > 0) entries.emplace_back("memory", scalar(std::to_string(mib) + "MiB", "memory"));
    entries.emplace_back("count", scalar(std::to_string(g.count), "count"));
    std::vector<std::pair<std::string, ConfigNode>> price_entries;
    price_entries.emplace_back("on_demand_per_hour", ConfigNode::make_scalar(price, false, at, path + ".price.on_demand_per_hour"));
    entries.emplace_back("price", ConfigNode::make_map(std::move(price_entries), at, path + ".price"));
    types.push_back(ConfigNode::make_map(std::move(entries), at, path));
  }
  const SourceMark top{file, groups.empty() ? 1 : groups.front().line, 1};
  std::vector<std::pair<std::string, ConfigNode>> cluster;
  cluster.emplace_back("node_types", ConfigNode::make_sequence(std::move(types), top, "cluster.node_types"));
  return std::make_shared<const ConfigNode>(ConfigNode::make_map(std::move(cluster), top, "cluster"));
}

}  // namespace

std::shared_ptr<const ConfigNode> trace_machines_cluster(const ConfigNode& trace, config::SourceResolver& sources) {
  const TraceImport import(trace, sources);
  if (import.machines().empty()) return nullptr;
  return machines_cluster(import.machines(), import.report().machines_file);
}

ConfigNode WorkloadSection::trace_job_node(std::size_t i) const {
  const std::size_t k = i - trace_first;
  const SourceMark at{trace_file, trace_lines[k], 1};
  const std::string path = "workload.trace.jobs[" + std::to_string(k) + "]";
  std::vector<std::pair<std::string, ConfigNode>> entries;
  entries.emplace_back("gpus", ConfigNode::make_scalar("", false, at, path + ".gpus"));
  if (trace_gpu_names[k] > 0) {
    std::vector<ConfigNode> names;
    for (std::size_t g = 0; g < trace_gpu_names[k]; ++g)
      names.push_back(ConfigNode::make_scalar("", false, at, path + ".gpu[" + std::to_string(g) + "]"));
    entries.emplace_back("gpu", ConfigNode::make_sequence(std::move(names), at, path + ".gpu"));
  }
  return ConfigNode::make_map(std::move(entries), at, path);
}

WorkloadSection read_workload(const ConfigNode& node, const ModelCatalog& models, config::SourceResolver& sources) {
  WorkloadSection section;
  WorkloadSpec& spec = section.spec;
  MapReader w(node, WORKLOAD_KEYS);
  // Job names are checked unique by hash: a million names in a std::set cost 80 B each.
  JobNameSet names(spec.jobs);
  TeamNames teams;
  auto add_job = [&](const ConfigNode& n, std::size_t i) {
    spec.jobs.push_back(read_job(n, i, models, teams));
    if (i == 0) spec.jobs_mark = n.mark();
    if (!names.insert(static_cast<std::uint32_t>(spec.jobs.size() - 1)))
      n.fail(ErrorCode::Duplicate, "job name '" + spec.jobs.back().name + "' is used twice");
  };
  // A row read by read_plain_job: its map is built only for an error.
  auto add_plain_job = [&](JobSpec&& j, const config::csv::Row& row, std::size_t i) {
    spec.jobs.push_back(std::move(j));
    if (!names.insert(static_cast<std::uint32_t>(spec.jobs.size() - 1)))
      section.jobs_csv->node(row, i).fail(ErrorCode::Duplicate, "job name '" + spec.jobs.back().name + "' is used twice");
  };
  if (const ConfigNode* jobs_given = w.optional("jobs")) {
    // `{file: jobs.csv}` is streamed: each row's map is built, read into its JobSpec and
    // dropped (the resolve step reads the rows again for its errors). An error in the CSV
    // itself comes before any job's, as when the whole table was read into one tree: the
    // first job's error is held while the rest of the rows are read, and thrown only if
    // they read well. `gpu` holds a;b lists.
    section.jobs_csv = config::CsvTable::open(*jobs_given, {"gpu"}, &sources, JOB_KEYS);
    if (section.jobs_csv) {
      // At most one job a line: room for every row without a second walk of the table.
      const std::size_t lines = section.jobs_csv->line_bound();
      spec.jobs.reserve(lines);
      names.reserve(lines);
      // The reserved jobs' pages faulted in beside the reading (sim/allocator.hpp).
      const sim::PrefaultPages prefault(spec.jobs.data(), spec.jobs.capacity() * sizeof(JobSpec));
      config::csv::Row row;
      std::exception_ptr job_error;
      // Rows of plain jobs straight from their cells; the first row (whose map marks the
      // table) and any row the fast path does not take through its map.
      const detail::PlainColumns plain = detail::plain_columns(*section.jobs_csv);
      for (std::size_t i = 0; section.jobs_csv->next(row); ++i) {
        if (job_error) continue;  // only the CSV's own errors are looked for now
        try {
          if (plain.usable && i > 0) {
            if (plain.name < row.fields.size()) names.prefetch_name(row.fields[plain.name].text);
            JobSpec j;
            if (detail::read_plain_job(row, i, plain, j, teams)) {
              add_plain_job(std::move(j), row, i);
              ++section.jobs_csv_plain_rows;
              continue;
            }
          }
          add_job(section.jobs_csv->node(row, i), i);
        } catch (const ConfigError&) {
          job_error = std::current_exception();
        }
      }
      if (job_error) std::rethrow_exception(job_error);
      section.jobs_csv->rewind();
    } else {
      section.jobs_table = std::make_shared<const ConfigNode>(*jobs_given);
      const ConfigNode& jobs = *section.jobs_table;
      if (!jobs.is_sequence()) jobs.fail(ErrorCode::WrongType, "jobs must be a list");
      const auto items = jobs.items();
      spec.jobs.reserve(items.size());
      names.reserve(items.size());
      section.job_nodes.reserve(items.size());
      // Job i's name is checked once job i + 1 is read (its slot in the name table fetched
      // meanwhile), and before any error of job i + 1 is thrown: the same first error.
      std::size_t unchecked = items.size();
      std::uint64_t unchecked_hash = 0;
      const auto check_name = [&] {
        if (unchecked == items.size()) return;
        const std::size_t k = std::exchange(unchecked, items.size());
        if (!names.insert(static_cast<std::uint32_t>(k), unchecked_hash))
          items[k].fail(ErrorCode::Duplicate, "job name '" + spec.jobs[k].name + "' is used twice");
      };
      for (std::size_t i = 0; i < items.size(); ++i) {
        const ConfigNode& n = items[i];
        section.job_nodes.push_back(&n);
        try {
          // A plain job straight from its entries (plain_jobs.hpp); any other through read_job.
          JobSpec j;
          if (detail::read_plain_job(n, i, j, teams)) ++section.inline_plain_jobs;
          else j = read_job(n, i, models, teams);
          spec.jobs.push_back(std::move(j));
        } catch (...) {
          check_name();
          throw;
        }
        if (i == 0) spec.jobs_mark = n.mark();
        const std::uint64_t h = names.hash(static_cast<std::uint32_t>(i));
        names.prefetch(h);
        check_name();
        unchecked = i;
        unchecked_hash = h;
      }
      check_name();
    }
  }
  if (const ConfigNode* gens = w.optional("generators")) {
    if (!gens->is_sequence()) gens->fail(ErrorCode::WrongType, "generators must be a list");
    std::set<std::string> gnames;
    for (const auto& g : gens->items()) {
      spec.generators.push_back(read_generator(g));
      section.generator_nodes.push_back(&g);
      if (!gnames.insert(spec.generators.back().name).second)
        g.find("name")->fail(ErrorCode::Duplicate, "generator '" + spec.generators.back().name + "' is defined twice");
    }
  }
  if (const ConfigNode* svcs = w.optional("services")) {
    if (!svcs->is_sequence()) svcs->fail(ErrorCode::WrongType, "services must be a list");
    std::set<std::string> snames;
    for (const auto& sv : svcs->items()) {
      spec.services.push_back(read_service(sv, models, sources));
      section.service_nodes.push_back(&sv);
      if (!snames.insert(spec.services.back().name).second)
        sv.find("name")->fail(ErrorCode::Duplicate, "service '" + spec.services.back().name + "' is defined twice");
    }
  }
  if (const ConfigNode* t = w.optional("trace")) {
    // A trace's jobs, one at a time from its importer (docs/traces.md), after the written ones.
    TraceImport trace(*t, sources);
    section.trace_first = spec.jobs.size();
    section.trace_file = trace.report().file;
    // Room for every row up front: growing the name table row by row rehashed it (and
    // re-read every name) some twenty times at a million rows.
    const std::size_t bound = trace.row_bound();
    spec.jobs.reserve(spec.jobs.size() + bound);
    names.reserve(spec.jobs.size() + bound);
    // The reserved jobs' pages faulted in beside the import (sim/allocator.hpp).
    const sim::PrefaultPages prefault(spec.jobs.data() + spec.jobs.size(),
                                      (spec.jobs.capacity() - spec.jobs.size()) * sizeof(JobSpec));
    section.trace_lines.reserve(bound);
    section.trace_gpu_names.reserve(bound);
    // As recorded: each job keeps its recorded start, and its recorded machine as the index
    // of that machine's node in the cluster the machine list makes (types in group order,
    // each type's nodes in file order; the loader drops it when the scenario has a cluster).
    section.as_recorded = trace.options().mode == TraceMode::AsRecorded;
    std::unordered_map<std::string, std::int32_t> machine_node;
    if (section.as_recorded) {
      spec.recorded.reserve(spec.jobs.size() + bound);
      spec.recorded.resize(spec.jobs.size());  // the jobs written out: none
      machine_node = machine_nodes(trace.machines());
    }
    std::size_t unknown_machines = 0;
    // A recorded status as its code (JobSpec::recorded_status), from a name table like the
    // teams' (detail::TeamNames): codes 1 to 254 name the first statuses met, 255 all the
    // rest, as "(other)" (no published trace has so many; noted in the report).
    constexpr std::size_t NAMED_STATUSES = WorkloadSpec::MAX_RECORDED_STATUSES - 1;
    TeamNames status_names;
    const auto recorded_status = [&](const std::string& status) -> std::uint8_t {
      if (status.empty()) return 0;
      const int at = status_names.add(status);  // -1 only past 32,000 names
      return at >= 0 && static_cast<std::size_t>(at) < NAMED_STATUSES ? static_cast<std::uint8_t>(at + 1)
                                                                      : std::uint8_t{255};
    };
    TraceJob row;
    while (trace.next(row)) {
      names.prefetch_name(row.name);
      JobSpec j;
      j.name = std::move(row.name);
      j.submit = sim::SimTime::from_ns(row.submit_ns);
      j.duration = sim::SimTime::from_ns(row.duration_ns);
      if (row.estimate_ns > 0) j.estimate = EstimateSpec{sim::SimTime::from_ns(row.estimate_ns), 0};
      j.gpus = row.gpus;
      j.gpu_milli = row.gpu_milli;
      if (row.gpu_types.size() > 255)
        throw ConfigError(ErrorCode::OutOfRange, SourceMark{section.trace_file, row.line, 1}, "gpu", "more than 255 GPU names");
      section.trace_gpu_names.push_back(static_cast<std::uint8_t>(row.gpu_types.size()));
      j.gpu_types = std::move(row.gpu_types);
      j.team = teams.add(row.team);
      j.recorded_status = recorded_status(row.status);
      if (section.as_recorded) {
        // The traces give whole seconds; a wait past 2^31 s (68 years) is no trace's.
        const std::int64_t wait_ns = row.start_ns - row.submit_ns;
        if (wait_ns % 1'000'000'000 != 0 || wait_ns / 1'000'000'000 > std::numeric_limits<std::int32_t>::max())
          throw ConfigError(ErrorCode::OutOfRange, SourceMark{section.trace_file, row.line, 1}, "workload.trace",
                            "the recorded wait (start - submit) must be whole seconds below 2^31");
        RecordedRun run;
        run.wait_s = static_cast<std::int32_t>(wait_ns / 1'000'000'000);
        if (!row.machine.empty()) {
          const auto m = machine_node.find(row.machine);
          if (m != machine_node.end()) run.node = m->second;
          else ++unknown_machines;
          // Several machines, all in the list: the set of their nodes (else the first alone).
          if (run.node >= 0 && !row.more_machines.empty()) {
            const std::size_t offset = spec.recorded_node_sets.size();
            spec.recorded_node_sets.push_back(static_cast<std::int32_t>(1 + row.more_machines.size()));
            spec.recorded_node_sets.push_back(run.node);
            bool known = true;
            for (const std::string& name : row.more_machines) {
              const auto other = machine_node.find(name);
              known = known && other != machine_node.end();
              spec.recorded_node_sets.push_back(known ? other->second : -1);
            }
            if (known) {
              run.node = recorded_node_set(offset);
            } else {
              spec.recorded_node_sets.resize(offset);
              ++unknown_machines;
            }
          }
        }
        spec.recorded.push_back(run);
      }
      spec.jobs.push_back(std::move(j));
      section.trace_lines.push_back(row.line);
      if (spec.jobs.size() - 1 == section.trace_first && section.trace_first == 0)
        spec.jobs_mark = SourceMark{section.trace_file, row.line, 1};
      if (!names.insert(static_cast<std::uint32_t>(spec.jobs.size() - 1)))
        throw ConfigError(ErrorCode::Duplicate, SourceMark{section.trace_file, row.line, 1}, "workload.trace",
                          "job name '" + spec.jobs.back().name + "' is used twice (a trace's job ids must be unique, and "
                          "differ from the names of the jobs written out)");
    }
    const std::vector<std::string>& statuses = status_names.names();
    spec.recorded_statuses.assign(statuses.begin(), statuses.begin() + std::min(statuses.size(), NAMED_STATUSES));
    const bool other_status = statuses.size() > NAMED_STATUSES;
    if (other_status) spec.recorded_statuses.emplace_back(WorkloadSpec::OTHER_RECORDED_STATUS);
    section.import_report = trace.report().lines();
    spec.trace_document_bytes = trace.report().document_bytes;
    if (other_status)
      section.import_report.push_back("trace note: more than " + std::to_string(WorkloadSpec::MAX_RECORDED_STATUSES - 1) +
                                      " distinct statuses; the rest are recorded as " +
                                      std::string(WorkloadSpec::OTHER_RECORDED_STATUS) + " in /jobs.recorded_status");
    if (unknown_machines > 0)
      section.import_report.push_back("trace note " + std::to_string(unknown_machines) +
                                      ": recorded machine not in the machine list (placed by best-fit)");
    if (!trace.machines().empty()) {
      section.trace_cluster = machines_cluster(trace.machines(), trace.report().machines_file);
      for (const TraceMachineGroup& g : trace.machines()) section.trace_node_types.emplace_back(machine_type_name(g), g.count);
      std::string unpriced;
      for (const TraceMachineGroup& g : trace.machines())
        if (!g.priced && unpriced.find(g.trace_gpu) == std::string::npos) unpriced += (unpriced.empty() ? "" : ", ") + g.trace_gpu;
      if (!unpriced.empty())
        section.import_report.push_back("trace note: no price for " + unpriced +
                                        " in gpu_prices: those machines cost nothing when they are the cluster");
    }
    if (trace.report().jobs == 0) {
      std::string why;
      for (const auto& [reason, rows] : trace.report().skipped) why += "; " + std::to_string(rows) + " skipped: " + reason;
      t->fail(ErrorCode::Infeasible, "the trace gave no jobs (" + std::to_string(trace.report().rows) + " rows read" + why + ")");
    }
  }
  if (spec.jobs.empty() && spec.generators.empty() && spec.services.empty())
    node.fail(ErrorCode::MissingKey, "the workload has no jobs: add jobs, generators, services or a trace");
  // Jobs are numbered with 32-bit ids, 0xffffffff meaning "no job" (models/coupling/expand_workload.cpp,
  // models/cluster/node_allocator.cpp): the total, summed in 64 bits, must fit below it.
  std::int64_t total_jobs = static_cast<std::int64_t>(spec.jobs.size());
  for (const auto& g : spec.generators) total_jobs += g.count;
  if (total_jobs > MAX_TOTAL_JOBS)
    node.fail(ErrorCode::OutOfRange, "the workload has " + std::to_string(total_jobs) +
                                         " jobs in all (jobs and generators' counts), more than the limit of "
                                         "4,294,967,294 (jobs are numbered with 32-bit ids)");
  std::set<std::string> all_teams(teams.names().begin(), teams.names().end());
  for (const auto& g : spec.generators) {
    if (!g.team.empty()) all_teams.insert(g.team);
    all_teams.insert(g.team_choice.begin(), g.team_choice.end());
  }
  for (const auto& sv : spec.services)
    if (!sv.team.empty()) all_teams.insert(sv.team);
  spec.teams.assign(all_teams.begin(), all_teams.end());
  if (spec.teams.size() > 32000) node.fail(ErrorCode::OutOfRange, "at most 32000 teams");
  // Each job's team: from its index in the order seen to its index in the sorted list.
  std::vector<std::int16_t> sorted_index(teams.names().size());
  for (std::size_t t = 0; t < teams.names().size(); ++t)
    sorted_index[t] = static_cast<std::int16_t>(spec.team_index(teams.names()[t]));
  for (JobSpec& j : spec.jobs)
    if (j.team >= 0) j.team = sorted_index[static_cast<std::size_t>(j.team)];
  for (serving::ServiceSpec& sv : spec.services) sv.team_index = spec.team_index(sv.team);
  return section;
}

}  // namespace gcsim::models
