// The two small tables gcsim plan reads beside the instance catalog (docs/plan.md):
// scenarios/catalog/provider_attributes.csv (provider, attribute, value, source: what the
// five scores cannot measure, each value with its source) and
// scenarios/catalog/reserved_terms.csv (the reserved terms a source states per instance).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gcsim::cli {

struct ProviderAttribute {
  std::string provider, attribute, value, source;
};

struct ReservedTermsRow {
  std::string provider, instance_type;
  std::string term;        // a duration as written (1y)
  std::string upfront;     // none | partial | all
  double upfront_usd = 0;  // per node
  double per_hour = 0;     // USD per node-hour
  std::string source;
};

// Each reads `path` (a missing file: FileNotFound); strict: the header exactly, every row
// its field count (Syntax), a known attribute, a value and a source (MissingKey), numbers
// that parse (WrongType), no (provider, attribute) or (provider, type) twice (Duplicate); all
// ConfigErrors at the file's line and column.
std::vector<ProviderAttribute> read_provider_attributes(const std::string& path);
std::vector<ReservedTermsRow> read_reserved_terms(const std::string& path);

// The attributes provider_attributes.csv may hold, in the order the scores show them.
inline constexpr std::string_view PROVIDER_ATTRIBUTES[] = {"vm_sla", "spot_notice", "spot_rate_per_h", "ml_platform",
                                                          "dl_images", "certifications"};

const ProviderAttribute* find_attribute(const std::vector<ProviderAttribute>& all, std::string_view provider,
                                        std::string_view attribute);

}  // namespace gcsim::cli
