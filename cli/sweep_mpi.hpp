// gcsim sweep across machines with MPI (docs/sweeps.md, "MPI"): `mpirun -np R gcsim sweep
// FILE -o DIR`. Every rank reads and checks the sweep; rank 0 hands out runs one at a time
// to whichever rank asks (so uneven run times balance), runs them too on a thread of its
// own, journals and writes the results; the other ranks only run what they are given.
// Results are those of a local sweep, byte for byte. Builds without MPI (GCSIM_HAVE_MPI 0):
// then a launch under mpirun with more than one rank is refused with a message.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "cli/sweep_journal.hpp"

namespace gcsim::cli {

// The ranks of an MPI launch of this process, read from the launcher's environment
// (OpenMPI's OMPI_COMM_WORLD_SIZE, PMIx's, Slurm's PMI-2, and srun --mpi=pmix's task
// count): 1 when not launched so.
int launched_ranks();

// One MPI session: MPI_Init on construction when launched with more than one rank (an
// Error when this gcsim was built without MPI), MPI_Finalize on destruction.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  bool active() const { return size_ > 1; }
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0;
  int size_ = 1;
};

using RunFunction = std::function<JournalRun(std::size_t index)>;
using RecordFunction = std::function<void(std::size_t index, const JournalRun& run)>;

// Rank 0's side: runs `todo` over every rank (its own share on one thread of its own) and
// records each result as it arrives; returns when all are recorded. Call finish() once
// when no round follows: it releases the other ranks.
class MpiRunner {
 public:
  explicit MpiRunner(const MpiSession& session);
  void run(const std::vector<std::size_t>& todo, const RunFunction& run_one, const RecordFunction& record);
  void finish();

 private:
  const MpiSession& session_;
  std::vector<int> idle_;  // ranks waiting for work
  bool finished_ = false;
};

// Any other rank's side: asks rank 0 for runs and sends back their results until told to stop.
void mpi_worker(const MpiSession& session, const RunFunction& run_one);

}  // namespace gcsim::cli
