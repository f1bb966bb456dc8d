// A training job described by its model rather than by a duration: the model (from the
// catalog or inline), precision, batch, the amount of work, the parallelism plan, the
// optimizer and the dataset. parse_training() reads these keys from a job's map; the
// step-time (step_time.hpp) and memory (memory_fit.hpp) models take the result.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/gpu/gpu_spec.hpp"
#include "models/workload/model_catalog.hpp"
#include "sim/config/key_table.hpp"
#include "sim/config/reader.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {

// The keys of a model job's `dataset:` map (it may also be a catalog name) and of its
// `parallelism:` map, as read_dataset and read_parallelism read them (docs/step-time.md).
// The typed keys of a model job that parse_training reads from the job's own map (the job
// reader's JOB_KEYS holds them, in this order; models/config/workload_reader.hpp).
inline constexpr config::KeySpec TRAINING_JOB_KEYS[] = {
    {.name = "seq_len", .type = "integer", .default_value = "the model's",
     .range = "at most the model's `max_seq_len`", .help = "tokens per sample (transformer model jobs)",
     .kind = config::KeyKind::Integer, .min = 1, .max = 1 << 24},
    {.name = "batch_per_gpu", .type = "integer", .help = "samples per GPU per micro-batch (model jobs; required there)",
     .kind = config::KeyKind::Integer, .min = 1, .max = 1 << 24},
    {.name = "grad_accum", .type = "integer", .help = "micro-batches per optimizer step (model jobs)",
     .kind = config::KeyKind::Integer, .min = 1, .max = 1 << 20, .has_default = true, .default_number = 1},
    {.name = "samples", .type = "count", .help = "the amount of work in samples (model jobs)",
     .kind = config::KeyKind::Number, .min = 0, .above_min = true, .below_min = "must be greater than zero"},
    {.name = "epochs", .type = "number", .help = "the amount of work in epochs of the dataset (model jobs)",
     .kind = config::KeyKind::Number, .min = 0, .above_min = true, .below_min = "must be greater than zero"},
    {.name = "tokens", .type = "count", .help = "the amount of work in tokens (model jobs)",
     .kind = config::KeyKind::Number, .min = 0, .above_min = true, .below_min = "must be greater than zero"},
};
inline constexpr const config::KeySpec& SEQ_LEN_KEY = TRAINING_JOB_KEYS[0];
inline constexpr const config::KeySpec& BATCH_PER_GPU_KEY = TRAINING_JOB_KEYS[1];
inline constexpr const config::KeySpec& GRAD_ACCUM_KEY = TRAINING_JOB_KEYS[2];
inline constexpr const config::KeySpec& SAMPLES_KEY = TRAINING_JOB_KEYS[3];
inline constexpr const config::KeySpec& EPOCHS_KEY = TRAINING_JOB_KEYS[4];
inline constexpr const config::KeySpec& TOKENS_KEY = TRAINING_JOB_KEYS[5];

inline constexpr config::KeySpec DATASET_KEYS[] = {
    {"name", "text", "", true, "", "a catalog dataset, whose figures the other keys override, or the job's own label"},
    {.name = "samples", .type = "count", .default_value = "the catalog's, else unknown", .help = "samples in one epoch",
     .kind = config::KeyKind::Number, .min = 0, .above_min = true, .below_min = "must be greater than zero"},
    {.name = "size", .type = "bytes", .default_value = "the catalog's, else samples × the model's input bytes",
     .help = "the dataset's size", .kind = config::KeyKind::Bytes},
    {.name = "file_size", .type = "bytes", .default_value = "the catalog's, else one sample's input bytes",
     .help = "the size of one file read", .kind = config::KeyKind::Bytes},
    {"tier", "a name from `storage.tiers`", "none: storage not modelled", false, "", "the storage tier the data is read from"},
    {"access", "`stream` | `stage`", "`stream`", false, "", "read from the tier every epoch, or copy to local NVMe first"},
};
inline constexpr config::KeySpec PARALLELISM_KEYS[] = {
    {.name = "data", .type = "integer", .default_value = "gpus ÷ (tensor × pipeline)",
     .range = "data × tensor × pipeline = gpus", .help = "data-parallel degree (replicas)",
     .kind = config::KeyKind::Integer, .min = 1, .max = 1 << 20},
    {.name = "tensor", .type = "integer", .help = "tensor (intra-layer) parallel degree", .kind = config::KeyKind::Integer,
     .min = 1, .max = 1 << 16, .has_default = true, .default_number = 1},
    {.name = "pipeline", .type = "integer", .help = "pipeline stages", .kind = config::KeyKind::Integer, .min = 1,
     .max = 1 << 16, .has_default = true, .default_number = 1},
    {.name = "zero", .type = "integer",
     .help = "ZeRO stage: 1 optimizer state, 2 + gradients, 3 + weights sharded over data",
     .kind = config::KeyKind::Integer, .min = 0, .max = 3, .has_default = true, .default_number = 0},
};

