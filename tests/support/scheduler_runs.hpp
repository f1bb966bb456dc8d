// Small scheduling cases run by hand-computed tests of the policies: one node of A100s and
// a list of jobs, and each job's start, end and preemptions.
#pragma once

#include <map>
#include <string>

#include "support/scenario_support.hpp"

namespace gcsim::test {

// One node of `gpus` A100-40GB GPUs at $1/h, `scheduler` (a YAML flow map) and `jobs`
// (lines of the workload's job list), run until done.
inline std::string one_node_scenario(const std::string& scheduler, int gpus, const std::string& jobs,
                                     const std::string& horizon) {
  return "name: policy-case\nseed: 3\nhorizon: " + horizon + "\nrun_until: done\ncluster:\n  node_types:\n"
         "    - {name: n, gpu: A100-40GB-SXM, gpus: " + std::to_string(gpus) +
         ", count: 1, price: {on_demand_per_hour: 1}}\n"
         "scheduler: " + scheduler + "\nworkload:\n  jobs:\n" + jobs;
}

struct JobTimes {
  double start_min, end_min;
  int preemptions;
};
// Each job's first start and end in minutes, and its preemptions, by name.
inline std::map<std::string, JobTimes> run_job_times(const std::string& yaml) {
  std::map<std::string, JobTimes> out;
  for (const auto& j : run_jobs(scenario_from_yaml(yaml)))
    out[j.name] = JobTimes{j.start.seconds() / 60, j.end.seconds() / 60, j.preemptions()};
  return out;
}

// Free preemption: a preempted job keeps its work and costs no time to stop or resume.
inline const std::string FREE_PREEMPTION = "preemption: {save: 0s, restore: 0s}";

}  // namespace gcsim::test
