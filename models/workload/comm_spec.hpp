// What a job declares about its communication (JobSpec::comm), read by the loader and run
// by the network coupling (models/coupling/job_traffic.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "sim/time.hpp"

namespace gcsim::models {

// Communication a job declares when no workload model derives it (docs/network.md, "Jobs
// on the network"): every `every` of compute, one collective of `bytes` over the job's
// GPUs, which the job waits for. Simulated in at most `simulated_steps` steps, each
// standing for N / simulated_steps real steps (compute and bytes scaled together; the
// latency of the real steps not simulated is waited with the compute, so the job's time is
// that of all N steps: models/coupling/job_traffic.hpp).
struct CommSpec {
  std::string collective = "allreduce";  // allreduce | reduce_scatter | allgather | broadcast | alltoall
  std::string algorithm = "ring";        // ring | tree
  double bytes = 0;
  sim::SimTime every;
  std::int64_t simulated_steps = 200;
};

}  // namespace gcsim::models
