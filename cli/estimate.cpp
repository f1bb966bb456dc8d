// `gcsim estimate`: the step-time model's answer for each model-described job on each node
// type of the scenario that can hold it, without running the cluster. One row per eligible
// type, in the scenario's order; `would_run_on` marks the type the scenario's own policy and
// placement strategy (models/scheduler/placement.hpp) give the job when it is alone on an
// idle cluster, and the other rows are for comparison. In a run, other jobs may take that type's
// nodes first.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>

#include "analysis/report.hpp"
#include "cli/commands.hpp"
#include "models/cluster/cluster.hpp"
#include "models/config/cluster_spec.hpp"
#include "models/pricing/billing.hpp"
#include "models/scheduler/placement.hpp"
#include "models/scheduler/scheduler_registry.hpp"
#include "models/coupling/job_speed.hpp"
#include "models/coupling/model_traffic.hpp"

namespace gcsim::cli {

namespace {

struct Row {
  const models::JobSpec* job;
  const models::NodeTypeSpec* type;
  models::EstimateRow e;
  bool would_run_on;
  bool has_epoch;  // the job names a dataset of known size; otherwise an epoch means nothing
  double staging_s;  // the staging copy before the steps (dataset.access: stage); NaN: streamed
  std::vector<models::OperatorShare> ops;  // the step's operators (empty: no operator model)
};

// What bounds a step's compute: the compute-bound and memory-bound operators' and the
// launches' shares, and the largest operators (docs/step-time.md, "Which operators bound a
// step").
struct OperatorSummary {
  double compute_bound_s = 0, memory_bound_s = 0, total_s = 0;
  std::vector<const models::OperatorShare*> top;  // the largest, at most TOP_OPERATORS
  std::vector<std::pair<std::string_view, double>> by_kind;  // time per operator kind, largest first
};
constexpr std::size_t TOP_OPERATORS = 5;

OperatorSummary summarize_operators(const std::vector<models::OperatorShare>& ops) {
  OperatorSummary s;
  for (const auto& o : ops) {
    (o.compute_bound ? s.compute_bound_s : s.memory_bound_s) += o.time_s;
    s.total_s += o.time_s;
    s.top.push_back(&o);
  }
  std::stable_sort(s.top.begin(), s.top.end(), [](const auto* a, const auto* b) { return a->time_s > b->time_s; });
  if (s.top.size() > TOP_OPERATORS) s.top.resize(TOP_OPERATORS);
  for (const auto& o : ops) {
    auto it = std::find_if(s.by_kind.begin(), s.by_kind.end(), [&](const auto& k) { return k.first == o.kind; });
    if (it == s.by_kind.end()) s.by_kind.emplace_back(o.kind, o.time_s);
    else it->second += o.time_s;
  }
  std::stable_sort(s.by_kind.begin(), s.by_kind.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return s;
}

// A node type that can never hold a job, and why (said in the table, never dropped silently).
struct Excluded {
  const models::JobSpec* job;
  const models::NodeTypeSpec* type;
  std::string reason;
};

// `index`: the type's place in the cluster, its bit in the job's node_type_mask.
std::string exclusion_reason(const models::JobSpec& job, const models::NodeTypeSpec& type, std::size_t index) {
  if (!(job.node_type_mask >> index & 1)) {
    std::string accepted;
    for (const std::string& g : job.gpu_types) accepted += (accepted.empty() ? "" : ", ") + g;
    return "the job's `gpu` accepts only " + accepted + ", not the " + type.gpu.name;
  }
  const models::TrainingSpec& t = *job.training;
  switch (models::ineligibility(type, job.gpus, &t.precision, &t)) {
    case models::Ineligible::Precision:
      return "no " + std::string(models::precision_name(t.precision)) + " on the " + type.gpu.name;
    case models::Ineligible::Memory: return models::check_memory_fit(t, type.gpu).message;
    case models::Ineligible::Nodes:
      return "needs " + std::to_string(models::nodes_needed(type, job.gpus)) + " nodes, the type has " + std::to_string(type.count);
    case models::Ineligible::None: break;
  }
  return "";
}

// The step-time estimate, priced as a run bills (docs/pricing.md): the job's GPUs' share of
// the node price on its market, busy, and the whole job's cost rounded by the pool's billing
// rule (granularity and minimum), as the rental of its nodes for that time would be. A
// monthly lease bills a month for a job of two hours. Owned and reserved capacity is paid
// whether used or not: no rounding.
// `staging_s`: a staging copy before the steps, on the job's nodes (held, billed, no progress).
models::EstimateRow billed_estimate(const models::TrainingSpec& job, const models::HardwareContext& hw,
                                    const models::NodeTypeSpec& type, double staging_s) {
  models::EstimateRow e = models::estimate_job(job, hw, models::node_usd_per_hour(type, 1.0), type.gpus);
  if (staging_s > 0) {
    e.total_time_s += staging_s;
    e.total_cost_usd += staging_s / 3600.0 * e.usd_per_hour;
  }
  const bool rented = type.price.market == models::Market::OnDemand || type.price.market == models::Market::Spot;
  if (!rented || !(e.total_time_s > 0)) return e;
  const sim::SimTime used = sim::SimTime::from_seconds(e.total_time_s);  // saturates at max(): "never"
  if (!used.is_max()) e.total_cost_usd *= models::billed_time(type.price.billing, used).seconds() / used.seconds();
  return e;
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  return buf;
}

}  // namespace

// A model job's time on each node type, as the estimate computed it (NaN: not eligible).
struct EstimatedSpeeds final : models::JobSpeeds {
  explicit EstimatedSpeeds(std::size_t types) : time_s(types, std::numeric_limits<double>::quiet_NaN()) {}
  double time_left_alone_s(std::uint32_t, int type) const override { return time_s[static_cast<std::size_t>(type)]; }
  std::vector<double> time_s;
};

int cmd_estimate(const std::string& file, bool json, const models::LoadOptions& options,
                 const models::ResourceLimits& limits) {
  const models::Scenario s = models::load_scenario_file(file, options);
  models::check_resources(models::estimate_resources(s), limits);
  std::vector<Row> rows;
  std::vector<Excluded> excluded;
  const std::vector<models::NodeTypeView> types = models::node_type_views(s.cluster);
  // With a network, a job's gradient all-reduce takes what a run gives it alone on the
  // network (docs/network.md, "Model jobs on the network"), not the alpha-beta term.
  std::optional<topology::Topology> topo;
  if (s.network) topo = network::cluster_topology(s);
  for (const auto& job : s.workload.jobs) {
    if (!job.training) continue;
    const std::uint64_t eligible =
        models::eligible_node_types(s.cluster, job.gpus, &job.training->precision, &*job.training) & job.node_type_mask;
    const bool has_epoch = job.training->dataset && job.training->dataset->samples > 0;
    const std::size_t first_row = rows.size();
    EstimatedSpeeds speeds(s.cluster.node_types.size());
    for (std::size_t t = 0; t < s.cluster.node_types.size(); ++t) {
      const auto& type = s.cluster.node_types[t];
      if (!(eligible >> t & 1)) {
        excluded.push_back({&job, &type, exclusion_reason(job, type, t)});
        continue;
      }
      auto hw = models::hardware_context(type, job.gpus, *job.training, s.storage);
      if (topo) {
        const double all_reduce_s = network::alone_all_reduce_s(s, *topo, static_cast<int>(t), *job.training, job.gpus);
        if (all_reduce_s >= 0) hw.all_reduce = [all_reduce_s](double, int, const models::HardwareContext&) { return all_reduce_s; };
      }
      // A staged dataset: the steps read from the nodes' NVMe, after the copy (as a run).
      const std::optional<models::StagedInput> staged = models::staged_input(*job.training, s.storage, hw.nodes, hw.gpus_per_node());
      if (staged) hw.storage_read_bytes_per_s = staged->read_bytes_per_s;
      const double staging_s = staged ? staged->copy_s : std::numeric_limits<double>::quiet_NaN();
      rows.push_back({&job, &type, billed_estimate(*job.training, hw, type, staged ? staged->copy_s : 0), false, has_epoch,
                      staging_s, models::step_operators(*job.training, type.gpu)});
      speeds.time_s[t] = rows.back().e.total_time_s;
    }
    // The type the run would place it on, asked of the scenario's own policy (with these
    // times, for a policy that chooses the type by them). Without its quotas: they depend on
    // the time of the week and the other teams, and an estimate is of the job alone.
    models::SchedulerSpec policy = s.scheduler;
    policy.quotas.reset();
    const int placed = models::node_type_on_idle_cluster(types, models::QueuedJob{0, job.gpus, job.submit, eligible},
                                                         *options.schedulers.make(policy), &speeds);
    for (std::size_t i = first_row; i < rows.size(); ++i)
      rows[i].would_run_on = placed >= 0 && rows[i].type == &s.cluster.node_types[static_cast<std::size_t>(placed)];
  }
  if (rows.empty()) throw Error(file + ": no job is described by a model (model: ...); nothing to estimate");
  // A job across nodes on a type whose NICs nobody gave runs its gradient sync over the
  // default NIC: say so, since it can be a sixteenth of a real system's (docs/step-time.md).
  std::vector<std::string> notes;
  for (const auto& type : s.cluster.node_types) {
    if (!type.internals.nics_assumed) continue;
    for (const Row& r : rows) {
      if (r.type != &type || models::nodes_needed(type, r.job->gpus) <= 1) continue;
      notes.push_back("node type '" + type.name + "' gives no nics: and no catalog network figure; its multi-node rows "
                      "assume one 100 Gb/s NIC per node (write nics: {count, speed}, docs/network.md)");
      break;
    }
  }

  if (topo)
    notes.push_back("gradient all-reduces are timed on the scenario's network, each job alone on the first nodes of "
                    "its type, as a run starts it; jobs sharing links in a run go slower (docs/network.md)");
  // A type without a CPU-core figure decodes input for free: say so, as for the NICs.
  for (std::string& n : models::unlimited_host_cpu_notes(s)) notes.push_back(std::move(n));

  std::ostringstream out;
  if (json) {
    using analysis::json_number;
    using analysis::json_quote;
    out << "{\n  \"scenario\": " << json_quote(s.name) << ",\n  \"jobs\": [";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      const auto& st = r.e.step;
      out << (i ? ",\n" : "\n") << "    {\"name\": " << json_quote(r.job->name) << ", \"node_type\": " << json_quote(r.type->name)
          << ", \"gpu\": " << json_quote(r.type->gpu.name) << ", \"gpus\": " << r.job->gpus
          << ", \"would_run_on\": " << (r.would_run_on ? "true" : "false")
          << ", \"samples_per_s\": " << json_number(r.e.samples_per_s) << ", \"step_time_s\": " << json_number(st.step_s)
          << ", \"compute_s\": " << json_number(st.compute_s) << ", \"input_s\": " << json_number(st.input_s)
          << ", \"comm_s\": " << json_number(st.comm_s) << ", \"comm_exposed_s\": " << json_number(st.comm_exposed_s)
          << ", \"bottleneck\": " << json_quote(models::bottleneck_name(st.bottleneck))
          << ", \"gpu_memory_bytes\": " << json_number(r.e.memory.need.total())
          << ", \"time_per_epoch_s\": " << json_number(r.has_epoch ? r.e.time_per_epoch_s : NAN)
          << ", \"cost_per_epoch_usd\": " << json_number(r.has_epoch ? r.e.cost_per_epoch_usd : NAN)
          << ", \"cost_per_million_samples_usd\": " << json_number(r.e.cost_per_million_samples_usd)
          << ", \"staging_s\": " << json_number(r.staging_s);
      if (r.ops.empty()) {
        out << ", \"operators\": null";
      } else {
        const OperatorSummary os = summarize_operators(r.ops);
        out << ", \"operators\": {\"compute_bound_s\": " << json_number(os.compute_bound_s)
            << ", \"memory_bound_s\": " << json_number(os.memory_bound_s) << ", \"by_kind\": {";
        for (std::size_t k = 0; k < os.by_kind.size(); ++k)
          out << (k ? ", " : "") << json_quote(std::string(os.by_kind[k].first)) << ": " << json_number(os.by_kind[k].second);
        out << "}, \"top\": [";
        for (std::size_t k = 0; k < os.top.size(); ++k) {
          const models::OperatorShare& o = *os.top[k];
          out << (k ? ", " : "") << "{\"name\": " << json_quote(o.name) << ", \"kind\": " << json_quote(std::string(o.kind))
              << ", \"pass\": " << json_quote(std::string(o.pass)) << ", \"count\": " << o.count
              << ", \"time_s\": " << json_number(o.time_s)
              << ", \"share\": " << json_number(os.total_s > 0 ? o.time_s / os.total_s : NAN)
              << ", \"bound\": " << json_quote(o.compute_bound ? "compute" : "memory") << "}";
        }
        out << "]}";
      }
      out
          << ", \"total_time_s\": " << json_number(r.e.total_time_s) << ", \"total_cost_usd\": " << json_number(r.e.total_cost_usd)
          << "}";
    }
    out << "\n  ],\n  \"excluded\": [";
    for (std::size_t i = 0; i < excluded.size(); ++i) {
      const Excluded& x = excluded[i];
      out << (i ? ",\n" : "\n") << "    {\"name\": " << json_quote(x.job->name) << ", \"node_type\": " << json_quote(x.type->name)
          << ", \"gpu\": " << json_quote(x.type->gpu.name) << ", \"reason\": " << json_quote(x.reason) << "}";
    }
    out << (excluded.empty() ? "]" : "\n  ]") << ",\n  \"notes\": [";
    for (std::size_t i = 0; i < notes.size(); ++i) out << (i ? ", " : "") << json_quote(notes[i]);
    out << "]\n}\n";
  } else {
    // The three name columns are as wide as their longest name (at least as their heading's
    // usual width), so that a long job, node type or GPU name shifts no column after it.
    std::size_t job_width = 14, type_width = 12, gpu_width = 14;
    const auto widen = [&](const models::JobSpec& j, const models::NodeTypeSpec& t) {
      job_width = std::max(job_width, j.name.size());
      type_width = std::max(type_width, t.name.size());
      gpu_width = std::max(gpu_width, t.gpu.name.size());
    };
    for (const Row& r : rows) widen(*r.job, *r.type);
    for (const Excluded& x : excluded) widen(*x.job, *x.type);
    const auto names = [&](const std::string& job, const std::string& type, const std::string& gpu) {
      const auto pad = [](const std::string& s, std::size_t width) { return s + std::string(width - s.size(), ' '); };
      return pad(job, job_width) + " " + pad(type, type_width) + " " + pad(gpu, gpu_width) + " ";
    };
    char line[512];
    std::snprintf(line, sizeof line, "%5s %11s %9s %9s %9s %9s %10s %-14s %11s %9s %11s %10s %10s\n", "gpus",
                  "samples/s", "step", "compute", "input", "comm exp", "memory", "bottleneck", "epoch", "$/epoch",
                  "whole job", "$/job", "$/M samp");
    out << names("job", "node type", "gpu") << line;
    for (const Row& r : rows) {
      const auto& st = r.e.step;
      std::snprintf(line, sizeof line,
                    "%5d %11.1f %7.1fms %7.1fms %7.1fms %7.1fms %10s %-14s %11s %9s %11s %10s %10s%s\n", r.job->gpus,
                    r.e.samples_per_s,
                    st.step_s * 1e3, st.compute_s * 1e3, st.input_s * 1e3, st.comm_exposed_s * 1e3,
                    gib(r.e.memory.need.total()).c_str(), std::string(models::bottleneck_name(st.bottleneck)).c_str(),
                    r.has_epoch ? analysis::format_duration(r.e.time_per_epoch_s).c_str() : "-",
                    r.has_epoch ? analysis::format_usd(r.e.cost_per_epoch_usd).c_str() : "-",
                    analysis::format_duration(r.e.total_time_s).c_str(), analysis::format_usd(r.e.total_cost_usd).c_str(),
                    analysis::format_usd(r.e.cost_per_million_samples_usd).c_str(), r.would_run_on ? "" : "  (comparison)");
      out << names(r.job->name, r.type->name, r.type->gpu.name) << line;
    }
    for (const Excluded& x : excluded) {
      std::snprintf(line, sizeof line, "%5d  cannot run: ", x.job->gpus);
      out << names(x.job->name, x.type->name, x.type->gpu.name) << line << x.reason << "\n";
    }
    out << "\nstep: one micro-step of one GPU; compute, input and exposed communication are its parts (docs/step-time.md).\n"
           "epoch: one pass over the job's dataset (\"-\" when the job names none); whole job: all its samples.\n"
           "Rows without \"(comparison)\" are the node type a job alone on the idle cluster is placed on; costs charge\n"
           "its GPUs' share of the node price on the pool's market; $/job rounds the whole job up by the pool's billing\n"
           "rule (granularity and minimum), as a run bills it.\n";
    for (const Row& r : rows) {
      if (!r.would_run_on || r.ops.empty()) continue;
      const OperatorSummary os = summarize_operators(r.ops);
      if (!(os.total_s > 0)) continue;
      char head[256];
      std::snprintf(head, sizeof head, "why: job '%s' on %s: %.0f%% of its compute in compute-bound operators, %.0f%% in "
                    "memory-bound ones; by kind:", r.job->name.c_str(), r.type->name.c_str(),
                    100 * os.compute_bound_s / os.total_s, 100 * os.memory_bound_s / os.total_s);
      out << head;
      for (std::size_t k = 0; k < os.by_kind.size() && k < 4; ++k) {
        char item[96];
        std::snprintf(item, sizeof item, "%s %.*s %.0f%%", k ? "," : "", static_cast<int>(os.by_kind[k].first.size()),
                      os.by_kind[k].first.data(), 100 * os.by_kind[k].second / os.total_s);
        out << item;
      }
      out << "; the largest operators:";
      for (std::size_t k = 0; k < os.top.size() && k < 3; ++k) {
        const models::OperatorShare& o = *os.top[k];
        char item[256];
        std::snprintf(item, sizeof item, "%s %s (%.*s %.*s%s, %s-bound) %.1f%%", k ? "," : "", o.name.c_str(),
                      static_cast<int>(o.kind.size()), o.kind.data(), static_cast<int>(o.pass.size()), o.pass.data(),
                      o.count > 1 ? (" x" + std::to_string(o.count)).c_str() : "", o.compute_bound ? "compute" : "memory",
                      100 * o.time_s / os.total_s);
        out << item;
      }
      out << "\n";
    }
    for (const Row& r : rows)
      if (r.staging_s >= 0)
        out << "staging: job '" << r.job->name << "' on " << r.type->name << " copies its dataset to local NVMe first: "
            << analysis::format_duration(r.staging_s) << ", in the whole job's time and cost; its steps read from NVMe\n";
    for (const std::string& n : notes) out << "note: " << n << "\n";
  }
  std::cout << out.str();
  return 0;
}

}  // namespace gcsim::cli
