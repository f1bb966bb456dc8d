// Reading model catalogs and deriving per-sample figures. Transformer figures follow
// Narayanan et al. 2021 (FLOPs, eq. 2-3), Kaplan et al. 2020 (6·N·tokens) and Korthikanti
// et al. 2022 (activation memory, eq. 1); see model_catalog.hpp and docs/step-time.md.
#include "models/workload/model_catalog.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

#include "sim/check.hpp"
#include "sim/config/reader.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {
namespace {

using config::ConfigNode;
using config::MapReader;

double read_nonnegative_bytes(const ConfigNode& n) {
  if (n.is_scalar() && !n.quoted() && n.scalar() == "0") return 0;
  return config::read_bytes(n);
}

TransformerShape parse_shape(const ConfigNode& node) {
  MapReader r(node, TRANSFORMER_KEYS);
  TransformerShape t;
  t.layers = static_cast<int>(r.need<std::int64_t>("layers"));
  t.hidden = static_cast<int>(r.need<std::int64_t>("hidden"));
  t.heads = static_cast<int>(r.need<std::int64_t>("heads"));
  if (t.hidden % t.heads != 0) r.where("heads")->fail(ErrorCode::Conflict, "hidden must be a multiple of heads");
  if (const std::optional<std::int64_t> kv = r.get<std::int64_t>("kv_heads")) {
    t.kv_heads = static_cast<int>(*kv);
    if (t.kv_heads > t.heads || t.heads % t.kv_heads != 0)
      r.where("kv_heads")->fail(ErrorCode::Conflict, "kv_heads must divide heads (each key/value head serves a group of "
                                                     "query heads)");
  } else {
    t.kv_heads = t.heads;
  }
  if (const ConfigNode* mlp = r.optional("mlp"))
    t.mlp = config::read_enum(*mlp, {"plain", "gated"}) == "gated" ? MlpForm::Gated : MlpForm::Plain;
  t.tie_embeddings = r.value<bool>("tie_embeddings");
  if (const ConfigNode* attention = r.optional("attention"))
    t.causal = config::read_enum(*attention, {"causal", "bidirectional"}) == "causal";
  t.ffn = static_cast<int>(r.get<std::int64_t>("ffn").value_or(4 * std::int64_t{t.hidden}));
  t.vocab = static_cast<int>(r.value<std::int64_t>("vocab"));
  t.seq_len = static_cast<int>(r.need<std::int64_t>("seq_len"));
  if (const std::optional<std::int64_t> m = r.get<std::int64_t>("max_seq_len")) {
    t.max_seq_len = static_cast<int>(*m);
    if (t.max_seq_len < t.seq_len) r.where("max_seq_len")->fail(ErrorCode::OutOfRange, "max_seq_len is below seq_len");
  }
  t.head_token_fraction = r.value<double>("head_token_fraction");
  t.extra_forward_flop = r.value<double>("extra_forward_flop");
  t.extra_params = r.value<double>("extra_params");
  r.finish();
  return t;
}

template <class T>
bool names_entry(const T& e, std::string_view name) {
  if (e.name == name) return true;
  if constexpr (requires { e.aliases; }) {
    return std::find(e.aliases.begin(), e.aliases.end(), name) != e.aliases.end();
  }
  return false;
}

template <class T>
void replace_or_append(std::vector<T>& entries, T spec) {
  auto it = std::find_if(entries.begin(), entries.end(), [&](const T& e) { return e.name == spec.name; });
  if (it != entries.end()) {
    *it = std::move(spec);
  } else {
    entries.push_back(std::move(spec));
  }
}

ModelAnchor parse_anchor(const ConfigNode& node, const ModelSpec& m, const GpuCatalog& gpus) {
  MapReader r(node, ANCHOR_KEYS);
  ModelAnchor a;
  const ConfigNode& gpu = r.required("gpu");
  const std::string name = config::read_string(gpu);
  const GpuSpec* g = gpus.find(name);
  if (g == nullptr) {
    const std::string hint = did_you_mean(name, gpus.all_names());
    gpu.fail(ErrorCode::UnknownName,
             "unknown GPU '" + name + "'" + (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
  }
  // The figures, not the citations: every job of the model carries a copy of its anchors.
  a.gpu = *g;
  a.gpu.aliases.clear();
  a.gpu.sources.clear();
  a.gpu.notes.clear();
  a.gpus = static_cast<int>(r.value<std::int64_t>("gpus"));
  a.gpus_per_node = static_cast<int>(r.value<std::int64_t>("gpus_per_node"));
  a.host_cores = static_cast<int>(r.value<std::int64_t>("host_cores"));
  const ConfigNode& precision = r.required("precision");
  a.precision = parse_precision(config::read_enum(precision, precision_names()));
  if (!a.gpu.supports(a.precision))
    precision.fail(ErrorCode::Conflict,
                   "GPU '" + a.gpu.name + "' has no " + std::string(precision_name(a.precision)) + " peak");
  a.batch_per_gpu = static_cast<int>(r.need<std::int64_t>("batch_per_gpu"));
  a.grad_accum = static_cast<int>(r.value<std::int64_t>("grad_accum"));
  if (const ConfigNode* n = r.where("seq_len")) {
    if (!m.transformer) n->fail(ErrorCode::Conflict, "model '" + m.name + "' has no sequence length");
    a.seq_len = static_cast<int>(*r.get<std::int64_t>("seq_len"));
    if (m.transformer->max_seq_len > 0 && a.seq_len > m.transformer->max_seq_len)
      n->fail(ErrorCode::OutOfRange, "model '" + m.name + "' takes at most " +
                                         std::to_string(m.transformer->max_seq_len) + " tokens");
  }
  a.samples_per_s = r.need<double>("samples_per_s");
  a.source = config::read_string(r.required("source"));
  r.finish();
  return a;
}

// The spec of a model key: a catalog's model is read without a table (its reader declares
// each key as it reads it), a job's inline model against INLINE_MODEL_KEYS; both read a
// typed key through this one spec.
const config::KeySpec& model_key(std::string_view key) {
  const config::KeySpec* spec = config::find_key(INLINE_MODEL_KEYS, key);
  GCSIM_CHECK(spec != nullptr, "no model key '" + std::string(key) + "'");
  return *spec;
}

}  // namespace

ModelSpec parse_model(const ConfigNode& node, bool require_sources, const GpuCatalog* gpus) {
  // A job's inline model is read against its key table (a misspelt key is refused at
  // once, with a did-you-mean); `anchors` there keeps its own error.
  const bool inline_model = !require_sources;
  if (inline_model && node.is_map())
    if (const ConfigNode* list = node.find("anchors"))
      list->fail(ErrorCode::Conflict, "anchors are read from model catalog files only, not from a job's inline model");
  MapReader r = inline_model ? MapReader(node, INLINE_MODEL_KEYS) : MapReader(node);
  ModelSpec m;
  m.name = config::read_string(r.required("name"));
  if (const ConfigNode* aliases = r.optional("aliases")) {
    if (!aliases->is_sequence()) aliases->fail(ErrorCode::WrongType, "aliases must be a list of names");
    for (const ConfigNode& a : aliases->items()) m.aliases.push_back(config::read_string(a));
  }
  if (const ConfigNode* s = r.optional("sample")) m.sample_unit = config::read_string(*s);

  const ConfigNode* shape = r.optional("transformer");
  const ConfigNode* flop = r.where("forward_flop");
  if (shape && flop) flop->fail(ErrorCode::Conflict, "a transformer's FLOPs are derived from its shape; remove forward_flop");
  if (!shape && !flop)
    node.fail(ErrorCode::MissingKey, "a model needs either forward_flop (with params, memory_traffic, activations) "
                                     "or a transformer shape");
  if (shape) {
    m.transformer = parse_shape(*shape);
    m.tensor_fraction = 1;
    for (std::string_view key : {"tensor_fraction", "memory_traffic", "params", "activations", "kernels_per_step"}) {
      if (const ConfigNode* n = r.where(key))
        n->fail(ErrorCode::Conflict, std::string(key) + " is derived from the transformer shape; remove it");
    }
  } else {
    m.forward_flop_per_sample = r.need<double>(model_key("forward_flop"));
    m.tensor_fraction = r.need<double>(model_key("tensor_fraction"));
    m.memory_traffic_bytes_per_sample = read_nonnegative_bytes(r.required("memory_traffic"));
    m.params = r.need<double>(model_key("params"));
    m.activation_bytes_per_sample = r.need<double>(model_key("activations"));
    m.kernels_per_step = static_cast<int>(r.need<std::int64_t>(model_key("kernels_per_step")));
  }
  if (const ConfigNode* n = r.optional("input")) m.input_bytes_per_sample = read_nonnegative_bytes(*n);
  m.device_bytes_per_sample = m.input_bytes_per_sample;
  if (const ConfigNode* n = r.optional("device_input")) m.device_bytes_per_sample = read_nonnegative_bytes(*n);
  m.cpu_decode_core_s_per_sample = r.value<sim::SimTime>(model_key("cpu_decode")).seconds();
  if (require_sources) {
    m.sources = config::read_string(r.required("sources"));
  } else if (const ConfigNode* s = r.optional("sources")) {
    m.sources = config::read_string(*s);
  }
  if (const ConfigNode* s = r.optional("notes")) m.notes = config::read_string(*s);
  if (const ConfigNode* list = r.optional("anchors")) {
    if (gpus == nullptr)
      list->fail(ErrorCode::Conflict, "anchors are read from model catalog files only, not from a job's inline model");
    if (!list->is_sequence()) list->fail(ErrorCode::WrongType, "anchors must be a list of measured runs");
    for (const ConfigNode& item : list->items()) m.anchors.push_back(parse_anchor(item, m, *gpus));
  }
  r.finish();
  return m;
}

DatasetSpec parse_dataset(const ConfigNode& node, bool require_sources) {
  MapReader r(node);
  DatasetSpec d;
  d.name = config::read_string(r.required("name"));
  d.samples = config::read_positive(r.required("samples"));
  d.bytes = config::read_bytes(r.required("size"));
  d.file_bytes = d.bytes / d.samples;
  if (const ConfigNode* f = r.optional("file_size")) d.file_bytes = config::read_bytes(*f);
  if (require_sources) {
    d.sources = config::read_string(r.required("sources"));
  } else if (const ConfigNode* s = r.optional("sources")) {
    d.sources = config::read_string(*s);
  }
  r.finish();
  return d;
}

ModelFigures resolve(const ModelSpec& m, int seq_len) {
  ModelFigures f;
  f.input_bytes = m.input_bytes_per_sample;
  f.device_bytes = m.device_bytes_per_sample;
  f.cpu_decode_core_s = m.cpu_decode_core_s_per_sample;
  if (!m.transformer) {
    if (seq_len != 0) throw std::invalid_argument("model '" + m.name + "' has no sequence length");
    f.forward_flop = m.forward_flop_per_sample;
    f.tensor_fraction = m.tensor_fraction;
    f.memory_traffic_bytes = m.memory_traffic_bytes_per_sample;
    f.params = m.params;
    f.activation_bytes = m.activation_bytes_per_sample;
    f.kernels_per_step = m.kernels_per_step;
    return f;
  }
  const TransformerShape& t = *m.transformer;
  const int s_int = seq_len == 0 ? t.seq_len : seq_len;
  if (t.max_seq_len > 0 && s_int > t.max_seq_len)
    throw std::invalid_argument("model '" + m.name + "' takes at most " + std::to_string(t.max_seq_len) + " tokens");
  const double s = s_int;
  const double h = t.hidden;
  const double L = t.layers;
  const double a = t.heads;
  const double ffn = t.ffn;
  const double V = t.vocab;
  // The share of K and V heads (grouped-query attention: kv/a of the query heads) and the
  // MLP's matrices (2 plain, 3 gated).
  const double g = static_cast<double>(t.kv_heads_or_heads()) / t.heads;
  const double mlp_mats = t.mlp == MlpForm::Gated ? 3 : 2;
  // Per layer, forward: Q and output projections 4sh², K and V 4sh²·g, attention 4s²h,
  // MLP 2·m·s·h·ffn (with g = 1, m = 2: 8sh² + 4s²h + 4shf, Narayanan et al. 2021).
  const double layer_flop = 4 * s * h * h * (1 + g) + 4 * s * s * h + 2 * mlp_mats * s * h * ffn;
  const double head_flop = 2 * s * h * V * t.head_token_fraction;
  f.forward_flop = L * layer_flop + head_flop + t.extra_forward_flop;
  f.tensor_fraction = 1;  // the elementwise work is in memory_traffic; its FLOPs are negligible
  // Parameters: the layers' matrices, 9h + ffn biases/norms per layer (a GPT layer: 12h² + 13h
  // in all; a LLaMA layer has only its 2h norm weights, an over-count below 0.03%), the token
  // embedding, and an untied LM head of its own.
  f.params = t.layer_matmul_params() + L * (9 * h + ffn) + V * h * (t.tie_embeddings ? 1 : 2) + t.extra_params;
  // 2-byte elements; backward ≈ 2× forward accesses -> 3×.
  f.memory_traffic_bytes =
      3 * 2 * L * s * (TRANSFORMER_ACCESSES_PER_HIDDEN * h + TRANSFORMER_ACCESSES_PER_SCORE * a * s);
  // Korthikanti et al. 2022 eq. 1 (fp16 activations, 1-byte dropout masks): 34 = 18 outside
  // the MLP's ffn-wide tensors + 16 for the two of them at ffn = 4h (2 bytes · ffn / h each;
  // a gated MLP keeps three), less 2 bytes · (1 − g) for each of K and V under GQA.
  const double mlp_tensors = t.mlp == MlpForm::Gated ? 3 : 2;
  f.activation_bytes = L * s * h * (18 + 2 * mlp_tensors * ffn / h - 4 * (1 - g) + 5 * a * s / h);
  f.kernels_per_step = TRANSFORMER_KERNELS_PER_LAYER * t.layers + TRANSFORMER_KERNELS_FIXED;
  f.seq_len = s_int;
  f.tokens = s;
  // Input figures are per sample at the default length; tokens scale them.
  const double scale = s / t.seq_len;
  f.input_bytes *= scale;
  f.device_bytes *= scale;
  f.cpu_decode_core_s *= scale;
  return f;
}

double TransformerShape::layer_matmul_params() const {
  const double h = hidden;
  const double kv_width = static_cast<double>(kv_heads_or_heads()) * head_dim();
  const double mlp_mats = mlp == MlpForm::Gated ? 3 : 2;
  return static_cast<double>(layers) * (2 * h * h + 2 * h * kv_width + mlp_mats * h * ffn);
}

void ModelCatalog::add_from(const ConfigNode& root, const GpuCatalog* gpus) {
  MapReader top(root);
  const ConfigNode* models = top.optional("models");
  const ConfigNode* datasets = top.optional("datasets");
  top.finish();

  std::vector<ModelSpec> parsed_models;
  std::map<std::string, const ConfigNode*, std::less<>> seen;  // names in this file
  if (models) {
    if (!models->is_sequence()) models->fail(ErrorCode::WrongType, "models must be a list of model entries");
    for (const ConfigNode& item : models->items()) {
      ModelSpec m = parse_model(item, true, gpus);
      std::vector<std::string> keys = m.aliases;
      keys.insert(keys.begin(), m.name);
      for (std::size_t i = 0; i < keys.size(); ++i) {
        const ConfigNode& at = i == 0 ? *item.find("name") : item.find("aliases")->at(i - 1);
        if (!seen.emplace(keys[i], &at).second)
          at.fail(ErrorCode::Duplicate, "model name '" + keys[i] + "' is already used in this file");
        for (const ModelSpec& existing : models_) {
          if (existing.name != m.name && names_entry(existing, keys[i]))
            at.fail(ErrorCode::Duplicate, "'" + keys[i] + "' already names model '" + existing.name + "'");
        }
      }
      parsed_models.push_back(std::move(m));
    }
  }
  std::vector<DatasetSpec> parsed_datasets;
  if (datasets) {
    if (!datasets->is_sequence()) datasets->fail(ErrorCode::WrongType, "datasets must be a list of dataset entries");
    std::map<std::string, int, std::less<>> names;
    for (const ConfigNode& item : datasets->items()) {
      DatasetSpec d = parse_dataset(item, true);
      if (!names.emplace(d.name, 0).second)
        item.find("name")->fail(ErrorCode::Duplicate, "dataset '" + d.name + "' is already defined in this file");
      parsed_datasets.push_back(std::move(d));
    }
  }
  for (ModelSpec& m : parsed_models) replace_or_append(models_, std::move(m));
  for (DatasetSpec& d : parsed_datasets) replace_or_append(datasets_, std::move(d));
}

const ModelSpec* ModelCatalog::find_model(std::string_view name) const {
  for (const ModelSpec& m : models_)
    if (names_entry(m, name)) return &m;
  return nullptr;
}

const DatasetSpec* ModelCatalog::find_dataset(std::string_view name) const {
  for (const DatasetSpec& d : datasets_)
    if (d.name == name) return &d;
  return nullptr;
}

std::vector<std::string> ModelCatalog::model_names() const {
  std::vector<std::string> out;
  for (const ModelSpec& m : models_) {
    out.push_back(m.name);
    out.insert(out.end(), m.aliases.begin(), m.aliases.end());
  }
  return out;
}

std::vector<std::string> ModelCatalog::dataset_names() const {
  std::vector<std::string> out;
  for (const DatasetSpec& d : datasets_) out.push_back(d.name);
  return out;
}

ModelCatalog load_bundled_model_catalog(const std::string& catalog_dir) {
  GpuCatalog gpus;
  gpus.add_from(config::load_yaml_file((std::filesystem::path(catalog_dir) / "gpus.yaml").string()).root);
  ModelCatalog catalog;
  catalog.add_from(config::load_yaml_file((std::filesystem::path(catalog_dir) / "models.yaml").string()).root, &gpus);
  return catalog;
}

}  // namespace gcsim::models
