// The `workload:` section: jobs written out (inline or a CSV table) and generators drawing
// jobs from distributions, with their checkpoint plans and communication. Read without
// looking at the cluster, the storage or the network: what needs those (feasibility,
// memory fit, checkpoint tiers and times, dataset tiers, comm needing a network) is the
// resolve step's (scenario_resolve.hpp), which reports at the nodes kept here.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/config/calendar_reader.hpp"
#include "models/config/scenario.hpp"
#include "models/workload/model_catalog.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/csv_table.hpp"
#include "sim/config/key_table.hpp"
#include "sim/config/source_resolver.hpp"

namespace gcsim::models {

// The most jobs a workload may hold in all, generated ones included: ids are 32-bit and
// 0xffffffff is "no job".
inline constexpr std::int64_t MAX_TOTAL_JOBS = 4'294'967'294;

inline constexpr config::KeySpec WORKLOAD_KEYS[] = {
    {"jobs", "list of maps, or `{file: jobs.csv}`", "none", false, "", "jobs written out, below"},
    {"generators", "list of maps", "none", false, "", "streams of jobs drawn from distributions, below"},
    {"trace", "map", "none", false, "", "a public cluster trace replayed as jobs (docs/traces.md)"},
    {"services", "list of maps", "none", false, "", "request streams served by replicas (docs/serving.md), below"},
};

inline constexpr config::KeySpec JOB_KEYS[] = {
    {"name", "text, unique", "`job-<i>`", false, "", "the job's name"},
    {.name = "submit", .type = "duration from time 0", .help = "when the job is submitted",
     .kind = config::KeyKind::Duration, .min = 0, .has_default = true, .default_number = 0},
    {.name = "gpus", .type = "integer", .required = true, .help = "GPUs it needs", .kind = config::KeyKind::Integer,
     .min = 1, .max = 1 << 20},
    {.name = "gpu_milli", .type = "integer",
     .help = "its share of one GPU in thousandths (1000 = the whole GPU); below 1000 it shares a GPU with other such jobs (one-GPU duration and work jobs)",
     .kind = config::KeyKind::Integer, .min = 1, .max = 1000, .has_default = true, .default_number = 1000},
    {.name = "duration", .type = "duration", .help = "how long it runs once started (one of duration, work, model)",
     .kind = config::KeyKind::Duration, .min = 1},
    {.name = "work", .type = "FLOP", .help = "work to do at gpus x peak(precision) x efficiency",
     .kind = config::KeyKind::Number, .min = 0, .above_min = true, .below_min = "work must be > 0 FLOP"},
    {"precision", "`fp32` `tf32` `fp16` `amp` `bf16` `fp8`", "", false, "", "which peak rate applies (work and model jobs)"},
    {.name = "efficiency", .type = "fraction", .help = "achieved fraction of peak (work jobs)",
     .kind = config::KeyKind::Fraction, .min = 0, .max = 1, .above_min = true, .has_default = true, .default_number = 0.4},
    {"checkpoint", "map", "none: a stopped run loses all its work", false, "", "when the job saves its state"},
    {.name = "image_pull", .type = "duration", .help = "container start before progress, on every (re)start",
     .kind = config::KeyKind::Duration, .min = 0, .has_default = true, .default_number = 0},
    {"team", "text", "none", false, "", "who pays: the key of budgets:"},
    {.name = "priority", .type = "integer", .help = "its class for `policy: priority`: higher classes go first",
     .kind = config::KeyKind::Integer, .min = -1000, .max = 1000, .has_default = true, .default_number = 0},
    {.name = "deadline", .type = "duration after submit", .default_value = "none",
     .help = "when it should be done (`cost-aware`, `spot-fallback`)", .kind = config::KeyKind::Duration, .min = 1},
    {"gpu", "GPU name, or a list of them", "any", false, "", "the GPU models it accepts: it runs only on node types with one"},
    {"estimate", "duration, or `{error: lognormal, sigma: S}`", "none", false, "> 0",
     "the user's estimate of its run time, given or drawn around the true length (`lengths: estimate`)"},
    {"comm", "map", "", false, "", "per-step collectives sent over the network (duration jobs)"},
    {"model", "catalog name or inline", "", false, "", "a job described by its model (step-time model)"},
    // A model job's keys, declared and read by parse_training (models/workload/training.hpp).
    TRAINING_JOB_KEYS[0], TRAINING_JOB_KEYS[1], TRAINING_JOB_KEYS[2], TRAINING_JOB_KEYS[3], TRAINING_JOB_KEYS[4],
    TRAINING_JOB_KEYS[5],
    {"dataset", "catalog name or map", "none", false, "", "what the job reads (model jobs)"},
    {"parallelism", "map", "data parallel", false, "", "tensor, pipeline and data parallel degrees (model jobs)"},
    {"optimizer", "`adam` | `adamw` | `sgd`", "`adam`", false, "", "the optimizer state kept per parameter (model jobs)"},
    {"decode", "`cpu` | `gpu`", "`cpu`", false, "", "where the samples are decoded (model jobs)"},
};

inline constexpr config::KeySpec CHECKPOINT_KEYS[] = {
    {"every", "duration, or `optimal`", "", true, ">= 1 s", "progress between the starts of two checkpoints"},
    {.name = "write_time", .type = "duration", .help = "time to write one", .kind = config::KeyKind::Duration, .min = 0},
    {.name = "restore_time", .type = "duration", .default_value = "`write_time`", .help = "time to read it back on a restart",
     .kind = config::KeyKind::Duration, .min = 0},
    {"size", "bytes, or `model`", "", false, "> 0", "the checkpoint's size; the times then come from the tier"},
    {"tier", "name", "", false, "", "the storage tier it is written to"},
    {.name = "pause", .type = "bool", .help = "training stops while it is written", .kind = config::KeyKind::Bool,
     .has_default = true, .default_number = 1},
};

inline constexpr config::KeySpec COMM_KEYS[] = {
    {"collective", "`allreduce` `reduce_scatter` `allgather` `broadcast` `alltoall`", "`allreduce`", false, "",
     "the collective of each step"},
    {"algorithm", "`ring` | `tree`", "`ring`", false, "", "how the collective is carried out"},
    {.name = "bytes", .type = "bytes", .required = true, .help = "bytes each GPU contributes per step",
     .kind = config::KeyKind::Bytes},
    {.name = "every", .type = "duration", .required = true, .help = "compute time between two collectives",
     .kind = config::KeyKind::Duration, .min = 1},
    {.name = "simulated_steps", .type = "integer", .help = "steps simulated on the network", .kind = config::KeyKind::Integer,
     .min = 1, .max = 1'000'000, .has_default = true, .default_number = 200},
};

inline constexpr config::KeySpec GENERATOR_KEYS[] = {
    {"name", "text, unique", "", true, "", "jobs are named <name>-001, <name>-002, ..."},
    {.name = "count", .type = "integer", .required = true, .help = "how many jobs (at most, with `end`)", .kind = config::KeyKind::Integer,
     .min = 1, .max = 100'000'000},
    {.name = "start", .type = "duration", .help = "the first job arrives one inter-arrival time after start",
     .kind = config::KeyKind::Duration, .min = 0, .has_default = true, .default_number = 0},
    {.name = "end", .type = "duration", .default_value = "none",
     .help = "no job arrives at or after it: the generator stops there, even before `count` jobs (which is then a cap)",
     .kind = config::KeyKind::Duration, .min = 1},
    {"arrival", "distribution of durations", "", false, "", "time between consecutive arrivals (one of arrival, rate)"},
    {"rate", "`{per_hour: [...], scale: 1}`", "", false, "",
     "arrivals at a rate by hour of the week, a Poisson process (one of arrival, rate): below"},
    {"active", "`{days, hours}`", "always", false, "",
     "jobs arrive only in these hours of the week: the inter-arrival times run on a clock that stops outside them"},
    {"gpus", "distribution, rounded to an integer", "", true, ">= 1", "GPUs of each job; must be bounded"},
    {"gpu_milli", "distribution, rounded to an integer", "`1000`", false, "1..1000",
     "each one-GPU job's share of its GPU in thousandths; jobs of more GPUs take whole GPUs"},
    {"duration", "distribution of durations", "", false, "", "one of duration, work"},
    {"work", "distribution of FLOP", "", false, "", "one of duration, work"},
    {"precision", "as for jobs", "", false, "", "with work"},
    {"efficiency", "distribution of fractions", "`0.4`", false, "(0, 1]", "achieved fraction of peak"},
    {"checkpoint", "map, as for jobs", "none", false, "", "every job of the generator gets it"},
    {.name = "image_pull", .type = "duration", .help = "as for jobs", .kind = config::KeyKind::Duration, .min = 0,
     .has_default = true, .default_number = 0},
    {"team", "text, or `{choice: [names], weights: [...]}`", "none", false, "",
     "every job of the generator gets it; a choice: each job's team drawn with these weights (equal if not given)"},
    {.name = "priority", .type = "integer", .help = "every job of the generator gets it", .kind = config::KeyKind::Integer,
     .min = -1000, .max = 1000, .has_default = true, .default_number = 0},
    {.name = "deadline", .type = "duration after submit", .default_value = "none",
     .help = "every job of the generator gets it, after its own submit", .kind = config::KeyKind::Duration, .min = 1},
    {"gpu", "GPU name, or a list of them", "any", false, "", "as for jobs"},
    {"estimate", "`{error: lognormal, sigma: S}`", "none", false, "",
     "each job's run-time estimate, drawn around its true length (`lengths: estimate`)"},
};

// workload.generators[i].rate: jobs per hour, by hour of the week.
inline constexpr config::KeySpec RATE_KEYS[] = {
    {"per_hour", "list of 168 or 24 numbers", "", true, ">= 0, not all 0",
     "jobs per hour: 168 values, Monday 00:00-01:00 first, or 24 (hour of the day, every day alike)"},
    {.name = "scale", .type = "number", .help = "multiplies every rate (one profile shared through a YAML alias, each "
     "generator its share of it)", .kind = config::KeyKind::Number, .min = 0, .max = 1e9, .above_min = true,
     .below_min = "scale must be > 0", .has_default = true, .default_number = 1},
};

// workload.generators[i].team as a choice.
inline constexpr config::KeySpec TEAM_CHOICE_KEYS[] = {
    {"choice", "list of team names", "", true, "not empty, no name twice", "the teams a job may belong to"},
    {"weights", "list of numbers", "equal weights", false, ">= 0, not all 0, one per team", "each team's weight"},
};

// workload.generators[i].active: the hours of the week its jobs arrive in.
inline constexpr config::KeySpec ACTIVE_KEYS[] = {DAYS_KEY, HOURS_KEY};

inline constexpr config::KeySpec ESTIMATE_KEYS[] = {
    {"error", "`lognormal`", "", true, "", "the estimate is the true length times exp(sigma Z), Z ~ N(0, 1)"},
    {.name = "sigma", .type = "number", .required = true,
     .help = "the error's spread: 0.5 puts 68% of estimates within x0.61..x1.65", .kind = config::KeyKind::Number, .min = 0,
     .max = 10, .above_min = true, .below_min = "sigma must be > 0 (an exact estimate is lengths: true)"},
};

// The workload as read, with the nodes the resolve step reports at (one per job and per
// generator, in order). Inline jobs' nodes point into jobs_table. A jobs table in a CSV
// file keeps no node: jobs_csv reads its rows again, one at a time (for_each_job_node).
struct WorkloadSection {
  WorkloadSpec spec;
  std::vector<const config::ConfigNode*> job_nodes;
  std::vector<const config::ConfigNode*> generator_nodes;
  std::vector<const config::ConfigNode*> service_nodes;
  std::shared_ptr<const config::ConfigNode> jobs_table;
  std::shared_ptr<config::CsvTable> jobs_csv;  // at its first row
  // Rows of the CSV read straight from their cells (the fast path of plain columns), not
  // through their maps: the tests' way to see that the fast path is taken.
  std::size_t jobs_csv_plain_rows = 0;
  // Inline jobs read straight from their entries (the same fast path), not through read_job.
  std::size_t inline_plain_jobs = 0;
  // A `trace:`'s jobs follow the written ones in spec.jobs, from trace_first on; each is
  // marked in errors by its row's line in trace_file (and the count of its `gpu` names),
  // not by a node: trace_job_node makes one when asked.
  std::size_t trace_first = 0;
  std::string trace_file;
  std::vector<std::int32_t> trace_lines;
  std::vector<std::uint8_t> trace_gpu_names;
  // The cluster section made from the trace's machines (null when it gives none), and its
  // node types' names and counts in order (a recorded machine's node is an index into them).
  std::shared_ptr<const config::ConfigNode> trace_cluster;
  std::vector<std::pair<std::string, int>> trace_node_types;
  std::vector<std::string> import_report;  // TraceImportReport::lines()
  // The trace is replayed as recorded (its mode): its jobs carry JobSpec::recorded_start
  // and, from a machine list, recorded_node; the run's policy is `recorded`.
  bool as_recorded = false;
  config::ConfigNode trace_job_node(std::size_t i) const;

