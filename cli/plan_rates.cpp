// Spot interruption rates of gcsim plan's candidates (see plan_rates.hpp).
#include "cli/plan_rates.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/units.hpp"

namespace gcsim::cli {

namespace {
constexpr const char* BAND_LABELS[] = {"<5%", "5-10%", "10-15%", "15-20%", ">20%"};
constexpr double HOURS_PER_MONTH = 730;  // 8,760 / 12, as docs/spot.md and the price sheets
}  // namespace

double advisor_band_upper_monthly(int band) { return 0.05 * (std::clamp(band, 0, 4) + 1); }

double monthly_probability_to_rate_per_hour(double p) { return -std::log1p(-p) / HOURS_PER_MONTH; }

SpotRate plan_spot_rate(std::string_view provider, std::string_view instance_type, std::string_view region,
                        const models::SpotAdvisor& advisor, std::optional<double> explicit_rate_per_h,
                        const std::optional<SpotRate>& provider_rate, double fallback_per_h) {
  if (explicit_rate_per_h) return {*explicit_rate_per_h, "--spot-rate"};
  if (provider == "aws") {
    const auto from_band = [&](int band, const std::string& where) {
      const double p = advisor_band_upper_monthly(band);
      return SpotRate{monthly_probability_to_rate_per_hour(p),
                      "AWS Spot Advisor " + where + " band " + BAND_LABELS[band] + " (upper edge " +
                          std::to_string(static_cast<int>(std::lround(p * 100))) + "% a month)"};
    };
    if (!region.empty())
      if (const models::AdvisorEntry* e = advisor.find(region, instance_type)) return from_band(e->band, std::string(region));
    std::vector<int> bands;
    for (const models::AdvisorEntry& e : advisor.entries())
      if (e.instance == instance_type) bands.push_back(e.band);
    if (!bands.empty()) {
      std::sort(bands.begin(), bands.end());
      // The upper median for an even count: of two middle bands, the worse.
      return from_band(bands[bands.size() / 2], "median of " + std::to_string(bands.size()) + " regions");
    }
    return {fallback_per_h, "assumed (--spot-rate default): " + std::string(instance_type) + " is not in the AWS Spot Advisor data"};
  }
  if (provider_rate) return *provider_rate;
  return {fallback_per_h, "assumed (--spot-rate default): no sourced interruption rate for " + std::string(provider)};
}

}  // namespace gcsim::cli
