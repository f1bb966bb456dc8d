// The `backfill` policy (backfill.hpp): its keys, and the class each mode makes.
#include "models/scheduler/backfill.hpp"

#include <limits>
#include <string>

namespace gcsim::models {

std::unique_ptr<BackfillBase> make_backfill(const BackfillParams& p, std::unique_ptr<PlacementStrategy> now,
                                            std::unique_ptr<PlacementStrategy> plan) {
  if (p.mode == BackfillMode::Conservative)
    return std::make_unique<ConservativeBackfill>(std::move(now), std::move(plan), p);
  return std::make_unique<EasyBackfill>(std::move(now), std::move(plan), p);
}

namespace {
const config::KeySpec MODE_KEY = {
    .name = "mode", .type = "`easy` | `conservative`", .default_value = "`easy`",
    .help = "`easy`: only the first waiting job that does not fit holds a reservation; `conservative`: every waiting "
            "job does"};
// The most jobs a conservative pass may examine. A pass that plans afresh (after a run
// ended off its expected end, as nearly every run does under `lengths: estimate`, or while
// one is past it, or after an interruption) searches a reservation for every job examined
// beside the holds of those before it: O(depth^2) per pass. Unbounded, 2,500 jobs under
// `lengths: estimate` took 57 s and 5,000 more than 120 s; at 500, 4.3 s and 10.5 s
// (docs/scheduling.md, "The bound: depth").
constexpr int MAX_CONSERVATIVE_DEPTH = 500;
const config::KeySpec DEPTH_KEY = {
    .name = "depth", .type = "integer", .range = "at most 500 with `mode: conservative`",
    .help = "waiting jobs a pass examines behind the first that does not fit (Slurm's `bf_max_job_test`)",
    .kind = config::KeyKind::Integer, .min = 1, .max = std::numeric_limits<int>::max(), .has_default = true,
    .default_number = 100};
const config::KeySpec BACKFILL_KEYS[] = {PLACEMENT_KEY, LENGTHS_KEY, MODE_KEY, DEPTH_KEY};
}  // namespace

PolicyDef<BackfillParams> backfill_policy() {
  return {
      .name = "backfill",
      .description = "submit order; later jobs start early only if they delay no reservation (EASY: the first "
                     "waiting job's; conservative: every waiting job's)",
      .keys = BACKFILL_KEYS,
      .parse = [](config::MapReader& map, const SchedulerRegistry& registry, const PolicyContext&) {
        BackfillParams p;
        const OrderedParams o = read_ordered_params(map, registry, true);
        p.placement = o.placement;
        p.lengths = o.lengths;
        if (const config::ConfigNode* n = map.optional("mode"))
          p.mode = config::read_enum(*n, {"easy", "conservative"}) == "conservative" ? BackfillMode::Conservative
                                                                                     : BackfillMode::Easy;
        p.depth = static_cast<int>(map.value<std::int64_t>("depth"));
        if (const config::ConfigNode* n = map.where("depth")) {
          if (p.mode == BackfillMode::Conservative && p.depth > MAX_CONSERVATIVE_DEPTH)
            n->fail(ErrorCode::OutOfRange,
                    "'" + std::to_string(p.depth) + "' is out of range: at most " +
                        std::to_string(MAX_CONSERVATIVE_DEPTH) +
                        " with mode: conservative (a pass that plans afresh searches a reservation for every job it "
                        "examines beside those before it, in time that grows with the square of depth)");
        }
        return p;
      },
      .make = [](const BackfillParams& p, const SchedulerRegistry& registry) -> std::unique_ptr<Scheduler> {
        return make_backfill(p, registry.make_placement(p.placement), registry.make_placement(p.placement));
      },
  };
}

}  // namespace gcsim::models
