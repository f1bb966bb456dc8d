// The SkyPilot catalog importer (see skypilot.hpp).
#include "models/importers/skypilot.hpp"

#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "models/pricing/catalog_row.hpp"
#include "models/pricing/csv.hpp"
#include "models/pricing/providers.hpp"
#include "sim/errors.hpp"
#include "sim/units.hpp"

namespace gcsim::models {
namespace {

using catalog_csv::RowReader;

struct SkyRow {
  int line = 0;
  std::string type, accelerator, region, zone;
  double count = 0, vcpus = 0, memory_gib = 0, gpu_memory_mib = 0;
  std::optional<double> price, spot;
};

// 'SizeInMiB': 40960 inside GpuInfo's Python-dict text; 0 when absent.
double gpu_memory_mib(std::string_view info) {
  const auto k = info.find("SizeInMiB");
  if (k == std::string_view::npos) return 0;
  std::size_t i = info.find(':', k);
  if (i == std::string_view::npos) return 0;
  ++i;
  while (i < info.size() && (info[i] == ' ' || info[i] == '\'')) ++i;
  std::size_t j = i;
  while (j < info.size() && (std::isdigit(static_cast<unsigned char>(info[j])) || info[j] == '.')) ++j;
  try {
    return j > i ? units::parse_number(info.substr(i, j - i)) : 0;
  } catch (const units::UnitError&) {
    return 0;
  }
}

// GCP machine types that come with a fixed set of GPUs: accelerator name and count.
std::optional<std::pair<std::string, int>> gcp_fixed_gpus(std::string_view type) {
  auto suffix_count = [&](std::string_view prefix) -> int {
    // "a2-highgpu-8g" -> 8
    std::string_view rest = type.substr(prefix.size());
    if (rest.empty() || rest.back() != 'g') return 0;
    rest.remove_suffix(1);
    try {
      const double n = units::parse_number(rest);
      // A count no machine type has (or that no int holds) names no fixed GPU set.
      return n >= 1 && n <= 64 && n == std::floor(n) ? static_cast<int>(n) : 0;
    } catch (const units::UnitError&) {
      return 0;
    }
  };
  struct Family {
    const char* prefix;
    const char* accelerator;
  };
  static const Family families[] = {{"a2-highgpu-", "A100"},   {"a2-megagpu-", "A100"},     {"a2-ultragpu-", "A100-80GB"},
                                    {"a3-highgpu-", "H100"},   {"a3-megagpu-", "H100-MEGA"}, {"a3-edgegpu-", "H100"},
                                    {"a3-ultragpu-", "H200"}};
  for (const Family& f : families) {
    if (type.rfind(f.prefix, 0) == 0) {
      const int n = suffix_count(f.prefix);
      if (n > 0) return std::make_pair(std::string(f.accelerator), n);
    }
  }
  if (type.rfind("g2-standard-", 0) == 0) {
    const std::string_view size = type.substr(12);
    const int n = size == "24" ? 2 : size == "48" ? 4 : size == "96" ? 8 : 1;
    return std::make_pair(std::string("L4"), n);
  }
  return std::nullopt;
}


// "aws, gcp or lambda": the providers whose SkyPilot layout the importer reads.
std::string skypilot_providers() {
  std::vector<std::string_view> names;
  for (const ProviderFacts& p : providers())
    if (p.skypilot != SkyPilotLayout::None) names.push_back(p.name);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += std::string(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i]);
  return out;
}
}  // namespace

std::string skypilot_gpu_name(std::string_view accelerator, double memory_mib) {
  const std::string a = ascii_lower(accelerator);
  if (a == "a100") return memory_mib >= 81920 ? "A100-80GB-SXM" : "A100-40GB-SXM";
  if (a == "a100-80gb") return "A100-80GB-SXM";
  if (a == "h100" || a == "h100-mega") return "H100-SXM";
  if (a == "h200") return "H200";
  if (a == "b200") return "B200";
  if (a == "v100") return memory_mib >= 32768 ? "V100-SXM2-32GB" : "V100-SXM2-16GB";
  if (a == "v100-32gb") return "V100-SXM2-32GB";
  if (a == "t4") return "T4";
  if (a == "a10g") return "A10G";
  if (a == "a10") return "A10";
  if (a == "l4") return "L4";
  if (a == "l40s") return "L40S";
  if (a == "a6000" || a == "rtxa6000") return "RTX-A6000";
  if (a == "gh200") return "GH200";
  return "";
}

