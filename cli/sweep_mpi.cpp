// gcsim sweep over MPI ranks (see sweep_mpi.hpp).
#include "cli/sweep_mpi.hpp"

#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "sim/errors.hpp"

#if GCSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace gcsim::cli {

int launched_ranks() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"})
    if (const char* v = std::getenv(name)) {
      const int n = std::atoi(v);
      if (n > 0) return n;
    }
  // `srun --mpi=pmix` (Slurm 22.05) sets PMIX_RANK but no size: the step's task count is
  // the ranks. Without this each task ran the whole sweep alone into the same folder.
  // SLURM_STEP_NUM_TASKS alone is no launch: srun may start tasks that are not MPI ranks.
  if (std::getenv("PMIX_RANK") != nullptr)
    if (const char* v = std::getenv("SLURM_STEP_NUM_TASKS")) {
      const int n = std::atoi(v);
      if (n > 0) return n;
    }
  return 1;
}

#if GCSIM_HAVE_MPI

namespace {

enum Tag : int { REQUEST = 1, RESULT = 2, WORK = 3, STOP = 4 };

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw Error(std::string("MPI: ") + what + " failed");
}

// A result as bytes: index, ok, internal, the figures' bits, the message.
std::string pack(std::size_t index, const JournalRun& run) {
  std::string out;
  const auto put = [&](std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(index);
  put((run.ok ? 1u : 0u) | (run.internal ? 2u : 0u));
  for (const double f : run.figures) put(std::bit_cast<std::uint64_t>(f));
  put(run.error.size());
  out += run.error;
  return out;
}

std::size_t unpack(const std::string& in, JournalRun& run) {
  std::size_t at = 0;
  const auto get = [&] {
    std::uint64_t v = 0;
    if (at + sizeof v > in.size()) throw Error("MPI: a result message is cut short");
    std::memcpy(&v, in.data() + at, sizeof v);
    at += sizeof v;
    return v;
  };
  const std::size_t index = get();
  const std::uint64_t flags = get();
  run.done = true;
  run.ok = (flags & 1u) != 0;
  run.internal = (flags & 2u) != 0;
  for (double& f : run.figures) f = std::bit_cast<double>(get());
  const std::uint64_t n = get();
  if (at + n > in.size()) throw Error("MPI: a result message is cut short");
  run.error.assign(in.data() + at, n);
  return index;
}

}  // namespace

MpiSession::MpiSession() {
  if (launched_ranks() <= 1) return;
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  if (provided < MPI_THREAD_FUNNELED) throw Error("MPI: this MPI library does not allow threads (MPI_THREAD_FUNNELED)");
}

MpiSession::~MpiSession() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized != 0 && finalized == 0) MPI_Finalize();
}

MpiRunner::MpiRunner(const MpiSession& session) : session_(session) {}

