// `workload.services` (docs/serving.md, "Keys"): the key tables, which are the reference
// for docs/scenario-reference.md (`workload.services[i]` and below), and the reader. What
// needs the cluster (the `gpu` names, a replica that fits no node type) is checked by the
// resolve step (scenario_resolve.cpp), at the nodes the reader keeps.
#pragma once

#include "models/config/calendar_reader.hpp"
#include "models/serving/service_spec.hpp"
#include "models/workload/model_catalog.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"
#include "sim/config/source_resolver.hpp"

namespace gcsim::models {

inline constexpr config::KeySpec SERVICE_KEYS[] = {
    {"name", "text, unique", "", true, "", "the service; its replicas are the jobs `<name>/r<k>`"},
    {"team", "text", "none", false, "", "who pays for its replicas (as the job key)"},
    {"model", "model-catalog name", "", false, "",
     "what a replica runs (one of model, latency); an LLM (a transformer with a vocabulary) has tokens"},
    {"precision", "`fp32` `tf32` `fp16` `amp` `bf16` `fp8`", "`fp16`", false, "", "the model's precision (with model)"},
    {"latency", "duration, or a distribution of durations", "", false, ">= 0",
     "the time of one batch, whatever its size, instead of a model (drawn once per batch)"},
    {"requests", "map", "", true, "", "the request stream, below"},
    {"batching", "map", "`{mode: dynamic, max_batch: 1}`", false, "", "how requests are grouped, below"},
    {"replicas", "map", "`{count: 1, gpus: 1}`", false, "", "the replicas, each a job on the cluster, below"},
    {"slo", "map", "none", false, "", "per-request latency targets, below"},
    {"gpu", "GPU name, or a list of them", "any", false, "", "the GPU models a replica accepts (as the job key)"},
    {.name = "gpu_milli", .type = "integer",
     .help = "a one-GPU replica's share of its GPU in thousandths (as the job key)", .kind = config::KeyKind::Integer,
     .min = 1, .max = 1000, .has_default = true, .default_number = 1000},
    {.name = "priority", .type = "integer", .help = "its replicas' class for `policy: priority` (as the job key)",
     .kind = config::KeyKind::Integer, .min = -1000, .max = 1000, .has_default = true, .default_number = 0},
    {"cold_start", "duration, or a map `{image, model, fixed}`", "`0s`", false, ">= 0",
     "from a replica's start on its GPUs to its first batch: a fixed time, or an image pull and a model load priced "
     "on storage tiers, below"},
};

// `cold_start` as a map (docs/serving.md, "Cold start").
inline constexpr config::KeySpec SERVICE_COLD_START_KEYS[] = {
    {"image", "map `{size, tier}`", "none", false, "",
     "the container image, pulled from a tier on a replica's start on a node that does not have it yet, below"},
    {"model", "map `{tier, size}`", "none", false, "", "the weights, loaded from a tier on every start, below"},
    {.name = "fixed", .type = "duration", .help = "process start, CUDA context, warm-up: on every start",
     .kind = config::KeyKind::Duration, .min = 0, .has_default = true, .default_number = 0},
};
inline constexpr config::KeySpec SERVICE_COLD_START_IMAGE_KEYS[] = {
    {.name = "size", .type = "bytes", .required = true, .help = "the image's size", .kind = config::KeyKind::Bytes},
    {"tier", "a name from `storage.tiers`", "", true, "", "the tier it is pulled from"},
};
inline constexpr config::KeySpec SERVICE_COLD_START_MODEL_KEYS[] = {
    {"tier", "a name from `storage.tiers`", "", true, "", "the tier the weights are read from"},
    {.name = "size", .type = "bytes", .default_value = "the model's weights",
     .range = "required with `latency`",
     .help = "the weights' size; default the catalog model's parameters × bytes of the precision",
     .kind = config::KeyKind::Bytes},
};

inline constexpr config::KeySpec SERVICE_REQUEST_KEYS[] = {
    {"arrival", "distribution of durations", "one of `arrival`, `trace`", false, "not always 0",
     "time between consecutive requests (`{dist: exponential, mean: 25ms}`: Poisson arrivals)"},
    {"trace", "CSV file `arrival_s[,prompt_tokens,output_tokens]`", "one of `arrival`, `trace`", false,
     "times >= 0, in order; tokens >= 1",
     "the requests of a file instead of `arrival`: each one's arrival in seconds from the run's start, and with an LLM its "
     "tokens (docs/serving.md)"},
    {"profile", "CSV file `hour,multiplier`, or map `{windows, otherwise}`", "none", false,
     "CSV: 168 or 24 rows, >= 0; not all 0",
     "a rate multiplier over the week: arrivals thinned by it (docs/serving.md)"},
    {"prompt_tokens", "distribution, rounded to an integer", "", false, ">= 1",
     "each request's prompt (required with an LLM, refused otherwise)"},
    {"output_tokens", "distribution, rounded to an integer", "", false, ">= 1",
     "each request's output (required with an LLM, refused otherwise)"},
};

// `requests.profile` in the calendar's form: windows of the week with their rates.
inline constexpr config::KeySpec SERVICE_PROFILE_KEYS[] = {
    {"windows", "list of maps", "", true, "at least one",
     "the windows of the week and their rates; where several hold, the first listed wins"},
    {.name = "otherwise", .type = "number", .help = "the multiplier outside every window",
     .kind = config::KeyKind::Number, .min = 0, .has_default = true, .default_number = 1},
};
inline constexpr config::KeySpec SERVICE_PROFILE_WINDOW_KEYS[] = {
    DAYS_KEY,
    HOURS_KEY,
    {.name = "rate", .type = "number", .required = true, .help = "the multiplier of the arrival rate in the window",
     .kind = config::KeyKind::Number, .min = 0},
};

inline constexpr config::KeySpec SERVICE_BATCHING_KEYS[] = {
    {"mode", "`dynamic` | `continuous`", "`dynamic`", false, "`continuous`: an LLM only",
     "dynamic: a replica serves one batch at a time; continuous: requests join and leave the running batch at each "
     "iteration (Orca, vLLM)"},
    {.name = "max_batch", .type = "integer", .help = "the most requests in one batch", .kind = config::KeyKind::Integer,
     .min = 1, .max = 1 << 20, .has_default = true, .default_number = 1},
    {.name = "max_wait", .type = "duration", .range = "dynamic only",
     .help = "a batch starts when `max_batch` requests wait or the oldest has waited this long (0: at once)",
     .kind = config::KeyKind::Duration, .min = 0, .has_default = true, .default_number = 0},
    {.name = "max_tokens", .type = "integer", .default_value = "no cap", .range = "continuous only",
     .help = "the tokens of one iteration: prompts joining + one per running request",
     .kind = config::KeyKind::Integer, .min = 1, .max = 1 << 30},
};

inline constexpr config::KeySpec SERVICE_REPLICA_KEYS[] = {
    {.name = "count", .type = "integer", .default_value = "1 (without min, max)", .range = "not with min, max",
     .help = "replicas, fixed", .kind = config::KeyKind::Integer, .min = 0, .max = 1 << 16},
    {.name = "min", .type = "integer", .range = "with max; not with count",
     .help = "the fewest replicas (and those at the start)", .kind = config::KeyKind::Integer, .min = 0, .max = 1 << 16},
    {.name = "max", .type = "integer", .range = "at least min and 1; not with count", .help = "the most replicas",
     .kind = config::KeyKind::Integer, .min = 1, .max = 1 << 16},
    {.name = "gpus", .type = "integer", .help = "GPUs of one replica (on one node)", .kind = config::KeyKind::Integer,
     .min = 1, .max = 1 << 10, .has_default = true, .default_number = 1},
    {"autoscale", "`{when, for}`", "none", false, "with min, max", "one replica out or in on a trigger, below"},
};

inline constexpr config::KeySpec SERVICE_AUTOSCALE_KEYS[] = {
    {"when", "expression", "", true, "`queue_length > N`, `utilization > P%`",
     "scale out while it holds for `for`; in when the queue is empty and utilization is below half of the threshold"},
    {.name = "for", .type = "duration", .help = "how long the trigger must hold before one replica is added or removed",
     .kind = config::KeyKind::Duration, .min = 0, .has_default = true, .default_number = 0},
};

inline constexpr config::KeySpec SERVICE_SLO_KEYS[] = {
    {.name = "p99", .type = "duration", .default_value = "none", .help = "each request's end-to-end latency at most this",
     .kind = config::KeyKind::Duration, .min = 1},
    {.name = "ttft_p99", .type = "duration", .default_value = "none", .range = "an LLM only",
     .help = "each request's time to first token at most this", .kind = config::KeyKind::Duration, .min = 1},
    {.name = "tpot_p99", .type = "duration", .default_value = "none", .range = "an LLM only",
     .help = "each request's time per output token after the first at most this", .kind = config::KeyKind::Duration,
     .min = 1},
};

// Reads one `workload.services[i]`; its model is looked up in `models`, a profile's file
// read through `sources`.
serving::ServiceSpec read_service(const config::ConfigNode& node, const ModelCatalog& models, config::SourceResolver& sources);

}  // namespace gcsim::models
