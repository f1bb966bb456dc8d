// The spot interruption rate of each of gcsim plan's spot candidates, from sourced figures
// (docs/plan.md, "Spot interruption rates"): an explicit --spot-rate for all; for AWS the
// Spot Instance Advisor band of the instance type in its region (or the median band over
// the regions that list it), its upper edge read as the chance of an interruption within a
// 730-hour month; for another provider a sourced rate of the provider attributes file, if it
// has one; else the --spot-rate default, said to be an assumption.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "models/spot/spot_spec.hpp"

namespace gcsim::cli {

struct SpotRate {
  double per_hour = 0;  // interruptions per node-hour (Poisson)
  std::string source;   // where it comes from, one line
};

// The upper edge of an Advisor band as a monthly probability: 5%, 10%, 15%, 20%, and 25%
// for the open ">20%" band (the same 5-point width; a lower estimate for that band).
double advisor_band_upper_monthly(int band);
// lambda per hour with 1 - exp(-730 lambda) = p.
double monthly_probability_to_rate_per_hour(double p);

// The rate of a spot candidate of `provider`/`instance_type` in `region` ("" = not known).
// `explicit_rate_per_h` (--spot-rate given) wins; `provider_rate` is a sourced provider
// default (rate per hour and its source); `fallback_per_h` the default's value.
SpotRate plan_spot_rate(std::string_view provider, std::string_view instance_type, std::string_view region,
                        const models::SpotAdvisor& advisor, std::optional<double> explicit_rate_per_h,
                        const std::optional<SpotRate>& provider_rate, double fallback_per_h);

}  // namespace gcsim::cli
