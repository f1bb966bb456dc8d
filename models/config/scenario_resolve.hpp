// The resolve step of loading: once every section has been read on its own, the references
// between sections are checked and the figures that need more than one section are
// computed, each by the model it belongs to:
//   - node types: the spot pool's mean interruption rate (spot/interruption_rate.hpp);
//   - checkpoints: the tier named in storage, a `size: model` from the job's model
//     (workload/memory_fit.hpp), the times from the tier's bandwidth (storage/checkpoint_io.hpp);
//   - datasets: the tier named in storage, a local NVMe tier for `access: stage`;
//   - `comm:` and `output.flows` need a network section;
//   - jobs and generators: some node type can ever hold them, in GPU memory too
//     (config/cluster_spec.hpp);
//   - budgets: each names a team some job or generator has.
// Errors are reported at the scenario nodes the section readers kept, so they carry the
// same file:line:column and key path as when each reader checked them itself.
#pragma once

#include "models/config/scenario.hpp"
#include "models/config/workload_reader.hpp"
#include "sim/config/config_node.hpp"

namespace gcsim::models {

class GpuCatalog;

struct SectionNodes {
  const WorkloadSection& workload;
  const config::ConfigNode* budgets = nullptr;  // the budgets list, when given
  const config::ConfigNode* output = nullptr;   // the output map, when given
  const GpuCatalog* gpus = nullptr;             // for the jobs' `gpu` names (null: not checked)
};

void resolve_scenario(Scenario& s, const SectionNodes& nodes);

// Whether every job and generator of the resolved scenario `s` could ever start under
// `scheduler`'s quotas: the one check resolve_scenario makes that depends on the
// scheduler section, here from the specs alone (no nodes to report at). False: loading
// the scenario with that section fails (load_scheduler_variant reloads for the error).
bool quotas_hold_every_job(const Scenario& s, const SchedulerSpec& scheduler);

}  // namespace gcsim::models
