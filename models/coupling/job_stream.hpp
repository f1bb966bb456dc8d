// A scenario's jobs one at a time in submit order, each made when it is taken (a coupling,
// as expand_workload: a job's eligible node types join the workload's specs with the
// cluster's). The order is expand_workload's: by submit time, ties in the order of
// appearance (written jobs in file order, then generators in order, each generator's jobs
// in turn), since each source's jobs come in submit order and the stream takes the earliest
// head, the first source on a tie. A generator's values are drawn from its own named random
// streams, "workload.generators.<name>.<field>" seeded by (seed, replication), job by job as
// it is taken; the written jobs' estimates from "workload.jobs.estimate" in workload order.
// So the jobs are the same whether taken one by one during a run (Cluster's streamed mode)
// or all at once before it (expand_workload drains a stream).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/config/scenario.hpp"
#include "models/workload/job_source.hpp"
#include "sim/rng.hpp"

namespace gcsim::models {

class JobStream final : public JobSource {
 public:
  // `scenario` must outlive the stream (its specs are read as jobs are made, and the jobs
  // point to their checkpoint plans and model specs).
  JobStream(const Scenario& scenario, std::uint64_t seed, std::uint64_t replication);
  ~JobStream() override;
  bool next(Job& out) override;
  std::size_t bound() const override;
  std::size_t count_rest() override;

 private:
  struct Generator;
  // The source whose head comes first: 0 the written jobs, g + 1 generator g; -1 none.
  int first_source();
  void make_written(std::size_t index, Job& j);

  const Scenario& scenario_;
  // The written jobs, in submit order (ties in workload order), and the next one to take.
  std::vector<std::uint32_t> written_order_;  // empty when the jobs are written in order
  std::size_t written_next_ = 0;
  // Estimates of written jobs drawn with an error, in workload order: drawn for every
  // written job up front (a few have one), so the order jobs are taken in does not matter.
  std::vector<double> written_factor_;
  std::vector<std::unique_ptr<Generator>> generators_;
};

}  // namespace gcsim::models
