// `gcsim flows`: flow replay over a scenario's network, for testing the network model alone.
// Only the scenario's `network:` section is needed (the other top-level keys are allowed
// and ignored here, so a full scenario works too).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "models/network/flow_replay.hpp"
#include "models/topology/topology_spec.hpp"
#include "sim/atomic_file.hpp"
#include "sim/config/reader.hpp"
#include "sim/config/regular_file.hpp"

namespace gcsim::cli {

int cmd_flows(const std::string& scenario, const std::string& flows_csv, const std::string& out_csv,
              const models::ResourceLimits& limits) {
  // The config tree is freed before the replay, which then reuses its memory (over 100 MB
  // for a 4.5 MB fabric) instead of touching new pages.
  const topology::NetworkSpec net = [&] {
    const config::ConfigDocument doc = config::load_yaml_file(scenario);
    if (!doc.root.is_map()) doc.root.fail(ErrorCode::WrongType, "a scenario is a map of keys");
    config::MapReader r(doc.root, {"name", "seed", "horizon", "run_until", "catalogs", "cluster", "network", "storage",
                                   "scheduler", "workload", "output"});
    return topology::parse_network_spec(r.required("network"));
  }();
  std::string text = config::read_regular_file(flows_csv, config::MAX_INPUT_FILE_BYTES, "flows CSV");
  // Every line may be a flow (the header and comments make this an upper bound).
  const auto lines = static_cast<double>(std::count(text.begin(), text.end(), '\n') + 1);
  models::check_resources(models::estimate_flow_replay(net, lines), limits);
  std::istringstream in(std::move(text));
  std::ostringstream out;
  network::replay_flows(net, in, out, flows_csv);
  if (out_csv.empty()) {
    std::cout << out.str();
  } else {
    sim::remove_stale_temp_files(std::filesystem::path(out_csv).parent_path().string());
    sim::write_file_atomically(out_csv, out.str());
  }
  return 0;
}

}  // namespace gcsim::cli
