// Operator lists generated from the architecture (equations and sources in operators.hpp
// and docs/step-time.md, "Operator-level model").
#include "models/workload/operators.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

namespace gcsim::models {
namespace {

// Bytes of a dropout mask element (PyTorch keeps a bool / uint8 mask for backward).
constexpr double MASK_BYTES = 1;
// Loss computed in FP32 (autocast runs log_softmax / cross_entropy in FP32).
constexpr double LOSS_BYTES = 4;
// FLOPs per element of the memory-bound kernels (a few arithmetic operations each); they
// never bound the time but keep the roofline honest.
constexpr double NORM_FLOP_PER_ELEMENT = 8;
constexpr double POINTWISE_FLOP_PER_ELEMENT = 1;
constexpr double SOFTMAX_FLOP_PER_ELEMENT = 5;
// Adam: about 12 FLOPs per parameter (moments, bias correction, sqrt, divide, update).
constexpr double OPTIMIZER_FLOP_PER_PARAM = 12;

class Builder {
 public:
  Builder(Precision p) : e_(activation_bytes(p)) {}

  // Marks the operator added last as a 3×3 convolution of stride 1 (Operator::winograd).
  void mark_winograd(bool w) { g_.ops.back().winograd = w; }
  // A product C[M×N] = A[M×K]·B[K×N] with its operand bytes.
  void gemm(const std::string& name, OpKind kind, OpPass pass, GemmShape s, double a_elems, double b_elems,
            double c_elems, int count = 1) {
    Operator op;
    op.name = name;
    op.kind = kind;
    op.pass = pass;
    op.gemm = s;
    op.flop = s.flop();
    op.bytes = (a_elems + b_elems + c_elems) * e_;
    op.count = count;
    g_.ops.push_back(std::move(op));
  }
  // A Linear layer y[T×out] = x[T×in]·Wᵀ: forward, data gradient, weight gradient.
  void linear(const std::string& name, double tokens, double in, double out, int count = 1, bool dgrad = true) {
    gemm(name, OpKind::Gemm, OpPass::Forward, {tokens, out, in, 1}, tokens * in, in * out, tokens * out, count);
    bwd_gemms_.push_back([=, this] {
      if (dgrad)
        gemm(name + ".dgrad", OpKind::Gemm, OpPass::BackwardData, {tokens, in, out, 1}, tokens * out, in * out, tokens * in,
             count);
      gemm(name + ".wgrad", OpKind::Gemm, OpPass::BackwardWeight, {out, in, tokens, 1}, tokens * out, tokens * in, in * out,
           count);
    });
  }
  // A memory-bound operator moving `elems` elements (reads + writes) of the activation
  // size plus `extra_bytes`; its backward moves twice as much.
  void pointwise(const std::string& name, OpKind kind, double elems, double flop_per_elem, double extra_bytes = 0,
                 int count = 1, bool backward = true) {
    Operator op;
    op.name = name;
    op.kind = kind;
    op.pass = OpPass::Forward;
    op.bytes = elems * e_ + extra_bytes;
    op.flop = elems / 2 * flop_per_elem;  // about half the accesses are outputs
    op.count = count;
    g_.ops.push_back(op);
    if (backward) {
      op.name += ".bwd";
      op.pass = OpPass::BackwardData;
      op.bytes *= 2;
      op.flop *= 2;
      bwd_pointwise_.push_back(op);
    }
  }
  void raw(Operator op) { g_.ops.push_back(std::move(op)); }

  // Backward operators after the forward ones (their order does not change the sum).
  OperatorGraph finish(double params, int batch, int seq_len, OptimizerKind o, Precision p) {
    for (auto& f : bwd_gemms_) f();
    for (auto& op : bwd_pointwise_) g_.ops.push_back(op);
    Operator upd;
    upd.name = "optimizer";
    upd.kind = OpKind::Optimizer;
    upd.pass = OpPass::Update;
    upd.bytes = params * optimizer_bytes_per_param(o, p);
    upd.flop = params * OPTIMIZER_FLOP_PER_PARAM;
    g_.ops.push_back(upd);
    g_.params = params;
    g_.batch = batch;
    g_.seq_len = seq_len;
    return std::move(g_);
  }

  double e() const { return e_; }

