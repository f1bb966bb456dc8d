// Test helpers (see scenario_support.hpp).
#include "support/scenario_support.hpp"

#include <unistd.h>

namespace gcsim::test {

models::LoadOptions load_options() { return {GCSIM_SOURCE_DIR "/scenarios/catalog"}; }

const models::Catalogs& bundled_catalogs() {
  static const models::Catalogs catalogs = models::load_bundled_catalogs(load_options());
  return catalogs;
}

const models::GpuCatalog& bundled_gpus() { return bundled_catalogs().gpus; }

models::Scenario scenario_from_yaml(const std::string& yaml, const std::string& label) {
  return models::load_scenario(config::load_yaml_string(yaml, label), bundled_catalogs());
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