void MpiRunner::run(const std::vector<std::size_t>& todo, const RunFunction& run_one, const RecordFunction& record) {
  std::deque<std::size_t> queue(todo.begin(), todo.end());
  std::mutex mutex;  // guards queue, for the local thread
  std::size_t outstanding = todo.size();
  const auto take = [&](std::size_t& index) {
    const std::lock_guard<std::mutex> lock(mutex);
    if (queue.empty()) return false;
    index = queue.front();
    queue.pop_front();
    return true;
  };
  // Rank 0's own share, on a thread of its own; MPI stays on this one (MPI_THREAD_FUNNELED).
  std::vector<std::pair<std::size_t, JournalRun>> local_done;
  std::mutex done_mutex;
  std::jthread local([&] {
    for (std::size_t i; take(i);) {
      JournalRun r = run_one(i);
      const std::lock_guard<std::mutex> lock(done_mutex);
      local_done.emplace_back(i, std::move(r));
    }
  });
  const auto give = [&](int rank) {
    std::size_t i = 0;
    if (!take(i)) return false;
    const std::uint64_t index = i;
    check(MPI_Send(&index, 1, MPI_UINT64_T, rank, WORK, MPI_COMM_WORLD), "MPI_Send");
    return true;
  };
  // Ranks left waiting by the last round get work first.
  std::vector<int> still_idle;
  for (const int rank : idle_)
    if (!give(rank)) still_idle.push_back(rank);
  idle_ = std::move(still_idle);
  while (outstanding > 0) {
    {
      const std::lock_guard<std::mutex> lock(done_mutex);
      for (const auto& [i, r] : local_done) {
        record(i, r);
        --outstanding;
      }
      local_done.clear();
    }
    int flag = 0;
    MPI_Status status;
    check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
    if (flag == 0) {
      // Waiting without spinning: the local thread needs the core.
      std::this_thread::sleep_for(std::chrono::microseconds(500));
      continue;
    }
    int bytes = 0;
    check(MPI_Get_count(&status, MPI_BYTE, &bytes), "MPI_Get_count");
    std::string message(static_cast<std::size_t>(bytes), '\0');
    check(MPI_Recv(message.data(), bytes, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Recv");
    if (status.MPI_TAG == RESULT) {
      JournalRun r;
      const std::size_t i = unpack(message, r);
      record(i, r);
      --outstanding;
    }
    if (!give(status.MPI_SOURCE)) idle_.push_back(status.MPI_SOURCE);
  }
}

void MpiRunner::finish() {
  if (finished_) return;
  finished_ = true;
  // Every other rank ends by asking for work: those not idle yet ask now.
  std::size_t stopped = 0;
  const auto stop = [&](int rank) {
    check(MPI_Send(nullptr, 0, MPI_BYTE, rank, STOP, MPI_COMM_WORLD), "MPI_Send");
    ++stopped;
  };
  for (const int rank : idle_) stop(rank);
  while (stopped < static_cast<std::size_t>(session_.size() - 1)) {
    MPI_Status status;
    check(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status), "MPI_Probe");
    int bytes = 0;
    check(MPI_Get_count(&status, MPI_BYTE, &bytes), "MPI_Get_count");
    std::string message(static_cast<std::size_t>(bytes), '\0');
    check(MPI_Recv(message.data(), bytes, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Recv");
    stop(status.MPI_SOURCE);
  }
}

void mpi_worker(const MpiSession&, const RunFunction& run_one) {
  std::string message;  // empty: a first request
  int tag = REQUEST;
  for (;;) {
    check(MPI_Send(message.data(), static_cast<int>(message.size()), MPI_BYTE, 0, tag, MPI_COMM_WORLD), "MPI_Send");
    MPI_Status status;
    std::uint64_t index = 0;
    check(MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &status), "MPI_Probe");
    if (status.MPI_TAG == STOP) {
      check(MPI_Recv(nullptr, 0, MPI_BYTE, 0, STOP, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
      return;
    }
    check(MPI_Recv(&index, 1, MPI_UINT64_T, 0, WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
    message = pack(static_cast<std::size_t>(index), run_one(static_cast<std::size_t>(index)));
    tag = RESULT;
  }
}

#else  // no MPI in this build

MpiSession::MpiSession() {
  if (launched_ranks() > 1)
    throw Error("this gcsim was built without MPI, so it cannot run as " + std::to_string(launched_ranks()) +
                " MPI ranks: install libopenmpi-dev (Debian 12) and rebuild, or run gcsim sweep without mpirun "
                "(-j N uses every core of one machine; --shard splits a sweep over machines)");
}
MpiSession::~MpiSession() = default;
MpiRunner::MpiRunner(const MpiSession& session) : session_(session) {}
void MpiRunner::run(const std::vector<std::size_t>&, const RunFunction&, const RecordFunction&) {}
void MpiRunner::finish() {}
void mpi_worker(const MpiSession&, const RunFunction&) {}

#endif

}  // namespace gcsim::cli
