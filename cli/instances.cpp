// `gcsim instances [--provider P] [--gpu G] [--host-only]`: the bundled instance catalog; and
// `gcsim catalog import --from skypilot-aws|skypilot-gcp|skypilot-lambda IN.csv -o OUT.csv [--snapshot DATE]`:
// converts a SkyPilot vms.csv into our catalog format (docs/pricing.md).
#include <sys/stat.h>

#include <filesystem>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <sstream>
#include <iostream>
#include <memory>
#include <string>

#include "models/gpu/gpu_catalog.hpp"
#include "models/importers/skypilot.hpp"
#include "models/pricing/instance_catalog.hpp"
#include "sim/atomic_file.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/regular_file.hpp"
#include "sim/errors.hpp"

namespace gcsim::cli {

// Declared in cli/commands.hpp, which this file cannot include yet: it brings in
// models/config/scenario.hpp, whose placeholder `PriceSpec { on_demand_usd_per_hour }` clashes
// with models/pricing/price_spec.hpp's until scenario.hpp adopts the latter.
struct InstanceCommands;
std::shared_ptr<InstanceCommands> add_instance_commands(CLI::App& app);
int run_instance_commands(const InstanceCommands& commands, const std::string& catalog_dir);

struct InstanceCommands {
  CLI::App* instances = nullptr;
  std::string provider, gpu;
  bool host_only = false;
  CLI::App* catalog = nullptr;
  CLI::App* import = nullptr;
  std::string from, in_csv, out_csv, snapshot;
};

namespace {

int cmd_instances(const InstanceCommands& c, const std::string& catalog_dir) {
  models::GpuCatalog gpus;
  gpus.add_from(config::load_yaml_file(catalog_dir + "/gpus.yaml").root);
  const models::InstanceCatalog catalog = models::load_instance_catalog_dir(models::bundled_instance_dir(catalog_dir), &gpus);
  std::string gpu_filter;
  if (!c.gpu.empty()) {
    const models::GpuSpec* g = gpus.find(c.gpu);
    if (g == nullptr) {
      const std::string hint = did_you_mean(c.gpu, gpus.all_names());
      throw Error("unknown GPU '" + c.gpu + "'" + (hint.empty() ? " (see gcsim gpus)" : "; did you mean '" + hint + "'?"));
    }
    gpu_filter = g->name;
  }
  if (!c.provider.empty()) {
    // Only providers the catalog has: a typo must not read as "0 instances".
    std::vector<std::string> providers;
    for (const models::InstanceSpec& s : catalog.list())
      if (std::find(providers.begin(), providers.end(), s.provider) == providers.end()) providers.push_back(s.provider);
    if (std::find(providers.begin(), providers.end(), ascii_lower(c.provider)) == providers.end()) {
      const std::string hint = did_you_mean(ascii_lower(c.provider), providers);
      std::string known;
      for (const std::string& p : providers) known += (known.empty() ? "" : ", ") + p;
      throw Error("unknown provider '" + c.provider + "'" + (hint.empty() ? "" : "; did you mean '" + hint + "'?") +
                  " (the catalog has: " + known + ")");
    }
  }
  std::printf("%-10s %-28s %-15s %4s %10s %9s %9s  %-10s  %-24s %s\n", "provider", "instance", "gpu", "gpus",
              "on-demand", "spot", "$/GPU-h", "date", "billing", "where");
  std::size_t shown = 0, assumed = 0, hidden_host_only = 0;
  for (const models::InstanceSpec& s : catalog.list()) {
    if (!c.provider.empty() && s.provider != ascii_lower(c.provider)) continue;
    if (!gpu_filter.empty() && s.gpu != gpu_filter) continue;
    // A host-only price leaves the GPUs out: listed beside full prices it reads as the
    // cheapest GPU-hour. Shown only when asked for, and then without a per-GPU price.
    const bool host_only = s.market_kind == models::InstanceMarketKind::HostOnly;
    if (host_only && !c.host_only) {
      ++hidden_host_only;
      continue;
    }
    char spot[32] = "-";
    if (s.spot_usd_per_hour) std::snprintf(spot, sizeof spot, "%.4g", *s.spot_usd_per_hour);
    char per_gpu[32] = "host-only";
    if (!host_only) std::snprintf(per_gpu, sizeof per_gpu, "%.4g", s.on_demand_usd_per_gpu_hour());
    const std::string where = !s.zone.empty() ? s.zone : s.region;
    std::printf("%-10s %-28s %-15s %4d %10.4g %9s %9s  %-10s  %-24s %s\n", s.provider.c_str(), s.instance_type.c_str(),
                s.gpu.c_str(), s.gpus, s.on_demand_usd_per_hour, spot, per_gpu, s.snapshot.c_str(),
                models::describe_billing(s.billing).c_str(), where.c_str());
    if (!s.spot_snapshot.empty())
      std::printf("%-10s   (spot price dated %s; on-demand is the region's newer list price)\n", "",
                  s.spot_snapshot.c_str());
    if (host_only)
      std::printf("%-10s   (host-only: the VM without its %d GPUs, billed separately; not a price for the instance)\n",
                  "", s.gpus);
    if (s.price_assumed) {
      std::printf("%-10s   (price is an assumption: see its source in %s)\n", "",
                  models::bundled_instance_dir(catalog_dir).c_str());
      ++assumed;
    }
    ++shown;
  }
  std::printf("%zu instances (%zu with assumed prices); prices in USD per hour per node, dated\n", shown, assumed);
  if (hidden_host_only > 0)
    std::printf("%zu host-only rows not shown (prices without the GPUs; --host-only lists them)\n", hidden_host_only);
  return 0;
}

int cmd_catalog_import(const InstanceCommands& c) {
  static const std::string prefix = "skypilot-";
  if (c.from.rfind(prefix, 0) != 0) throw Error("--from must be skypilot-aws, skypilot-gcp or skypilot-lambda");
  const std::string provider = c.from.substr(prefix.size());
  std::istringstream in(config::read_regular_file(c.in_csv, config::MAX_INPUT_FILE_BYTES, "catalog import input"));
  // Every price carries its date. A SkyPilot file has none: the day the file was written
  // (downloaded) is the best default, --snapshot the catalog's own date when known.
  std::string snapshot = c.snapshot;
  const bool snapshot_from_mtime = snapshot.empty();
  if (snapshot_from_mtime) {
    struct stat st {};
    std::tm day{};
    if (::stat(c.in_csv.c_str(), &st) != 0 || ::gmtime_r(&st.st_mtime, &day) == nullptr)
      throw Error(c.in_csv + ": cannot read its modification date: give --snapshot YYYY-MM-DD");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", day.tm_year + 1900, day.tm_mon + 1, day.tm_mday);
    snapshot = buf;
  } else if (!models::valid_catalog_date(snapshot)) {
    throw Error("--snapshot must be a date YYYY-MM-DD (or YYYY-MM, YYYY; years from 1900), got '" + snapshot + "'");
  }
  const models::ImportResult r = models::import_skypilot(in, provider, c.in_csv, snapshot);
  std::vector<std::string> comments{"Imported by gcsim catalog import --from " + c.from + " from " + c.in_csv + ".",
                                    "Source: skypilot-org/skypilot-catalog " + provider +
                                        "/vms.csv layout; prices as in that file (USD per hour per node).",
                                    "Prices dated " + snapshot +
                                        (snapshot_from_mtime ? " (the input file's modification date)." : " (--snapshot)."),
                                    std::to_string(r.report.rows) + " rows read, " + std::to_string(r.report.imported) +
                                        " instances written."};
  if (r.report.duplicates > 0)
    comments.push_back("dropped " + std::to_string(r.report.duplicates) + " exact duplicates of instances already written");
  for (const auto& [reason, n] : r.report.skipped) comments.push_back("skipped " + std::to_string(n) + ": " + reason);
  const std::string text = models::format_catalog_csv(r.instances, comments);
  if (c.out_csv.empty() || c.out_csv == "-") {
    std::cout << text;
  } else {
    sim::remove_stale_temp_files(std::filesystem::path(c.out_csv).parent_path().string());
    sim::write_file_atomically(c.out_csv, text);
  }
  std::fprintf(stderr, "%s: %zu rows, %zu instances imported", c.in_csv.c_str(), r.report.rows, r.report.imported);
  if (r.report.merged > 0) std::fprintf(stderr, " (%zu GCP accelerator rows merged)", r.report.merged);
  std::fprintf(stderr, ", prices dated %s%s\n", snapshot.c_str(),
               snapshot_from_mtime ? " (the input file's modification date; --snapshot to set it)" : "");
  if (r.report.duplicates > 0)
    std::fprintf(stderr, "  dropped %zu: exact duplicates of instances already written\n", r.report.duplicates);
  for (const auto& [reason, n] : r.report.skipped) std::fprintf(stderr, "  skipped %zu: %s\n", n, reason.c_str());
  for (const auto& [name, n] : r.report.unknown_gpus)
    std::fprintf(stderr, "  unknown accelerator '%s': %zu rows\n", name.c_str(), n);
  return 0;
}

}  // namespace

std::shared_ptr<InstanceCommands> add_instance_commands(CLI::App& app) {
  auto c = std::make_shared<InstanceCommands>();
  c->instances = app.add_subcommand("instances", "List the bundled instance catalog (cloud GPU offerings and prices)");
  c->instances->add_option("--provider", c->provider, "Only this provider (aws, gcp, azure, lambda, ...)");
  c->instances->add_option("--gpu", c->gpu, "Only instances with this GPU (a name in gcsim gpus)");
  c->instances->add_flag("--host-only", c->host_only,
                         "Also list host-only rows (a VM's price without its GPUs, e.g. GCP A2/A3), marked as such");
  c->catalog = app.add_subcommand("catalog", "Instance catalog tools");
  c->catalog->require_subcommand(1);
  c->import = c->catalog->add_subcommand("import", "Convert a public catalog CSV into gcsim's instance catalog format");
  c->import->add_option("--from", c->from, "Input layout: skypilot-aws, skypilot-gcp or skypilot-lambda")
      ->required()
      ->check(CLI::IsMember({"skypilot-aws", "skypilot-gcp", "skypilot-lambda"}));
  c->import->add_option("input", c->in_csv, "The SkyPilot vms.csv to read")->required();
  c->import->add_option("-o,--output", c->out_csv, "Write the catalog here (default: standard output)");
  c->import->add_option("--snapshot", c->snapshot,
                        "Date of the prices, YYYY-MM-DD (default: the input file's modification date)");
  return c;
}

int run_instance_commands(const InstanceCommands& c, const std::string& catalog_dir) {
  if (*c.instances) return cmd_instances(c, catalog_dir);
  if (*c.import) return cmd_catalog_import(c);
  return -1;
}

}  // namespace gcsim::cli