ImportResult import_skypilot(std::istream& in, std::string_view provider_in, const std::string& label,
                             const std::string& snapshot) {
  if (!valid_catalog_date(snapshot))
    throw std::invalid_argument("import_skypilot: the prices' date must be YYYY-MM-DD, YYYY-MM or YYYY, got '" + snapshot + "'");
  const std::string provider = ascii_lower(provider_in);
  const ProviderFacts* facts = find_provider(provider);
  if (facts == nullptr || facts->skypilot == SkyPilotLayout::None)
    throw Error("import_skypilot: provider must be " + skypilot_providers() + ", got '" + std::string(provider_in) + "'");
  const SkyPilotLayout layout = facts->skypilot;
  const bool split = layout == SkyPilotLayout::SplitAccelerators;
  csv::Reader reader(in, label, false);
  csv::Row row;
  if (!reader.next(row)) throw ConfigError(ErrorCode::EmptyFile, SourceMark{label, 0, 0}, "", "no header line");
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < row.fields.size(); ++i) index.emplace(row.fields[i].text, i);
  std::vector<std::string> required{"InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB", "Price", "Region"};
  if (layout != SkyPilotLayout::Regional) required.push_back("AvailabilityZone");
  for (const std::string& c : required)
    if (!index.count(c))
      csv::fail(ErrorCode::MissingKey, label, row.line, 1, c,
                "missing column '" + c + "' of the SkyPilot " + provider + " layout");

  ImportResult result;
  auto skip = [&](const std::string& reason) { ++result.report.skipped[reason]; };
  std::vector<SkyRow> rows;
  while (reader.next(row)) {
    ++result.report.rows;
    const RowReader r(row, index, label);
    SkyRow s;
    s.line = row.line;
    s.type = r.text("InstanceType");
    if (s.type.find_first_of("/@") != std::string::npos)
      r.fail(ErrorCode::WrongType, "InstanceType",
             "an instance type must not hold '/' or '@' (a reference is provider/type@zone): it could never be named");
    s.accelerator = r.text("AcceleratorName");
    s.region = r.text("Region");
    s.zone = r.text("AvailabilityZone");
    for (const char* column : {"Region", "AvailabilityZone"})
      if (r.text(column).find('@') != std::string::npos)
        r.fail(ErrorCode::WrongType, column, std::string(column) + " must not hold '@' (a reference is provider/type@zone)");
    // Counts within the integer ranges of the native catalog, sizes and prices within the
    // unit limits (docs/units.md, "Limits: time and numbers"): a huge cell is refused here,
    // not rounded into an int or summed into an infinite cost.
    s.count = r.quantity("AcceleratorCount", [](std::string_view t) { return catalog_bounded_number(t, 64); }, "8.0");
    s.vcpus = r.quantity("vCPUs", [](std::string_view t) { return catalog_bounded_number(t, 100000); }, "96.0");
    s.memory_gib = r.quantity(
        "MemoryGiB", [](std::string_view t) { return catalog_bounded_number(t, units::MAX_BYTES / 1073741824.0); }, "1152.0");
    s.gpu_memory_mib = gpu_memory_mib(r.text("GpuInfo"));
    if (!r.text("Price").empty()) s.price = r.quantity("Price", units::parse_usd_per_hour, "32.7726");
    if (!r.text("SpotPrice").empty()) s.spot = r.quantity("SpotPrice", units::parse_usd_per_hour, "6.7915");
    rows.push_back(std::move(s));
  }

  // Instances produced so far by (type, region, zone), with the input line each came from.
  std::map<std::tuple<std::string, std::string, std::string>, std::pair<std::size_t, int>> made;
  auto make = [&](const SkyRow& host, const std::string& gpu, int count, double price, std::optional<double> spot) {
    InstanceSpec s;
    s.provider = provider;
    s.instance_type = host.type;
    s.gpu = gpu;
    s.gpus = count;
    s.vcpus = static_cast<int>(std::lround(host.vcpus));
    s.memory_bytes = host.memory_gib * 1024.0 * 1024.0 * 1024.0;
    s.region = host.region;
    s.zone = host.zone;
    s.on_demand_usd_per_hour = price;
    s.spot_usd_per_hour = spot;
    s.billing = default_billing(provider);
    s.spot_notice = spot ? default_notice(provider) : sim::SimTime::zero();
    s.snapshot = snapshot;
    s.source = "skypilot-org/skypilot-catalog " + provider + "/vms.csv via " + csv::escape_control(label) + " line " +
               std::to_string(host.line);
    // The same instance twice: once when the figures agree (a repeated row), else the input
    // contradicts itself and no row can be chosen.
    const auto key = std::make_tuple(s.instance_type, s.region, s.zone);
    if (const auto it = made.find(key); it != made.end()) {
      const InstanceSpec& first = result.instances[it->second.first];
      if (first.gpu == s.gpu && first.gpus == s.gpus && first.vcpus == s.vcpus && first.memory_bytes == s.memory_bytes &&
          first.on_demand_usd_per_hour == s.on_demand_usd_per_hour && first.spot_usd_per_hour == s.spot_usd_per_hour) {
        ++result.report.duplicates;
        return;
      }
      throw ConfigError(ErrorCode::Duplicate, SourceMark{label, host.line, 1}, "InstanceType",
                        "'" + s.ref() + "' is given twice with different figures: lines " +
                            std::to_string(it->second.second) + " and " + std::to_string(host.line));
    }
    made.emplace(key, std::make_pair(result.instances.size(), host.line));
    result.instances.push_back(std::move(s));
  };

  // GCP: accelerator rows (no InstanceType) by (zone, name, count), consumed by host rows.
  std::map<std::tuple<std::string, std::string, int>, const SkyRow*> accel;
  std::set<const SkyRow*> used;
  if (split)
    for (const SkyRow& s : rows)
      if (s.type.empty() && !s.accelerator.empty())
        accel.emplace(std::make_tuple(s.zone, s.accelerator, static_cast<int>(std::lround(s.count))), &s);

  for (const SkyRow& s : rows) {
    if (split && s.type.empty()) continue;  // accelerator rows: counted below
    if (!s.price) {
      skip("no on-demand price");
      continue;
    }
    std::string accelerator = s.accelerator;
    double count = s.count;
    const SkyRow* gcp_accel = nullptr;
    if (split && accelerator.empty()) {
      const auto fixed = gcp_fixed_gpus(s.type);
      if (!fixed) {
        skip("no GPU (CPU-only machine type)");
        continue;
      }
      const auto it = accel.find(std::make_tuple(s.zone, fixed->first, fixed->second));
      if (it == accel.end() || !it->second->price) {
        skip("GCP host row without its accelerator row in the same zone");
        continue;
      }
      gcp_accel = it->second;
      accelerator = fixed->first;
      count = fixed->second;
    }
    if (accelerator.empty()) {
      skip("no GPU (CPU-only machine type)");
      continue;
    }
    const std::string gpu = skypilot_gpu_name(accelerator, s.gpu_memory_mib);
    if (gpu.empty()) {
      skip("GPU not in our catalog");
      ++result.report.unknown_gpus[accelerator];
      continue;
    }
    if (count < 1 || count != std::floor(count) || count > 64) {
      skip("fractional or out-of-range GPU count");
      continue;
    }
    double price = *s.price;
    std::optional<double> spot = s.spot;
    if (gcp_accel != nullptr) {
      used.insert(gcp_accel);
      price += *gcp_accel->price;
      spot = s.spot && gcp_accel->spot ? std::optional<double>(*s.spot + *gcp_accel->spot) : std::nullopt;
    }
    make(s, gpu, static_cast<int>(count), price, spot);
  }
  if (split) {
    for (const SkyRow& s : rows) {
      if (!s.type.empty() || used.count(&s)) continue;
      if (s.accelerator.empty()) {
        skip("no GPU (CPU-only machine type)");
      } else if (skypilot_gpu_name(s.accelerator, s.gpu_memory_mib).empty()) {
        skip("GPU not in our catalog");
        ++result.report.unknown_gpus[s.accelerator];
      } else {
        skip("GCP accelerator row with no fixed-GPU host row in the same zone (e.g. GPUs attached to N1 VMs)");
      }
    }
  }
  result.report.merged = used.size();
  result.report.imported = result.instances.size();
  return result;
}

}  // namespace gcsim::models
