// Parsing a model-based training job (see training.hpp). Every inconsistency a user can
// write (two amounts of work, a parallel plan that does not multiply to the GPUs, a
// sequence length on a CNN) is refused here with the key that causes it.
#include "models/workload/training.hpp"

#include <cmath>
#include <limits>
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
  if (const ConfigNode* s = r.optional("samples")) d.samples = config::read_positive(*s);
  if (const ConfigNode* s = r.optional("size")) d.bytes = config::read_bytes(*s);
  if (const ConfigNode* f = r.optional("file_size")) d.file_bytes = config::read_bytes(*f);
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
    data = r.optional("data");
    if (const ConfigNode* t = r.optional("tensor")) p.tensor = static_cast<int>(config::read_int(*t, 1, 1 << 16));
    if (const ConfigNode* s = r.optional("pipeline")) p.pipeline = static_cast<int>(config::read_int(*s, 1, 1 << 16));
    if (const ConfigNode* z = r.optional("zero")) p.zero_stage = static_cast<int>(config::read_int(*z, 0, 3));
    if (data) p.data = static_cast<int>(config::read_int(*data, 1, 1 << 20));
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

  if (const ConfigNode* s = job.optional("seq_len")) {
    if (!t.model.transformer) s->fail(ErrorCode::Conflict, "model '" + t.model.name + "' has no sequence length");
    t.seq_len = static_cast<int>(config::read_int(*s, 1, 1 << 24));
    const int max = t.model.transformer->max_seq_len;
    if (max > 0 && t.seq_len > max)
      s->fail(ErrorCode::OutOfRange, "model '" + t.model.name + "' takes at most " + std::to_string(max) + " tokens");
  }

  t.precision = parse_precision(config::read_enum(job.required("precision"), precision_names()));
  t.batch_per_gpu = static_cast<int>(config::read_int(job.required("batch_per_gpu"), 1, 1 << 24));
  if (const ConfigNode* g = job.optional("grad_accum")) t.grad_accum = static_cast<int>(config::read_int(*g, 1, 1 << 20));
  t.parallel = read_parallelism(job.optional("parallelism"), gpus);
  if (const ConfigNode* o = job.optional("optimizer"))
    t.optimizer = config::read_enum(*o, {"adam", "adamw", "sgd"}) == "sgd" ? Optimizer::Sgd : Optimizer::Adam;
  if (const ConfigNode* d = job.optional("decode"))
    t.decode = config::read_enum(*d, {"cpu", "gpu"}) == "gpu" ? Decode::Gpu : Decode::Cpu;
  const ConfigNode* dataset = job.optional("dataset");
  if (dataset) t.dataset = read_dataset(*dataset, catalog);

  const ConfigNode* samples = job.optional("samples");
  const ConfigNode* epochs = job.optional("epochs");
  const ConfigNode* tokens = job.optional("tokens");
  const int given = (samples != nullptr) + (epochs != nullptr) + (tokens != nullptr);
  if (given == 0)
    job.node().fail(ErrorCode::MissingKey, "a model job needs its amount of work: samples, epochs (with a dataset) "
                                           "or tokens");
  if (given > 1) {
    const ConfigNode* second = samples ? (epochs ? epochs : tokens) : tokens;
    second->fail(ErrorCode::Conflict, "give one of samples, epochs and tokens");
  }
  if (samples) t.total_samples = config::read_positive(*samples);
  if (epochs) {
    const double e = config::read_positive(*epochs);
    if (!t.dataset || t.dataset->samples <= 0)
      epochs->fail(ErrorCode::MissingKey, "epochs needs a dataset with a sample count (dataset: imagenet-1k, or "
                                          "dataset: {name: ..., samples: ...})");
    t.total_samples = e * t.dataset->samples;
  }
  if (tokens) {
    const double n = config::read_positive(*tokens);
    if (!t.model.transformer) tokens->fail(ErrorCode::Conflict, "model '" + t.model.name + "' has no tokens; give samples");
    t.total_samples = n / t.figures().tokens;
  }
  t.compute_scale = anchor_compute_scale(t);
  return t;
}

}  // namespace gcsim::models
