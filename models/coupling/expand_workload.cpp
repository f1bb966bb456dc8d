// Workload expansion (see workload.hpp).
#include "models/coupling/expand_workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "models/coupling/job_stream.hpp"
#include "sim/allocator.hpp"

namespace gcsim::models {

std::vector<Job> expand_workload(const Scenario& s, std::uint64_t seed, std::uint64_t replication) {
  JobStream stream(s, seed, replication);
  std::vector<Job> jobs;
  jobs.reserve(stream.bound());
  // The reserved jobs' pages faulted in beside the expansion (sim/allocator.hpp).
  const sim::PrefaultPages prefault(jobs.data(), jobs.capacity() * sizeof(Job));
  for (Job j; stream.next(j);) {
    j.id = static_cast<std::uint32_t>(jobs.size());
    jobs.push_back(std::move(j));
  }
  return jobs;
}

TakenWorkload take_workload(Scenario& s, std::uint64_t seed, std::uint64_t replication) {
  TakenWorkload taken;
  taken.jobs = expand_workload(s, seed, replication);
  std::vector<JobSpec>& specs = s.workload.jobs;
  std::size_t pointed = 0;
  for (const JobSpec& j : specs) pointed += j.training || j.comm || j.checkpoint;
  taken.kept.reserve(pointed);
  // A box's value keeps its address when the box moves: the jobs' pointers stay good.
  for (JobSpec& j : specs)
    if (j.training || j.comm || j.checkpoint) taken.kept.push_back(std::move(j));
  std::vector<JobSpec>().swap(specs);
  return taken;
}

}  // namespace gcsim::models
