// A service as a scenario describes it (`workload.services[i]`; docs/serving.md, "Keys"):
// its requests (arrivals, token counts), what one batch costs (a fixed or drawn latency, or
// a catalog model), how requests are batched, its replicas (placed on the cluster as jobs)
// and its latency targets. Read by models/config/service_reader.cpp, run by the serving part
// (models/services/service_part.*).
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/gpu/gpu_spec.hpp"
#include "models/workload/distribution.hpp"
#include "models/workload/model_catalog.hpp"
#include "sim/errors.hpp"
#include "sim/time.hpp"

namespace gcsim::models::serving {

enum class BatchingMode : std::uint8_t { Dynamic, Continuous };

struct BatchingSpec {
  BatchingMode mode = BatchingMode::Dynamic;
  int max_batch = 1;
  // Dynamic: a batch starts when `max_batch` requests wait or the oldest has waited this
  // long (0: at once, with what is queued).
  sim::SimTime max_wait = sim::SimTime::zero();
  // Continuous: the tokens of one iteration (new prompts + one per running request); 0: no cap.
  std::int64_t max_tokens = 0;
};

// `replicas.autoscale`: one replica out when `when` holds for `for` (docs/serving.md).
struct ReplicaAutoscaleSpec {
  // The requests waiting; the busy fraction of the replicas up; the mean over the replicas
  // up of the share of their GPU memory in use (weights, working memory, the KV cache in
  // use), and of their KV cache in use (an LLM).
  enum class Measure : std::uint8_t { QueueLength, Utilization, Memory, KvCache };
  Measure measure = Measure::QueueLength;
  double threshold = 0;  // requests (queue_length) or a fraction 0..1 (the others)
  sim::SimTime hold = sim::SimTime::zero();
  std::string text;      // as written
};

struct ReplicasSpec {
  int count = 1;  // at the start (`count`, or `min`)
  int min = 1;
  int max = 1;
  int gpus = 1;
  std::int16_t gpu_milli = 1000;
  std::optional<ReplicaAutoscaleSpec> autoscale;
};

// Per-request latency targets (NaN: not set). A request meets the SLO when each set target
// bounds its own end-to-end, TTFT and TPOT.
struct SloSpec {
  double p99_s = std::numeric_limits<double>::quiet_NaN();
  double ttft_p99_s = std::numeric_limits<double>::quiet_NaN();
  double tpot_p99_s = std::numeric_limits<double>::quiet_NaN();
};

// One request of a `requests.trace` file: its arrival, and its tokens (0: the file has no
// token columns; they are drawn from prompt_tokens / output_tokens).
struct TraceRequest {
  sim::SimTime arrival;
  std::int32_t prompt = 0;
  std::int32_t output = 0;
};

// One read of a cold start (`cold_start.image`, `cold_start.model`): `bytes` from a tier of
// the scenario's `storage:` section, priced by the resolve step (scenario_resolve.cpp) as a
// checkpoint restore is: retrieval delay + bytes / read throughput, one reader alone on the
// tier (models/storage/checkpoint_io.hpp; docs/storage.md).
struct ColdStartRead {
  std::string tier;    // empty: none
  double bytes = 0;    // `size`; 0 for a model read: the catalog model's weights (set at resolve)
  sim::SimTime time = sim::SimTime::zero();  // set at resolve
  bool empty() const { return tier.empty(); }
};

// `cold_start` (docs/serving.md, "Cold start"): from a replica's start on its GPUs to its
// first batch. A duration is `fixed` alone.
struct ColdStartSpec {
  sim::SimTime fixed = sim::SimTime::zero();  // process start, CUDA context, warm-up
  ColdStartRead image;  // the container image: pulled once per node (cached there after)
  ColdStartRead model;  // the weights: loaded on every start
  // fixed + (pull, unless the image is on the node) + load.
  sim::SimTime time(bool image_on_node) const { return fixed + (image_on_node ? sim::SimTime::zero() : image.time) + model.time; }
};

struct ServiceSpec {
  std::string name;
  std::string team;  // empty: none
  int team_index = -1;  // into WorkloadSpec::teams
  // Exactly one of `latency` and `model`.
  std::optional<Distribution> latency;  // seconds per batch
  std::string model;                     // a model-catalog name (canonical)
  std::shared_ptr<const ModelSpec> model_spec;  // its catalog entry (with `model`)
  bool model_tokens = false;             // the model is an LLM (TransformerShape::llm(): a decoder with a vocabulary)
  Precision precision = Precision::Fp16;
  // Requests.
  Distribution arrival;                  // seconds between arrivals
  // `requests.profile`: a rate multiplier over the week, piecewise constant: step i holds
  // from its `from_ns` (ns from Monday 00:00; the first at 0, increasing, each different
  // from the one before) to the next step's (the last to the week's end). Empty: none.
  // The CSV form gives a step per hour, the calendar form one per change of its windows,
  // to the minute; its largest value thins the arrivals (ServingController::next_after).
  struct ProfileStep {
    std::int64_t from_ns = 0;
    double rate = 1;
  };
  std::vector<ProfileStep> profile;
  double profile_max = 0;
  // The profile's multiplier at `week_ns` (0 <= week_ns < one week). Not empty.
  double profile_rate(std::int64_t week_ns) const {
    const auto after = std::upper_bound(profile.begin(), profile.end(), week_ns,
                                        [](std::int64_t t, const ProfileStep& p) { return t < p.from_ns; });
    return std::prev(after)->rate;
  }
  // `requests.trace`: the requests of a file, in arrival order, instead of `arrival` (and
  // `profile`); null: none. Shared, read-only: runs of one scenario share it.
  std::shared_ptr<const std::vector<TraceRequest>> trace;
  bool trace_tokens = false;             // the file gives each request's tokens
  std::optional<Distribution> prompt_tokens;  // whole numbers >= 1 (an LLM)
  std::optional<Distribution> output_tokens;
  BatchingSpec batching;
  ReplicasSpec replicas;
  SloSpec slo;
  // Placement of a replica as a job.
  std::vector<std::string> gpu_types;    // the GPU models it accepts; empty: any
  std::uint64_t node_type_mask = ~std::uint64_t{0};  // resolved against the cluster
  std::int16_t priority = 0;
  ColdStartSpec cold_start;
  SourceMark mark;
  std::string path;  // "workload.services[i]"
};

}  // namespace gcsim::models::serving
