// The model catalog: what one training sample of a named model costs (FLOPs, memory
// traffic, parameters, activation memory, input bytes, CPU decode), and the datasets jobs
// read. Bundled in scenarios/catalog/models.yaml; users add their own files or give the
// figures inline in a job. Format and every figure's source: docs/step-time.md.
//
// Two kinds of entry:
//  - fixed:       per-sample figures written out (CNNs: ResNet-50, YOLO).
//  - transformer: figures derived from the shape (layers, hidden, heads, seq_len, vocab),
//                 so that a sequence length chosen by the job scales them correctly:
//                 forward FLOPs per sample = L·(24·s·h² + 4·s²·h) + 2·s·h·V·f_head
//                 (Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on
//                 GPU Clusters", eq. 2-3 without recomputation; the 6·N·tokens rule of
//                 Kaplan et al. 2020 plus the attention term 12·L·h·s² per sample for fwd+bwd);
//                 activation bytes per sample = L·s·h·(34 + 5·a·s/h) at 16-bit
//                 (Korthikanti et al. 2022, "Reducing Activation Recomputation", eq. 1).
//                 An LLM's shape adds grouped-query attention (kv_heads < heads: the K and
//                 V projections are h × kv_heads·h/heads; Ainslie et al. 2023, "GQA") and
//                 a gated MLP (SwiGLU: three h × ffn matrices; Shazeer 2020, "GLU Variants
//                 Improve Transformer"); the terms above follow them (docs/step-time.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/gpu/gpu_catalog.hpp"
#include "models/gpu/gpu_spec.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/key_table.hpp"

namespace gcsim::models {

// The form of a transformer layer's MLP: two matrices (h × ffn, ffn × h) around an
// activation, or gated (SwiGLU: a gate and an up projection, h × ffn each, multiplied
// elementwise, then the ffn × h down projection; LLaMA, Mistral).
enum class MlpForm : std::uint8_t { Plain, Gated };

// Shape of a transformer (encoder or decoder: the FLOP accounting is the same).
struct TransformerShape {
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;                 // key/value heads (grouped-query attention); 0: = heads
  MlpForm mlp = MlpForm::Plain;
  bool tie_embeddings = true;       // the LM head reuses the token embedding (GPT-2, BERT)
  // Causal (a decoder: GPT, LLaMA) or bidirectional (an encoder: BERT, ViT) self-attention.
  // The FLOP accounting is the same; serving prices a decoder with a vocabulary as an LLM
  // (token by token) and an encoder as one forward pass (docs/serving.md, "Models").
  bool causal = true;
  int ffn = 0;                      // MLP width; 4·hidden when not given
  int vocab = 0;                    // 0: no language-model head (ViT)
  int seq_len = 0;                  // default sequence length (tokens per sample)
  int max_seq_len = 0;              // longest a job may ask for (position table); 0 = any
  double head_token_fraction = 1;   // share of tokens the LM head runs on (BERT MLM: 0.15)
  double extra_forward_flop = 0;    // per sample, outside the layers (ViT patch embedding)
  double extra_params = 0;          // parameters outside layers and token embedding