 private:
  double e_;
  OperatorGraph g_;
  std::vector<std::function<void()>> bwd_gemms_;
  std::vector<Operator> bwd_pointwise_;
};

}  // namespace

std::string_view op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::Gemm: return "gemm";
    case OpKind::Conv: return "conv";
    case OpKind::Elementwise: return "elementwise";
    case OpKind::Normalization: return "normalization";
    case OpKind::Softmax: return "softmax";
    case OpKind::Loss: return "loss";
    case OpKind::Embedding: return "embedding";
    case OpKind::Optimizer: return "optimizer";
  }
  return "unknown";
}

std::string_view op_pass_name(OpPass p) {
  switch (p) {
    case OpPass::Forward: return "forward";
    case OpPass::BackwardData: return "backward-data";
    case OpPass::BackwardWeight: return "backward-weight";
    case OpPass::Update: return "update";
  }
  return "unknown";
}

double OperatorGraph::total_flop(OpPass p) const {
  double s = 0;
  for (const Operator& op : ops)
    if (op.pass == p) s += op.flop * op.count;
  return s;
}

double OperatorGraph::forward_flop() const { return total_flop(OpPass::Forward); }

double OperatorGraph::forward_gemm_flop() const {
  double s = 0;
  for (const Operator& op : ops)
    if (op.pass == OpPass::Forward && op.gemm) s += op.flop * op.count;
  return s;
}

double activation_bytes(Precision p) { return p == Precision::Fp32 || p == Precision::Tf32 ? 4 : 2; }

double optimizer_bytes_per_param(OptimizerKind o, Precision p) {
  const bool wide = p == Precision::Fp32 || p == Precision::Tf32;
  if (o == OptimizerKind::Adam) return wide ? 28 : 4 + 2 + 4 + 4 + 4 + 4 + 4 + 2 + 4;
  return wide ? 20 : 4 + 2 + 4 + 4 + 4 + 2 + 4;
}

