// What one replica of a service spends serving (docs/serving.md, "Models"). The serving
// part (models/services/) asks it the time of each batch (dynamic batching) or of each
// iteration (continuous batching); this package implements it for a catalog model: a
// forward pass of a vision or encoder model at a batch size, an LLM's prefill and decode
// (llm_cost.hpp). A service with `latency:` instead of `model:` needs no ReplicaCost: its
// part draws the latency itself. A ReplicaCost is built once per placement (GPU type and
// GPUs of the replica) and is pure: the same question, the same answer.
#pragma once

#include <cstdint>

namespace gcsim::models::serving {

// One iteration of continuous batching (Orca, OSDI'22; vLLM, SOSP'23): the requests that
// joined prefill their prompts (prefill_tokens in all), and each of the decode_seqs
// requests already running produces one token, reading its cached context (context_tokens
// in all, over those decode_seqs requests).
struct Iteration {
  std::int64_t prefill_tokens = 0;
  std::int32_t prefill_seqs = 0;   // requests whose prompts are in prefill_tokens
  std::int32_t decode_seqs = 0;
  std::int64_t context_tokens = 0;
};

class ReplicaCost {
 public:
  virtual ~ReplicaCost() = default;
  // Seconds for one batch of `batch` requests (>= 1) through a model without tokens
  // (dynamic batching of a vision or encoder model: one forward pass).
  virtual double batch_s(int batch) const = 0;
  // Seconds of one iteration (an LLM; continuous batching, or a dynamic batch run as
  // prefill then decode iterations).
  virtual double iteration_s(const Iteration& it) const = 0;
  // Tokens of KV cache the replica's GPUs hold beside the weights and working memory:
  // the sum of the running requests' contexts may not exceed it. 0 when the model has no
  // KV cache (not an LLM).
  virtual std::int64_t kv_capacity_tokens() const = 0;
  // True when the model is an LLM (iteration_s and kv_capacity_tokens apply), false for a
  // model served by batch_s.
  virtual bool tokens() const = 0;
  // An LLM replica's GPU memory (all its GPUs), what its weights and working memory hold of
  // it, and what each cached token adds (the `memory` and `kv_cache` autoscaling measures;
  // docs/serving.md, "Replica autoscaling"). 0 for a model without tokens.
  virtual double memory_bytes() const { return 0; }
  virtual double fixed_memory_bytes() const { return 0; }
  virtual double kv_bytes_per_token() const { return 0; }
};

}  // namespace gcsim::models::serving
