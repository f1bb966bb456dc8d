// The `output:` section reader (see output_reader.hpp).
#include "models/config/output_reader.hpp"

#include "models/config/reader_common.hpp"
#include "sim/config/reader.hpp"

namespace gcsim::models {
namespace {

// A name that becomes a file inside the output folder: "." and ".." name folders, and the
// file system refuses names over 255 bytes, which the temporary name (the final one plus
// ".<pid>.<host>.<random>.tmp", sim/atomic_file.cpp) reaches first.
void check_file_name(const std::string& name, const config::ConfigNode& at, const std::string& what) {
  if (name.empty() || name == "." || name == "..")
    at.fail(ErrorCode::OutOfRange, what + " '" + name + "' is not a file name");
  if (name.size() > MAX_OUTPUT_FILE_NAME_BYTES)
    at.fail(ErrorCode::OutOfRange, what + " is " + std::to_string(name.size()) + " bytes long; at most " +
                                       std::to_string(MAX_OUTPUT_FILE_NAME_BYTES) + " fit a file name");
}

}  // namespace

OutputSpec read_output(const config::ConfigNode* node, const config::ConfigNode& name_node,
                       const std::string& scenario_name) {
  OutputSpec out;
  out.trace = scenario_name + ".h5";
  if (!node) {
    check_file_name(out.trace, name_node, "the trace's file name (the scenario's name + \".h5\")");
    return out;
  }
  config::MapReader o(*node, OUTPUT_KEYS);
  if (const config::ConfigNode* trace = o.optional("trace")) {
    out.trace = read_name(*trace);
    check_file_name(out.trace, *trace, "the trace's file name");
  } else {
    check_file_name(out.trace, name_node, "the trace's file name (the scenario's name + \".h5\")");
  }
  out.flows = o.value<bool>("flows");
  out.events = o.value<bool>("events");
  out.compression = static_cast<int>(o.value<std::int64_t>("compression"));
  out.request_rows = o.value<std::int64_t>("request_rows");
  out.service_interval = o.value<sim::SimTime>("service_interval");
  if (const config::ConfigNode* metrics = o.optional("metrics")) {
    config::MapReader m(*metrics, METRICS_KEYS);
    out.metrics_every = m.need<sim::SimTime>("every");
  }
  return out;
}

}  // namespace gcsim::models