OperatorGraph transformer_operators(const TransformerShape& t, int batch, int seq_len, Precision p, OptimizerKind o,
                                    double extra_params) {
  const int s_int = seq_len > 0 ? seq_len : t.seq_len;
  const double b = batch, s = s_int, h = t.hidden, a = t.heads;
  const double d = h / a;
  const double kv = static_cast<double>(t.kv_heads_or_heads()) * d;
  const double f = t.ffn > 0 ? t.ffn : 4 * h;
  const bool gated = t.mlp == MlpForm::Gated;
  const double T = b * s;
  const double V = t.vocab;
  const int L = t.layers;
  Builder B(p);
  const double e = B.e();

  // Embeddings: token (and position) lookup, then (encoders) layer norm and dropout.
  if (V > 0) B.pointwise("embedding", OpKind::Embedding, 3 * T * h, POINTWISE_FLOP_PER_ELEMENT);
  if (!t.causal) B.pointwise("embedding.norm", OpKind::Normalization, 2 * T * h, NORM_FLOP_PER_ELEMENT);
  B.pointwise("embedding.dropout", OpKind::Elementwise, 2 * T * h, POINTWISE_FLOP_PER_ELEMENT, T * h * MASK_BYTES);

  // One layer, folded L times.
  B.pointwise("layer.norm1", OpKind::Normalization, 2 * T * h, NORM_FLOP_PER_ELEMENT, 0, L);
  B.linear("layer.qkv", T, h, h + 2 * kv, L);
  const double heads = b * a;
  B.gemm("layer.scores", OpKind::Gemm, OpPass::Forward, {s, s, d, heads}, heads * s * d, heads * s * d, heads * s * s, L);
  B.pointwise("layer.softmax", OpKind::Softmax, 2 * heads * s * s, SOFTMAX_FLOP_PER_ELEMENT, 0, L);
  B.pointwise("layer.attn_dropout", OpKind::Elementwise, 2 * heads * s * s, POINTWISE_FLOP_PER_ELEMENT,
              heads * s * s * MASK_BYTES, L);
  B.gemm("layer.context", OpKind::Gemm, OpPass::Forward, {s, d, s, heads}, heads * s * s, heads * s * d, heads * s * d, L);
  B.linear("layer.proj", T, h, h, L);
  B.pointwise("layer.dropout1", OpKind::Elementwise, 2 * T * h, POINTWISE_FLOP_PER_ELEMENT, T * h * MASK_BYTES, L);
  B.pointwise("layer.residual1", OpKind::Elementwise, 3 * T * h, POINTWISE_FLOP_PER_ELEMENT, 0, L);
  B.pointwise("layer.norm2", OpKind::Normalization, 2 * T * h, NORM_FLOP_PER_ELEMENT, 0, L);
  B.linear("layer.fc1", T, h, gated ? 2 * f : f, L);
  B.pointwise("layer.activation", OpKind::Elementwise, (gated ? 3 : 2) * T * f, 8, 0, L);
  B.linear("layer.fc2", T, f, h, L);
  B.pointwise("layer.dropout2", OpKind::Elementwise, 2 * T * h, POINTWISE_FLOP_PER_ELEMENT, T * h * MASK_BYTES, L);
  B.pointwise("layer.residual2", OpKind::Elementwise, 3 * T * h, POINTWISE_FLOP_PER_ELEMENT, 0, L);
  // Attention's four gradient products (Q·Kᵀ: dQ = dS·K, dK = dSᵀ·Q; P·V: dP = dC·Vᵀ,
  // dV = Pᵀ·dC), each as large as its forward product.
  const auto attention_backward = [&] {
    B.gemm("layer.scores.dq", OpKind::Gemm, OpPass::BackwardData, {s, d, s, heads}, heads * s * s, heads * s * d,
           heads * s * d, L);
    B.gemm("layer.scores.dk", OpKind::Gemm, OpPass::BackwardData, {s, d, s, heads}, heads * s * s, heads * s * d,
           heads * s * d, L);
    B.gemm("layer.context.dp", OpKind::Gemm, OpPass::BackwardData, {s, s, d, heads}, heads * s * d, heads * s * d,
           heads * s * s, L);
    B.gemm("layer.context.dv", OpKind::Gemm, OpPass::BackwardData, {s, d, s, heads}, heads * s * s, heads * s * d,
           heads * s * d, L);
  };

  // The head: a final norm (decoders, pre-LN), the MLM transform (encoders: dense + GeLU +
  // norm), the vocabulary projection on its share of the tokens and the loss.
  double head_params = 0;
  if (V > 0) {
    const double Th = T * t.head_token_fraction;
    if (t.causal) B.pointwise("final_norm", OpKind::Normalization, 2 * T * h, NORM_FLOP_PER_ELEMENT);
    else {
      B.linear("head.transform", Th, h, h);
      B.pointwise("head.activation", OpKind::Elementwise, 2 * Th * h, 8);
      B.pointwise("head.norm", OpKind::Normalization, 2 * Th * h, NORM_FLOP_PER_ELEMENT);
    }
    B.linear("head.vocab", Th, h, V);
    // Cross-entropy over the logits, in FP32: read the logits, write the log-probabilities.
    B.pointwise("loss", OpKind::Loss, 0, 0, Th * V * (e + LOSS_BYTES));
    // The embedding table's gradient: written whole (dense), the rows gathered again.
    Operator emb;
    emb.name = "embedding.wgrad";
    emb.kind = OpKind::Embedding;
    emb.pass = OpPass::BackwardWeight;
    emb.bytes = (V * h + 2 * T * h) * e;
    emb.flop = T * h;
    B.raw(emb);
    head_params = V * h * (t.tie_embeddings ? 1 : 2);
  }
  attention_backward();
  // Parameters: the layers' matrices and biases/norms (9h + f per layer for the plain MLP,
  // as the catalog's count; LLaMA's 2h), the embedding, the untied head, and what the
  // entry adds.
  // A gated (LLaMA) layer has only its two RMS norms, and the model a final norm.
  const double layer_biases = gated ? 2 * h : 9 * h + f;
  const double params = t.layer_matmul_params() + L * layer_biases + (gated ? h : 0) + head_params + extra_params;
  return B.finish(params, batch, s_int, o, p);
}

