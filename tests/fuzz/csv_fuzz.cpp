// libFuzzer harness for every CSV reader (`make fuzz`): the first byte of an input chooses
// the reader, the rest is the CSV text. Bad input must end in gcsim::Error (a user error
// with file:line:column); anything else that escapes (std::bad_alloc, an internal error, a
// crash, a sanitizer report) is a finding.
//   0: the generic reader (sim/config/csv.hpp), every row
//   1: an instance catalog (models/pricing/instance_catalog.hpp)
//   2-4: the SkyPilot importer, AWS, GCP and Lambda layouts
//   5: a price trace (read_price_profile_csv), for an 8-GPU node, repeating weekly
//   6: a flow list replayed over a four-host parking lot (models/network/flow_replay.hpp)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>

#include "models/gpu/gpu_catalog.hpp"
#include "models/network/flow_replay.hpp"
#include "models/importers/skypilot.hpp"
#include "models/pricing/instance_catalog.hpp"
#include "models/pricing/price_spec.hpp"
#include "models/topology/topology_spec.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/csv.hpp"
#include "sim/errors.hpp"
#include "sim/time.hpp"

namespace {

constexpr int READERS = 7;

const gcsim::models::GpuCatalog* g_gpus = nullptr;
const gcsim::topology::NetworkSpec* g_network = nullptr;

// Flows of up to 5e19 bytes must end in a bounded number of events: the parking lot is
// small, and a flow list is at most what fits in -max_len.
constexpr const char* PARKING_LOT =
    "network:\n"
    "  fabric: explicit\n"
    "  hosts: [H0, H1, H2, H3]\n"
    "  links:\n"
    "    - {name: L1, between: [H0, H1], bandwidth: 10GB/s, latency: 1us}\n"
    "    - {name: L2, between: [H1, H2], bandwidth: 5GB/s, latency: 1us}\n"
    "    - {name: L3, between: [H2, H3], bandwidth: 10GB/s, latency: 1us}\n";

void read(int reader, const std::string& text) {
  std::istringstream in(text);
  switch (reader) {
    case 0: {
      gcsim::config::csv::Reader r(in, "fuzz.csv", true);
      gcsim::config::csv::Row row;
      while (r.next(row)) {
      }
      break;
    }
    case 1: {
      gcsim::models::InstanceCatalog catalog;
      catalog.load(in, "fuzz.csv", g_gpus);
      break;
    }
    case 2: (void)gcsim::models::import_skypilot(in, "aws", "fuzz.csv", "2026-01-01"); break;
    case 3: (void)gcsim::models::import_skypilot(in, "gcp", "fuzz.csv", "2026-01-01"); break;
    case 4: (void)gcsim::models::import_skypilot(in, "lambda", "fuzz.csv", "2026-01-01"); break;
    case 5: (void)gcsim::models::read_price_profile_csv(in, "fuzz.csv", gcsim::sim::SimTime::from_seconds(7 * 86400.0), 8); break;
    default: {
      std::ostringstream out;
      gcsim::network::replay_flows(*g_network, in, out, "fuzz.csv");
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  try {
    auto* gpus = new gcsim::models::GpuCatalog();
    gpus->add_from(gcsim::config::load_yaml_file(GCSIM_SOURCE_DIR "/scenarios/catalog/gpus.yaml").root);
    g_gpus = gpus;
    const gcsim::config::ConfigDocument doc = gcsim::config::load_yaml_string(PARKING_LOT, "parking_lot.yaml");
    g_network = new gcsim::topology::NetworkSpec(gcsim::topology::parse_network_spec(*doc.root.find("network")));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "csv_fuzz: cannot set up: %s\n", e.what());  // a setup bug, not a finding
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int reader = data[0] % READERS;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    read(reader, text);
  } catch (const gcsim::Error&) {
    // expected: bad input reported as a user error
  }
  return 0;  // anything else escapes and libFuzzer reports it
}