  int kv_heads_or_heads() const { return kv_heads > 0 ? kv_heads : heads; }
  // Served token by token (prefill, decode, a KV cache): a decoder with a vocabulary.
  bool llm() const { return causal && vocab > 0; }
  int head_dim() const { return hidden / heads; }
  // Weight matrices of the layers, the parameters every token multiplies by (no biases,
  // norms or embeddings): L·(2h² + 2h·kv·d + m·h·ffn), m = 2 (plain) or 3 (gated).
  double layer_matmul_params() const;
};

// A published throughput of this model on one GPU type: what the step-time model scales
// to other GPUs part by part (docs/step-time.md, "Anchors"). Read from a catalog entry's
// `anchors:` list; the GPU is resolved against the GPU catalog when the entry is read.
struct ModelAnchor {
  GpuSpec gpu;                  // the catalog entry's figures (without its sources and notes)
  int gpus = 1;                 // GPUs of the measured run
  int gpus_per_node = 8;        // of the measured system
  int host_cores = 0;           // CPU cores per node of the measured system; 0 = not limiting
  Precision precision = Precision::Fp32;
  int batch_per_gpu = 1;
  int grad_accum = 1;
  int seq_len = 0;              // 0 = the model's default (or none)
  double samples_per_s = 0;     // measured, whole run
  std::string source;
};

inline constexpr config::KeySpec ANCHOR_KEYS[] = {
    {"gpu", "name", "", true, "", "GPU of the measured run (GPU catalog name or alias)"},
    {.name = "gpus", .type = "integer", .help = "GPUs of the measured run", .kind = config::KeyKind::Integer, .min = 1, .max = 1 << 24,
     .has_default = true, .default_number = 1},
    {.name = "gpus_per_node", .type = "integer", .help = "GPUs per node of the measured system", .kind = config::KeyKind::Integer,
     .min = 1, .max = 1 << 16, .has_default = true, .default_number = 8},
    {.name = "host_cores", .type = "integer", .help = "CPU cores per node of the measured system; 0 = not limiting",
     .kind = config::KeyKind::Integer, .min = 0, .max = 1 << 20, .has_default = true, .default_number = 0},
    {"precision", "`fp32` | `tf32` | `amp` | `fp16` | `bf16` | `fp8`", "", true, "", "precision of the run"},
    {.name = "batch_per_gpu", .type = "integer", .required = true, .help = "micro-batch per GPU", .kind = config::KeyKind::Integer,
     .min = 1, .max = 1 << 24},
    {.name = "grad_accum", .type = "integer", .help = "micro-batches per optimizer step", .kind = config::KeyKind::Integer, .min = 1,
     .max = 1 << 20, .has_default = true, .default_number = 1},
    {.name = "seq_len", .type = "integer", .default_value = "model's", .range = "at most the model's `max_seq_len`",
     .help = "tokens per sample (transformers)", .kind = config::KeyKind::Integer, .min = 1, .max = 1 << 24},
    {.name = "samples_per_s", .type = "number", .required = true, .help = "measured throughput of the whole run",
     .kind = config::KeyKind::Number, .min = 0, .above_min = true, .below_min = "must be greater than zero"},
    {"source", "text", "", true, "", "where the measurement is published"},
};

// The keys of a job's inline `model: {...}` (parse_model with require_sources false;
// docs/scenario-reference.md, "Inline models"). `anchors` is not among them: it is a
// `conflict` there, since measured runs are read from catalog files only.
// The keys of a model's `transformer:` shape, inline or in a catalog (docs/step-time.md,
// "Transformers: figures from the shape"; the ranges are those parse_shape enforces).
inline constexpr config::KeySpec TRANSFORMER_KEYS[] = {
    {.name = "layers", .type = "integer", .required = true, .help = "transformer layers", .kind = config::KeyKind::Integer, .min = 1,
     .max = 10'000},
    {.name = "hidden", .type = "integer", .required = true, .range = "a multiple of `heads`", .help = "hidden width",
     .kind = config::KeyKind::Integer, .min = 1, .max = 1 << 20},
    {.name = "heads", .type = "integer", .required = true, .help = "attention heads", .kind = config::KeyKind::Integer, .min = 1,
     .max = 1 << 16},
    {.name = "kv_heads", .type = "integer", .default_value = "`heads`", .range = "divides `heads`",
     .help = "key/value heads (grouped-query attention)", .kind = config::KeyKind::Integer, .min = 1, .max = 1 << 16},
    {"mlp", "`plain` | `gated`", "`plain`", false, "",
     "MLP form: two matrices, or gated (SwiGLU: three h × ffn matrices)"},
    {"attention", "`causal` | `bidirectional`", "`causal`", false, "",
     "a decoder (causal: served token by token as an LLM when it has a vocabulary) or an encoder (bidirectional: served as one forward pass)"},
    {.name = "tie_embeddings", .type = "bool", .help = "the LM head reuses the token embedding (else its own V × h matrix)",
     .kind = config::KeyKind::Bool, .has_default = true, .default_number = 1},
    {.name = "ffn", .type = "integer", .default_value = "4 × `hidden`", .help = "MLP width", .kind = config::KeyKind::Integer, .min = 1,
     .max = 1 << 22},
    {.name = "vocab", .type = "integer", .help = "vocabulary size; 0: no language-model head", .kind = config::KeyKind::Integer,
     .min = 0, .max = 1 << 24, .has_default = true, .default_number = 0},
    {.name = "seq_len", .type = "integer", .required = true, .help = "default tokens per sample", .kind = config::KeyKind::Integer,
     .min = 1, .max = 1 << 24},
    {.name = "max_seq_len", .type = "integer", .default_value = "`0`: any", .range = "at least `seq_len`",
     .help = "longest sequence a job may ask for", .kind = config::KeyKind::Integer, .min = 1, .max = 1 << 24},
    {.name = "head_token_fraction", .type = "fraction", .help = "share of tokens the LM head runs on (BERT MLM: 0.15)",
     .kind = config::KeyKind::Fraction, .min = 0, .max = 1, .has_default = true, .default_number = 1},
    {.name = "extra_forward_flop", .type = "count", .help = "forward FLOPs per sample outside the layers",
     .kind = config::KeyKind::Number, .min = 0, .has_default = true, .default_number = 0},
    {.name = "extra_params", .type = "count", .help = "parameters outside the layers and the token embedding",
     .kind = config::KeyKind::Number, .min = 0, .has_default = true, .default_number = 0},
};

inline constexpr config::KeySpec INLINE_MODEL_KEYS[] = {
    {"name", "text", "", true, "", "the model's name in reports"},
    {"aliases", "list of names", "none", false, "", "other names (kept, unused by a job)"},
    {"sample", "text", "`sample`", false, "", "what a sample is (`image`, `sequence`), for reports"},
    {"transformer", "map", "none", false, "",
     "`{layers, hidden, heads, kv_heads, mlp, attention, tie_embeddings, ffn, vocab, seq_len, max_seq_len, head_token_fraction, "
     "extra_forward_flop, extra_params}`: figures derived from the shape, instead of the six below"},
    {.name = "forward_flop", .type = "count", .default_value = "none: `transformer` needed",
     .help = "forward FLOPs per sample (a multiply-add counts 2)", .kind = config::KeyKind::Number, .min = 0, .above_min = true,
     .below_min = "must be greater than zero"},
    {.name = "tensor_fraction", .type = "fraction", .default_value = "required with `forward_flop`",
     .help = "share of the FLOPs in matmuls and convolutions", .kind = config::KeyKind::Fraction, .min = 0, .max = 1},
    {"memory_traffic", "bytes", "required with `forward_flop`", false, ">= 0", "bytes moved by memory-bound ops per sample"},
    {.name = "params", .type = "count", .default_value = "required with `forward_flop`", .help = "parameters",
     .kind = config::KeyKind::Number, .min = 0, .above_min = true, .below_min = "must be greater than zero"},
    {.name = "activations", .type = "bytes", .default_value = "required with `forward_flop`",
     .help = "activation bytes kept for backward per sample", .kind = config::KeyKind::Bytes},
    {.name = "kernels_per_step", .type = "integer", .default_value = "required with `forward_flop`",
     .help = "kernel launches per step", .kind = config::KeyKind::Integer, .min = 0, .max = 1 << 24},
    {"input", "bytes", "`0`", false, ">= 0", "read from storage per sample"},
    {"device_input", "bytes", "`input`", false, ">= 0", "copied host to GPU per sample"},
    {.name = "cpu_decode", .type = "duration", .help = "core-seconds of CPU decode and augmentation per sample",
     .kind = config::KeyKind::Duration, .min = 0, .has_default = true, .default_number = 0},
    {"sources", "text", "none", false, "", "where the figures come from"},
    {"notes", "text", "none", false, "", "free text"},
};

struct ModelSpec {
  std::string name;
  std::vector<std::string> aliases;
  std::string sample_unit = "sample";  // "image", "sequence": for reports
  std::optional<TransformerShape> transformer;

  // Fixed entries (for transformers these are derived; see resolve()).
  double forward_flop_per_sample = 0;
  double tensor_fraction = 1;                 // share of forward FLOPs in matmul/conv
  double memory_traffic_bytes_per_sample = 0; // memory-bound ops, fwd+bwd, 2-byte elements
  double params = 0;
  double activation_bytes_per_sample = 0;     // stored for backward, 2-byte elements
  int kernels_per_step = 0;                   // kernel launches per fwd+bwd step

  // The input pipeline.
  double input_bytes_per_sample = 0;          // read from storage (compressed)
  double device_bytes_per_sample = 0;         // copied host -> device (decoded)
  double cpu_decode_core_s_per_sample = 0;    // CPU decode + augmentation, core-seconds

  std::vector<ModelAnchor> anchors;           // measured throughputs (catalog entries only)

  std::string sources;
  std::string notes;
};

// Per-sample figures at one sequence length: what the step-time and memory models use.
struct ModelFigures {
  double forward_flop = 0;
  double tensor_fraction = 1;
  double memory_traffic_bytes = 0;   // fwd+bwd, at 2 bytes per element
  double params = 0;
  double activation_bytes = 0;       // at 2 bytes per element
  int kernels_per_step = 0;
  double input_bytes = 0;
  double device_bytes = 0;
  double cpu_decode_core_s = 0;
  int seq_len = 0;                   // 0 for models without one
  double tokens = 1;                 // tokens per sample (seq_len, or 1)
};

// Structural constants of the transformer derivation (documented in docs/step-time.md):
// elementwise element accesses per token per layer in the forward pass, per hidden unit
// and per attention score (layernorm, residual, dropout, bias+GeLU, softmax, head
// transposes); the backward pass does about twice the forward's accesses.
inline constexpr double TRANSFORMER_ACCESSES_PER_HIDDEN = 20;
inline constexpr double TRANSFORMER_ACCESSES_PER_SCORE = 1;
inline constexpr int TRANSFORMER_KERNELS_PER_LAYER = 60;  // fwd + bwd
inline constexpr int TRANSFORMER_KERNELS_FIXED = 100;     // embeddings, head, loss

// seq_len 0 = the model's default. Throws std::invalid_argument for a sequence length on
// a model without one (callers validate first and report a ConfigError).
ModelFigures resolve(const ModelSpec& model, int seq_len = 0);

struct DatasetSpec {
  std::string name;
  double samples = 0;
  double bytes = 0;        // total size on storage
  double file_bytes = 0;   // typical file (object) size: what IOPS-bound reads see
  std::string sources;
};

class ModelCatalog {
 public:
  // Parses a catalog document with `models:` and/or `datasets:` lists. Strict: unknown
  // keys, bad units, missing sources -> ConfigError. An entry named like an existing one
  // replaces it; a name or alias repeated within one file is a Duplicate error. `gpus`
  // resolves the GPUs that `anchors:` name; without it an entry with anchors is refused.
  void add_from(const config::ConfigNode& root, const GpuCatalog* gpus = nullptr);

  const ModelSpec* find_model(std::string_view name) const;
  const DatasetSpec* find_dataset(std::string_view name) const;
  std::vector<std::string> model_names() const;    // names and aliases
  std::vector<std::string> dataset_names() const;
  const std::vector<ModelSpec>& models() const { return models_; }
  const std::vector<DatasetSpec>& datasets() const { return datasets_; }

 private:
  std::vector<ModelSpec> models_;
  std::vector<DatasetSpec> datasets_;
};

// One model entry (a catalog item, or a job's inline `model: {...}`). `require_sources`:
// catalog entries must cite their figures; an inline model need not. `gpus` resolves the
// GPUs of `anchors:`; null (an inline model) refuses anchors.
ModelSpec parse_model(const config::ConfigNode& node, bool require_sources, const GpuCatalog* gpus = nullptr);
DatasetSpec parse_dataset(const config::ConfigNode& node, bool require_sources);

// Loads the bundled catalog file (scenarios/catalog/models.yaml under `catalog_dir`), its
// anchors resolved against the bundled gpus.yaml beside it.
ModelCatalog load_bundled_model_catalog(const std::string& catalog_dir);

}  // namespace gcsim::models