  // Calls f(i, node) for each written-out job i in order, with the node read_job read,
  // then for each trace job, with the node trace_job_node makes.
  template <class F>
  void for_each_job_node(F&& f) const {
    if (!jobs_csv) {
      for (std::size_t i = 0; i < job_nodes.size(); ++i) f(i, *job_nodes[i]);
    } else {
      config::csv::Row row;
      for (std::size_t i = 0; jobs_csv->next(row); ++i) f(i, jobs_csv->node(row, i));
      jobs_csv->rewind();
    }
    for (std::size_t k = 0; k < trace_lines.size(); ++k) {
      const config::ConfigNode n = trace_job_node(trace_first + k);
      f(trace_first + k, n);
    }
  }
};

// A jobs table in a CSV file is read through `sources`.
WorkloadSection read_workload(const config::ConfigNode& node, const ModelCatalog& models, config::SourceResolver& sources);

// The cluster section the machine list of `trace` (a `workload.trace` map) makes, as
// read_workload makes it when the scenario has no cluster (WorkloadSection::trace_cluster):
// null when the trace gives no machine list. Reads the trace's files (its errors are the
// import's). For settings into that cluster (`--set cluster....`, overrides.cpp).
std::shared_ptr<const config::ConfigNode> trace_machines_cluster(const config::ConfigNode& trace,
                                                                 config::SourceResolver& sources);

}  // namespace gcsim::models
