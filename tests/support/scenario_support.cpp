// Test helpers (see scenario_support.hpp).
#include "support/scenario_support.hpp"

#include <unistd.h>

namespace gcsim::test {

models::LoadOptions load_options() { return {GCSIM_SOURCE_DIR "/scenarios/catalog"}; }

const models::GpuCatalog& bundled_gpus() {
  static const models::GpuCatalog catalog = models::load_bundled_gpu_catalog(load_options());
  return catalog;
}

models::Scenario scenario_from_yaml(const std::string& yaml, const std::string& label) {
  return models::load_scenario(config::load_yaml_string(yaml, label), bundled_gpus());
}

TempDir::TempDir(const std::string& name)
    : path_(std::filesystem::path(GCSIM_BINARY_DIR) / "test-tmp" / (name + "-" + std::to_string(::getpid()))) {
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace gcsim::test
