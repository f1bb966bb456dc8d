// The V100 calibration set: each row of training_throughput_v100.csv (copied into
// tests/models/workload/data with its sources) turned into a job and the hardware it ran
// on. Shared by the calibration test and the fitting run. Assumptions where the table is
// silent are written next to the code and in docs/step-time.md.
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/gpu/gpu_catalog.hpp"
#include "models/workload/model_catalog.hpp"
#include "models/workload/step_time.hpp"
#include "models/workload/training.hpp"
#include "sim/config/config_node.hpp"

namespace gcsim::test {

inline const models::ModelCatalog& bundled_models() {
  static const models::ModelCatalog c = models::load_bundled_model_catalog(GCSIM_SOURCE_DIR "/scenarios/catalog");
  return c;
}

inline const models::GpuCatalog& gpu_catalog() {
  static const models::GpuCatalog c = [] {
    models::GpuCatalog g;
    g.add_from(config::load_yaml_file(GCSIM_SOURCE_DIR "/scenarios/catalog/gpus.yaml").root);
    return g;
  }();
  return c;
}

inline const models::GpuSpec& gpu(const std::string& name) {
  const models::GpuSpec* g = gpu_catalog().find(name);
  if (!g) throw std::runtime_error("no GPU " + name);
  return *g;
}

// A job built in code (the parser has its own tests).
inline models::TrainingSpec make_job(const std::string& model, models::Precision p, int batch, int gpus,
                                     int seq_len = 0, int grad_accum = 1,
                                     models::Optimizer opt = models::Optimizer::Adam,
                                     models::Decode decode = models::Decode::Cpu) {
  models::TrainingSpec t;
  const models::ModelSpec* m = bundled_models().find_model(model);
  if (!m) throw std::runtime_error("no model " + model);
  t.model = *m;
  t.seq_len = seq_len;
  t.precision = p;
  t.batch_per_gpu = batch;
  t.grad_accum = grad_accum;
  t.gpus = gpus;
  t.parallel.data = gpus;
  t.optimizer = opt;
  t.decode = decode;
  t.total_samples = 1e6;
  return t;
}

struct CalibrationRow {
  std::string label;
  models::TrainingSpec job;
  models::HardwareContext hw;
  double measured = 0;       // samples/s, whole job
  bool in_fit = true;
  double documented = 0;     // documented residual bound, |model/measured - 1|
};

inline std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

// Documented residual bounds, in CSV row order (docs/step-time.md, "Residuals").
std::vector<double> documented_residuals();

inline std::vector<CalibrationRow> calibration_rows() {
  using models::Decode;
  using models::Optimizer;
  using models::Precision;
  std::ifstream in(GCSIM_SOURCE_DIR "/tests/models/workload/data/training_throughput_v100.csv");
  if (!in) throw std::runtime_error("training_throughput_v100.csv missing");
  std::string line;
  std::getline(in, line);
  std::vector<CalibrationRow> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto c = split_csv(line);
    // source_repo,source_path,framework,model,task,system,gpu,gpu_mem_gb,num_gpus,num_nodes,
    // precision,batch_per_gpu,seq_len,throughput,throughput_unit,scaling_vs_1gpu,container,notes
    const std::string framework = c[2], model = c[3], task = c[4], system = c[5];
    const int mem_gb = std::stoi(c[7]);
    const int gpus = std::stoi(c[8]);
    const Precision p = c[10] == "AMP" ? Precision::Fp16 : Precision::Fp32;
    const int seq = c[12].empty() ? 0 : std::stoi(c[12]);
    int batch = c[11].empty() ? 0 : std::stoi(c[11]);
    int accum = 1;
    CalibrationRow r;
    r.measured = std::stod(c[13]);
    r.label = framework + " " + model + " " + task + " " + c[10] + " b" + (c[11].empty() ? "?" : c[11]) + " x" + c[8];
    if (model == "ResNet50v1.5") {
      // DeepLearningExamples trains ResNet-50 with DALI (GPU decoding) and SGD + momentum.
      r.job = make_job("resnet50", p, batch, gpus, 0, 1, Optimizer::Sgd, Decode::Gpu);
    } else {
      const bool pretrain = task.find("pretrain") != std::string::npos;
      if (batch == 0) {
        // PyTorch BERT pre-training rows give no batch: phase 1 runs 4096 sequences per GPU
        // as 128 x 32 (FP32) or 64 x 64 (AMP), per the notes column; phase 2 is assumed to
        // run 2048 per GPU as 512 x 4 (FP32) or 256 x 8 (AMP); the table does not say.
        if (seq == 128) {
          batch = p == Precision::Fp16 ? 64 : 32;
          accum = p == Precision::Fp16 ? 64 : 128;
        } else {
          batch = p == Precision::Fp16 ? 8 : 4;
          accum = p == Precision::Fp16 ? 256 : 512;
        }
      } else if (pretrain) {
        accum = 8;  // LAMB pre-training accumulates; the exact count is immaterial here
      }
      // LAMB and Adam move the same optimizer state.
      r.job = make_job("bert-large", p, batch, gpus, seq, accum, Optimizer::Adam, Decode::Cpu);
      // Phase 2 (seq 512): the FP32 row is 19 seq/s = 19.1 TFLOPS of dense math, above the
      // V100's 15.7 TFLOPS FP32 peak; these rows cannot be dense computation and are
      // left out of the fit (see docs/step-time.md).
      if (seq == 512) r.in_fit = false;
    }
    r.job.batch_per_gpu = batch;
    const std::string gpu_name = mem_gb == 16 ? "V100-SXM2-16GB" : "V100-SXM2-32GB";
    // DGX-1: 2 x 20-core Xeon E5-2698 v4; DGX-2: 2 x 24-core Xeon Platinum 8168 (NVIDIA
    // system datasheets). A benchmark run uses all the host's cores for its GPUs.
    const int host_cores = system == "DGX-2" ? 48 : 40;
    r.hw = models::hardware_for(gpu(gpu_name), gpus, system == "DGX-2" ? 16 : 8, host_cores);
    r.hw.cpu_cores_per_gpu = static_cast<double>(host_cores) / gpus;
    rows.push_back(std::move(r));
  }
  const auto bounds = documented_residuals();
  for (std::size_t i = 0; i < rows.size() && i < bounds.size(); ++i) rows[i].documented = bounds[i];
  return rows;
}

}  // namespace gcsim::test
