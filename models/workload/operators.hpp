// The operators of one training step, generated from a model's architecture: for each
// operator its kind, pass (forward, data gradient, weight gradient, update), FLOPs, bytes
// moved and, for matrix products and convolutions, the GEMM shape it runs as (issue 34;
// docs/step-time.md, "Operator-level model").
//
// Architectures known:
//  - a transformer encoder or decoder (the catalog's `transformer:` shape): per layer the
//    QKV, output and MLP projections (Linear: forward M = tokens, N = out, K = in; data
//    gradient M = tokens, N = in, K = out; weight gradient M = out, N = in, K = tokens), the
//    two attention batched GEMMs per head (Q·Kᵀ and P·V and their four gradients), the
//    fused scale-mask-softmax, dropouts, layer norms, residual adds, bias + activation;
//    the embeddings, the LM head on its share of tokens and the cross-entropy loss.
//    Forward GEMM FLOPs per layer 24·b·s·h² + 4·b·s²·h (Narayanan et al. 2021, eq. 2).
//  - ResNet-50 v1.5 at 224×224 (He et al. 2016, Table 1; the stride on the 3×3 conv of
//    each stage's first bottleneck, torchvision's layout): every convolution as an implicit
//    GEMM (forward M = N·P·Q, N = K_out, K = C·R·S; data gradient M = N·H·W, N = C,
//    K = K_out·R·S/stride²; weight gradient M = K_out, N = C·R·S, K = N·P·Q; NVIDIA cuDNN
//    "Convolution Algorithms", implicit GEMM), batch norm, ReLU, residual add, pooling, the
//    classifier and the loss. 25,557,032 parameters, 4.09 GMAC forward.
// Memory-bound operators move their tensors at the precision's element size (FP32, TF32:
// 4 bytes; AMP / BF16 / FP8: 2-byte activations, FP8 GEMM inputs still counted at 2);
// their backward moves about twice their forward bytes. The optimizer step reads and
// writes the FP32 master weights and state (AMP adds the 16-bit copy and the loss-scale
// unscale of the gradients).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/gpu/gpu_spec.hpp"
#include "models/workload/model_catalog.hpp"

namespace gcsim::models {

enum class OpKind { Gemm, Conv, Elementwise, Normalization, Softmax, Loss, Embedding, Optimizer };
std::string_view op_kind_name(OpKind k);

enum class OpPass { Forward, BackwardData, BackwardWeight, Update };
std::string_view op_pass_name(OpPass p);

// C[M×N] = A[M×K]·B[K×N], `batch` independent products (a batched GEMM).
struct GemmShape {
  double m = 0;
  double n = 0;
  double k = 0;
  double batch = 1;
  double flop() const { return 2 * m * n * k * batch; }
};

struct Operator {
  std::string name;                // "layer3.2.conv2", "layer7.qkv"
  OpKind kind = OpKind::Elementwise;
  OpPass pass = OpPass::Forward;
  double flop = 0;                 // per micro-batch (optimizer: per optimizer step)
  double bytes = 0;                // read + written, per micro-batch (optimizer: per step)
  std::optional<GemmShape> gemm;   // Gemm and Conv only
  int count = 1;                   // identical operators folded into one row (layers)
  // A 3×3 convolution of stride 1 (any of its three passes): in FP32 or TF32 it may run as
  // Winograd's F(2×2, 3×3) on the CUDA cores (operator_time.hpp).
  bool winograd = false;
};

// Per micro-batch of `batch` samples at `seq_len` tokens (0: the model's default), in the
// job's precision and optimizer. The Update operator is per optimizer step.
struct OperatorGraph {
  std::vector<Operator> ops;
  double params = 0;               // parameters the optimizer updates
  int batch = 1;
  int seq_len = 0;

  double forward_flop() const;     // sum over forward operators (× count)
  double forward_gemm_flop() const;
  double total_flop(OpPass p) const;
};

// Element sizes of a precision: activations (and GEMM operands) and weights.
double activation_bytes(Precision p);

enum class OptimizerKind { Adam, Sgd };
// Bytes the optimizer step moves per parameter: FP32 Adam reads w, g, m, v and writes
// w, m, v (7 × 4 = 28); SGD with momentum reads w, g, v and writes w, v (20). With 16-bit
// training the gradient is 2 bytes, the step also writes the 16-bit weight copy and
// unscales the gradients for loss scaling (read + write, 2 + 2): Adam 32, SGD 24
// (Micikevicius et al. 2018, "Mixed Precision Training", section 3: FP32 master weights and
// loss scaling).
double optimizer_bytes_per_param(OptimizerKind o, Precision p);

// Whether an architecture is known for this catalog entry: a `transformer:` shape, or a
// CNN named in the table of operators.cpp (resnet50 and its aliases).
bool has_operator_model(const ModelSpec& m);

// How the framework launches a CNN's elementwise operators. Eager (PyTorch without a
// compiler, the default): each operator is its own kernel, reading and writing its tensors.
// Fused (TensorFlow with XLA): elementwise operators are fused into the kernel that produces
// their input, so the intermediate tensor is never written and read back (TensorFlow, "XLA:
// Optimizing Compiler for Machine Learning", fusion; the batch norm is expanded into
// reductions and elementwise work that fuse the same way): a ReLU after a batch norm moves
// nothing of its own and launches no kernel, a residual add reads only its shortcut (one
// access per element instead of three), twice that in backward as for every memory-bound
// operator. ResNet-50 only; the transformers' lists are eager.
enum class Fusion { Eager, Fused };

// Throws std::invalid_argument for a model without an operator model.
OperatorGraph build_operators(const ModelSpec& m, int batch, int seq_len, Precision p, OptimizerKind o,
                              Fusion fusion = Fusion::Eager);

// The transformer and ResNet-50 generators themselves (build_operators dispatches).
OperatorGraph transformer_operators(const TransformerShape& t, int batch, int seq_len, Precision p, OptimizerKind o,
                                    double extra_params = 0);
OperatorGraph resnet50_operators(int batch, Precision p, OptimizerKind o, Fusion fusion = Fusion::Eager);

}  // namespace gcsim::models