enum class Optimizer { Adam, Sgd };
std::string_view optimizer_name(Optimizer o);

struct ParallelismSpec {
  int data = 1;        // data-parallel degree (replicas); gpus / (tensor · pipeline) by default
  int tensor = 1;      // tensor (intra-layer) parallel degree
  int pipeline = 1;    // pipeline stages
  int zero_stage = 0;  // 0: none; 1: optimizer state, 2: + gradients, 3: + weights sharded over data
};

// Where a job's data comes from, and whether it is staged to local NVMe first.
enum class DataAccess { Stream, Stage };

struct DatasetRef {
  std::string name;           // catalog name or the job's own label; "" when none given
  double samples = 0;         // 0 = unknown
  double bytes = 0;           // 0 = samples · model input bytes
  double file_bytes = 0;      // 0 = per-sample input bytes
  std::string tier;           // storage tier name; "" = not modelled (no storage limit)
  DataAccess access = DataAccess::Stream;
};

// How the samples are decoded: on the CPU (PyTorch DataLoader, PIL) or mostly on the GPU
// (NVIDIA DALI "mixed": entropy decoding on the CPU, the rest on the GPU).
enum class Decode { Cpu, Gpu };

struct TrainingSpec {
  ModelSpec model;
  int seq_len = 0;                 // 0 = the model's default (or none)
  Precision precision = Precision::Fp32;
  int batch_per_gpu = 1;           // micro-batch per GPU (per data-parallel replica)
  int grad_accum = 1;              // micro-batches per optimizer step
  int gpus = 1;
  ParallelismSpec parallel;
  Optimizer optimizer = Optimizer::Adam;
  Decode decode = Decode::Cpu;
  std::optional<DatasetRef> dataset;
  double total_samples = 0;        // the amount of work, resolved to samples
  // Multiplies the modelled compute parts of a step (tensor, memory, optimizer, launch):
  // the model's anchor residual, measured / modelled on the anchor's GPU
  // (anchor_compute_scale() in step_time.hpp); 1 = the roofline alone.
  double compute_scale = 1;

  ModelFigures figures() const { return resolve(model, seq_len); }
  // Samples per step of the whole job (all data-parallel replicas, one micro-batch each).
  double samples_per_step() const { return static_cast<double>(batch_per_gpu) * parallel.data; }
  // Samples in one epoch: the dataset's, or the job's total when no dataset size is known.
  double epoch_samples() const;
};

// Keys read from a job's map (the caller reads name, submit and gpus, and calls finish()):
//   model          catalog name, or an inline entry {name, forward_flop | transformer, ...}
//   seq_len        tokens per sample (transformer models only)
//   precision      fp32 | tf32 | amp | fp16 | bf16 | fp8
//   batch_per_gpu  micro-batch per GPU
//   grad_accum     micro-batches per optimizer step (default 1)
//   samples | epochs | tokens   the amount of work (exactly one); epochs needs a dataset
//                  with a sample count
//   dataset        catalog name or {name, samples, size, file_size, tier, access: stream|stage}
//   parallelism    {data, tensor, pipeline, zero: 0-3}; data defaults to gpus/(tensor·pipeline)
//   optimizer      adam (default, also adamw) | sgd
//   decode         cpu (default) | gpu (DALI)
// Throws ConfigError (MissingKey, Conflict, UnknownName, OutOfRange...) at the offending key.
// Sets compute_scale from the model's anchor that matches the job, if any.
TrainingSpec parse_training(config::MapReader& job, const ModelCatalog& catalog, int gpus);

}  // namespace gcsim::models
