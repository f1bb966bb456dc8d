// The journal of a sweep (docs/sweeps.md, "Resuming"): DIR/sweep.journal, one line per
// finished run, appended with one write() as the run ends, so that a sweep killed at any
// point (kill -9 included) resumes with only the missing runs, and its tables come out
// byte for byte as an uninterrupted sweep's. The first line names the sweep by a
// fingerprint of everything its results depend on; every line carries a checksum, so a
// line torn by a crash is ignored (that run runs again).
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "analysis/strategy_comparison.hpp"

namespace gcsim::cli {

struct JournalRun {
  bool done = false;
  bool ok = false;
  bool internal = false;
  std::string error;
  analysis::StrategyFigures figures{};
};

class SweepJournal {
 public:
  // Opens DIR/sweep.journal for the sweep of `fingerprint` with `runs` runs. An existing
  // journal of the same sweep is read into `runs_done` (a record per finished run); one of
  // another sweep is an Error naming what to do, unless `restart`, which starts afresh.
  SweepJournal(const std::string& dir, const std::string& fingerprint, std::size_t runs, bool restart,
               const std::string& sweep_file, std::vector<JournalRun>& runs_done);
  ~SweepJournal();
  SweepJournal(const SweepJournal&) = delete;
  SweepJournal& operator=(const SweepJournal&) = delete;

  // Appends run `index`'s record (thread-safe).
  void record(std::size_t index, const JournalRun& run);

  static std::string path_in(const std::string& dir);
  // Reads the journal in `dir` without writing to it (gcsim sweep --merge): its runs into
  // `runs_done` where they are not done yet. An Error when there is none, or it is of
  // another sweep than `fingerprint`.
  static void merge_from(const std::string& dir, const std::string& fingerprint, std::size_t runs,
                         std::vector<JournalRun>& runs_done);
  // The sweep file a journal was written for (its absolute path), or an Error.
  static std::string sweep_file_of(const std::string& dir);

 private:
  std::string path_;
  int fd_ = -1;
  std::mutex mutex_;
};

}  // namespace gcsim::cli
