// The fast path of written-out jobs (docs/engine.md, "A million jobs"): a job given only by
// name, submit, gpus, duration and team, read straight from its text into its JobSpec, from
// a CSV row's cells or from an inline map's entries, without a MapReader or a row's map.
// Only what the full reader (read_job in workload_reader.cpp) surely accepts is taken, read
// exactly as it reads it (the same parsers, bounds and defaults); anything else (a quoted
// number, a null, another key, a value out of range) returns false, and the caller reads
// the job through read_job, which reports the error at its node as before.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "models/config/scenario.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/csv.hpp"
#include "sim/config/csv_table.hpp"

namespace gcsim::models::detail {

// Team names in the order first seen, each job holding its index here until every team is
// known (WorkloadSpec::teams is sorted).
class TeamNames {
 public:
  // The team's index; -1 for none (empty). Past 32000 teams -1 too: the workload is
  // refused once read (read_workload), so the index is not kept.
  std::int16_t add(std::string_view team);
  const std::vector<std::string>& names() const { return names_; }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  static constexpr std::size_t FEW = 8;  // up to this many teams, no index_
  std::vector<std::string> names_;
  std::unordered_map<std::string, int, Hash, std::equal_to<>> index_;  // beyond FEW teams
  // Jobs of one team often come in runs: the last team asked for is checked first.
  int last_ = -1;
};

// A duration as config::read_duration reads the plain text `text` (unquoted), at least
// `min_ns`; false where read_duration would refuse it. `2h`-like text (digits, perhaps
// with a fraction, and a one-letter unit) is read without the general parser, to the same
// nanoseconds.
bool plain_duration(std::string_view text, std::int64_t min_ns, sim::SimTime& out);

// The columns of a jobs CSV whose every cell a plain job's row can be read from:
// name, submit, gpus, duration, team. `usable` when the header has no other column.
struct PlainColumns {
  std::size_t name = config::CsvTable::npos, submit = config::CsvTable::npos, gpus = config::CsvTable::npos,
              duration = config::CsvTable::npos, team = config::CsvTable::npos;
  bool usable = false;
};
PlainColumns plain_columns(const config::CsvTable& t);

// Row `index` of a CSV jobs table with only the plain columns. The team is added only when
// the row is taken.
bool read_plain_job(const config::csv::Row& row, std::size_t index, const PlainColumns& c, JobSpec& j,
                    TeamNames& teams);

// Inline job `index`, a map with only the plain keys, each an unquoted scalar (a name may
// be quoted, as read_name allows). The team is added only when the job is taken.
bool read_plain_job(const config::ConfigNode& n, std::size_t index, JobSpec& j, TeamNames& teams);

}  // namespace gcsim::models::detail
