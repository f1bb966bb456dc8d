// Backfilling (docs/scheduling.md, "Backfilling"): waiting jobs in submit order, and a later
// job may start before an earlier one that does not fit only if it delays no reservation.
// One policy, `backfill`, with two modes, each its own Scheduler over the shared release
// schedule (backfill_releases.hpp):
//   easy          EasyBackfill (backfill_easy.hpp): only the first waiting job that does
//                 not fit holds a reservation (Lifka 1995).
//   conservative  ConservativeBackfill (backfill_conservative.hpp): each waiting job
//                 examined holds one, on the availability profile (availability_profile.hpp;
//                 Mu'alem and Feitelson 2001).
// What either keeps from pass to pass is an accelerator: use_caches(false) turns it all off
// and the decisions stay the same.
//
// Keys (`scheduler:` with `policy: backfill`): placement, lengths (ordered.hpp), mode, depth.
#pragma once

#include <memory>

#include "models/scheduler/backfill_common.hpp"
#include "models/scheduler/backfill_conservative.hpp"
#include "models/scheduler/backfill_easy.hpp"
#include "models/scheduler/scheduler_registry.hpp"

namespace gcsim::models {

// The policy of p.mode; `now` and `plan` are two instances of the same placement strategy.
std::unique_ptr<BackfillBase> make_backfill(const BackfillParams& p, std::unique_ptr<PlacementStrategy> now,
                                            std::unique_ptr<PlacementStrategy> plan);

PolicyDef<BackfillParams> backfill_policy();

}  // namespace gcsim::models
