// The importer of the public SkyPilot catalog layout (skypilot-org/skypilot-catalog,
// catalogs/v7/{aws,gcp,lambda}/vms.csv) into our instance catalog format
// (models/pricing/instance_catalog.hpp; `gcsim catalog import`, docs/pricing.md).
#pragma once

#include <cstddef>
#include <istream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "models/pricing/instance_catalog.hpp"

namespace gcsim::models {

// What the importer kept and what it skipped, by reason; nothing is dropped silently.
struct ImportReport {
  std::size_t rows = 0;       // data rows read
  std::size_t imported = 0;   // instances produced
  std::size_t merged = 0;     // GCP accelerator rows folded into their host row's price
  std::size_t duplicates = 0; // instances produced twice with identical figures, written once
  std::map<std::string, std::size_t> skipped;       // reason -> rows
  std::map<std::string, std::size_t> unknown_gpus;  // accelerator name -> rows (also in skipped)
};
struct ImportResult {
  std::vector<InstanceSpec> instances;
  ImportReport report;
};

// Imports a SkyPilot catalog vms.csv of `provider` (aws, gcp or lambda; columns located by
// header name; layouts of skypilot-org/skypilot-catalog catalogs/v7/<provider>/vms.csv). GpuInfo's Python-dict
// text gives each GPU's memory (SizeInMiB), which with the accelerator name picks our GPU
// (A100 + 40960 MiB -> A100-40GB-SXM). GCP prices GPUs as separate accelerator rows (empty
// InstanceType): each is added to the host row of its fixed-GPU machine type (a2, a3, g2) in
// the same zone, as SkyPilot does. Rows with GPUs we do not know, CPU-only rows and
// unpaired rows are skipped and counted. Every instance carries `snapshot` (a catalog date,
// else std::invalid_argument) as the date of its prices. Two rows giving one instance (type,
// region, zone): written once and counted in `duplicates` when their figures agree, else
// ConfigError(Duplicate) naming both lines. An instance type holding '@' or '/' (the
// separators of a reference, aws/TYPE@ZONE) could never be named: ConfigError(WrongType) at
// its line. Malformed input: ConfigError at label:line:column.
ImportResult import_skypilot(std::istream& in, std::string_view provider, const std::string& label,
                             const std::string& snapshot);
// Our GPU name for a SkyPilot accelerator name and per-GPU memory (0 = unknown); "" if none.
std::string skypilot_gpu_name(std::string_view accelerator, double memory_mib);

}  // namespace gcsim::models
