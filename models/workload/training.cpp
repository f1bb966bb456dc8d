// Parsing a model-based training job (see training.hpp). Every inconsistency a user can
// write (two amounts of work, a parallel plan that does not multiply to the GPUs, a
// sequence length on a CNN) is refused here with the key that causes it.
#include "models/workload/training.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "models/workload/step_time.hpp"

namespace gcsim::models {
namespace {

using config::ConfigNode;
using config::MapReader;

DatasetRef read_dataset(const ConfigNode& n, const ModelCatalog& catalog) {
  DatasetRef d;
  auto from_catalog = [&](const ConfigNode& name_node) {
    d.name = config::read_string(name_node);
    if (const DatasetSpec* known = catalog.find_dataset(d.name)) {
      d.samples = known->samples;
      d.bytes = known->bytes;
      d.file_bytes = known->file_bytes;
    }
  };
  if (n.is_scalar()) {
    from_catalog(n);
    if (d.samples == 0) {
      const std::string hint = did_you_mean(d.name, catalog.dataset_names());
      n.fail(ErrorCode::UnknownName, "unknown dataset '" + d.name + "'" +
                                         (hint.empty() ? "" : "; did you mean '" + hint + "'?") +
                                         " (give {name, samples, size} for a dataset not in the catalog)");
    }
    return d;
  }
  MapReader r(n, DATASET_KEYS);
  from_catalog(r.required("name"));
  if (const std::optional<double> s = r.get<double>("samples")) d.samples = *s;
  if (const std::optional<double> s = r.get<double>("size")) d.bytes = *s;
  if (const std::optional<double> f = r.get<double>("file_size")) d.file_bytes = *f;
  if (const ConfigNode* t = r.optional("tier")) d.tier = config::read_string(*t);
  if (const ConfigNode* a = r.optional("access"))
    d.access = config::read_enum(*a, {"stream", "stage"}) == "stage" ? DataAccess::Stage : DataAccess::Stream;
  r.finish();
  if (d.access == DataAccess::Stage && d.tier.empty())
    n.fail(ErrorCode::MissingKey, "access: stage needs the tier the data is staged from");
  return d;
}

ParallelismSpec read_parallelism(const ConfigNode* n, int gpus) {
  ParallelismSpec p;
  const ConfigNode* data = nullptr;
  if (n != nullptr) {
    MapReader r(*n, PARALLELISM_KEYS);
    data = r.where("data");
    p.tensor = static_cast<int>(r.value<std::int64_t>("tensor"));
    p.pipeline = static_cast<int>(r.value<std::int64_t>("pipeline"));
    p.zero_stage = static_cast<int>(r.value<std::int64_t>("zero"));
    if (const std::optional<std::int64_t> d = r.get<std::int64_t>("data")) p.data = static_cast<int>(*d);
    r.finish();
  }
  const int model_parallel = p.tensor * p.pipeline;
  if (data == nullptr) {
    if (gpus % model_parallel != 0)
      n->fail(ErrorCode::Conflict, "tensor x pipeline = " + std::to_string(model_parallel) + " does not divide gpus = " +
                                       std::to_string(gpus));
    p.data = gpus / model_parallel;
  } else if (p.data * model_parallel != gpus) {
    data->fail(ErrorCode::Conflict, "data x tensor x pipeline = " + std::to_string(p.data * model_parallel) +
                                        " but the job has gpus = " + std::to_string(gpus));
  }
  return p;
}

}  // namespace

std::string_view optimizer_name(Optimizer o) { return o == Optimizer::Adam ? "adam" : "sgd"; }

double TrainingSpec::epoch_samples() const {
  if (dataset && dataset->samples > 0) return dataset->samples;
  return total_samples;
}

TrainingSpec parse_training(config::MapReader& job, const ModelCatalog& catalog, int gpus) {
  TrainingSpec t;
  t.gpus = gpus;
  const ConfigNode& model = job.required("model");
  if (model.is_map()) {
    t.model = parse_model(model, false);
  } else {
    const std::string name = config::read_string(model);
    const ModelSpec* m = catalog.find_model(name);
    if (m == nullptr) {
      const std::string hint = did_you_mean(name, catalog.model_names());
      model.fail(ErrorCode::UnknownName, "unknown model '" + name + "'" +
                                             (hint.empty() ? "" : "; did you mean '" + hint + "'?") +
                                             " (scenarios/catalog/models.yaml lists them)");
    }
    t.model = *m;
  }

  if (const ConfigNode* s = job.where("seq_len")) {
    if (!t.model.transformer) s->fail(ErrorCode::Conflict, "model '" + t.model.name + "' has no sequence length");
    t.seq_len = static_cast<int>(*job.get<std::int64_t>(SEQ_LEN_KEY));
    const int max = t.model.transformer->max_seq_len;
    if (max > 0 && t.seq_len > max)
      s->fail(ErrorCode::OutOfRange, "model '" + t.model.name + "' takes at most " + std::to_string(max) + " tokens");
  }

  t.precision = parse_precision(config::read_enum(job.required("precision"), precision_names()));
  t.batch_per_gpu = static_cast<int>(job.need<std::int64_t>(BATCH_PER_GPU_KEY));
  t.grad_accum = static_cast<int>(job.value<std::int64_t>(GRAD_ACCUM_KEY));
  t.parallel = read_parallelism(job.optional("parallelism"), gpus);
  if (const ConfigNode* o = job.optional("optimizer"))
    t.optimizer = config::read_enum(*o, {"adam", "adamw", "sgd"}) == "sgd" ? Optimizer::Sgd : Optimizer::Adam;
  if (const ConfigNode* d = job.optional("decode"))
    t.decode = config::read_enum(*d, {"cpu", "gpu"}) == "gpu" ? Decode::Gpu : Decode::Cpu;
  const ConfigNode* dataset = job.optional("dataset");
  if (dataset) t.dataset = read_dataset(*dataset, catalog);

  const ConfigNode* samples = job.where("samples");
  const ConfigNode* epochs = job.where("epochs");
  const ConfigNode* tokens = job.where("tokens");
  const int given = (samples != nullptr) + (epochs != nullptr) + (tokens != nullptr);
  if (given == 0)
    job.node().fail(ErrorCode::MissingKey, "a model job needs its amount of work: samples, epochs (with a dataset) "
                                           "or tokens");
  if (given > 1) {
    const ConfigNode* second = samples ? (epochs ? epochs : tokens) : tokens;
    second->fail(ErrorCode::Conflict, "give one of samples, epochs and tokens");
  }
  if (samples) t.total_samples = *job.get<double>(SAMPLES_KEY);
  if (epochs) {
    const double e = *job.get<double>(EPOCHS_KEY);
    if (!t.dataset || t.dataset->samples <= 0)
      epochs->fail(ErrorCode::MissingKey, "epochs needs a dataset with a sample count (dataset: imagenet-1k, or "
                                          "dataset: {name: ..., samples: ...})");
    t.total_samples = e * t.dataset->samples;
  }
  if (tokens) {
    const double n = *job.get<double>(TOKENS_KEY);
    if (!t.model.transformer) tokens->fail(ErrorCode::Conflict, "model '" + t.model.name + "' has no tokens; give samples");
    t.total_samples = n / t.figures().tokens;
  }
  t.compute_scale = anchor_compute_scale(t);
  return t;
}

}  // namespace gcsim::models