OperatorGraph resnet50_operators(int batch, Precision p, OptimizerKind o, Fusion fusion) {
  Builder B(p);
  const double N = batch;
  double params = 0;
  const bool fused = fusion == Fusion::Fused;
  // A ReLU after a batch norm (2 accesses per element; none when fused into the norm).
  const auto relu = [&](const std::string& name, double out_elems) {
    if (!fused) B.pointwise(name, OpKind::Elementwise, 2 * out_elems, POINTWISE_FLOP_PER_ELEMENT);
  };
  // A convolution with its batch norm; `relu` adds the activation after it.
  const auto conv = [&](const std::string& name, double C, double K, double R, double stride, double H) {
    const double P = std::ceil(H / stride);
    const double out = N * P * P * K, in = N * H * H * C, w = K * C * R * R;
    B.gemm(name, OpKind::Conv, OpPass::Forward, {N * P * P, K, C * R * R, 1}, in, w, out);
    B.mark_winograd(R == 3 && stride == 1);
    params += w + 2 * K;  // weights + batch-norm scale and shift
    // Batch norm in training: a statistics pass and a normalising pass over the input,
    // one write (3 accesses per element).
    B.pointwise(name + ".bn", OpKind::Normalization, 3 * out, NORM_FLOP_PER_ELEMENT);
  };
  struct Pending {
    std::string name;
    double C, K, R, stride, H;
    bool first;
  };
  std::vector<Pending> convs;
  const auto add_conv = [&](const std::string& name, double C, double K, double R, double stride, double H,
                            bool first = false) {
    conv(name, C, K, R, stride, H);
    convs.push_back({name, C, K, R, stride, H, first});
    return std::ceil(H / stride);
  };
  double H = 224;
  H = add_conv("conv1", 3, 64, 7, 2, H, true);
  relu("conv1.relu", N * H * H * 64);
  B.pointwise("maxpool", OpKind::Elementwise, N * H * H * 64 + N * (H / 2) * (H / 2) * 64, 9);
  H /= 2;
  double C = 64;
  const int blocks[] = {3, 4, 6, 3};
  const double widths[] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage) {
    for (int i = 0; i < blocks[stage]; ++i) {
      const double w = widths[stage], out = 4 * w;
      const double stride = stage > 0 && i == 0 ? 2 : 1;
      const std::string n = "layer" + std::to_string(stage + 1) + "." + std::to_string(i);
      add_conv(n + ".conv1", C, w, 1, 1, H);
      relu(n + ".relu1", N * H * H * w);
      const double Ho = add_conv(n + ".conv2", w, w, 3, stride, H);
      relu(n + ".relu2", N * Ho * Ho * w);
      add_conv(n + ".conv3", w, out, 1, 1, Ho);
      if (i == 0) add_conv(n + ".downsample", C, out, 1, stride, H);
      // The residual add reads both branches and writes the sum (3 accesses); fused into the
      // last batch norm it reads only the shortcut (1).
      B.pointwise(n + ".add", OpKind::Elementwise, (fused ? 1 : 3) * N * Ho * Ho * out, POINTWISE_FLOP_PER_ELEMENT);
      relu(n + ".relu3", N * Ho * Ho * out);
      C = out;
      H = Ho;
    }
  }
  B.pointwise("avgpool", OpKind::Elementwise, N * H * H * C + N * C, 1);
  B.linear("fc", N, C, 1000);
  params += C * 1000 + 1000;
  B.pointwise("loss", OpKind::Loss, 0, 0, N * 1000 * (B.e() + LOSS_BYTES));
  // Convolution gradients: data (not for the image) and weight.
  for (const Pending& c : convs) {
    const double P = std::ceil(c.H / c.stride);
    const double out = N * P * P * c.K, in = N * c.H * c.H * c.C, w = c.K * c.C * c.R * c.R;
    if (!c.first)
      B.gemm(c.name + ".dgrad", OpKind::Conv, OpPass::BackwardData,
             {N * c.H * c.H, c.C, c.K * c.R * c.R / (c.stride * c.stride), 1}, out, w, in);
    if (!c.first) B.mark_winograd(c.R == 3 && c.stride == 1);
    B.gemm(c.name + ".wgrad", OpKind::Conv, OpPass::BackwardWeight, {c.K, c.C * c.R * c.R, N * P * P, 1}, out, in, w);
    B.mark_winograd(c.R == 3 && c.stride == 1);
  }
  return B.finish(params, batch, 0, o, p);
}

bool has_operator_model(const ModelSpec& m) {
  if (m.transformer) return true;
  return m.name == "resnet50";
}

OperatorGraph build_operators(const ModelSpec& m, int batch, int seq_len, Precision p, OptimizerKind o,
                              Fusion fusion) {
  if (m.transformer) {
    const TransformerShape& t = *m.transformer;
    if (t.max_seq_len > 0 && seq_len > t.max_seq_len)
      throw std::invalid_argument("model '" + m.name + "' takes at most " + std::to_string(t.max_seq_len) + " tokens");
    return transformer_operators(t, batch, seq_len, p, o, t.extra_params);
  }
  if (m.name == "resnet50") return resnet50_operators(batch, p, o, fusion);
  throw std::invalid_argument("model '" + m.name + "' has no operator model (only its totals)");
}

}  // namespace gcsim::models
