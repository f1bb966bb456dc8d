// Charge category names (see ledger.hpp).
#include "models/pricing/ledger.hpp"

namespace gcsim::models {

std::string_view charge_category_name(ChargeCategory c) {
  switch (c) {
    case ChargeCategory::ComputeBusy: return "compute_busy";
    case ChargeCategory::ComputeIdle: return "compute_idle";
    case ChargeCategory::Storage: return "storage";
    case ChargeCategory::Egress: return "egress";
    case ChargeCategory::Requests: return "requests";
    case ChargeCategory::Ownership: return "ownership";
    case ChargeCategory::Reserved: return "reserved";
  }
  return "unknown";
}

}  // namespace gcsim::models
