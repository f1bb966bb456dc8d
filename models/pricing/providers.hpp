// The cloud providers gcsim knows and every fact it holds about each, in one table with
// its sources (docs/pricing.md "Billing rules", docs/spot.md "Notice defaults",
// docs/pricing.md "Importing SkyPilot catalogs"): the default billing rule, the spot
// reclaim notice and the layout of the provider's SkyPilot catalog. Scenario `provider:`
// values, catalog rows, the billing and notice defaults and the SkyPilot importer all read
// this table; a provider not in it bills per second with no minimum, gets no notice and
// cannot be imported.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/pricing/billing.hpp"
#include "sim/time.hpp"

namespace gcsim::models {

// How a provider's skypilot-catalog vms.csv lays out its GPU rows.
enum class SkyPilotLayout {
  None,              // no SkyPilot catalog is imported for this provider
  Zoned,             // one row per instance and zone (AvailabilityZone column)
  Regional,          // one row per instance and region (no AvailabilityZone column)
  SplitAccelerators  // zoned, the GPUs priced in accelerator rows of their own (GCP)
};

struct ProviderFacts {
  std::string_view name;       // the id in scenarios and catalogs, lower case
  BillingRule billing;         // the default rule of its nodes
  std::string_view billing_source;
  sim::SimTime spot_notice;    // the reclaim notice of its spot nodes; zero when not published
  std::string_view notice_source;
  SkyPilotLayout skypilot = SkyPilotLayout::None;
  // Whether a node is billed while it boots (from the request to up): an autoscaled pool's
  // default (`autoscale.bill_provisioning`; docs/autoscaling.md, "Billing").
  bool bills_provisioning = true;
  std::string_view provisioning_source = "not published: ASSUMPTION billed from the request (the dearer reading)";
};

// Every known provider, in the order the docs list them.
const std::vector<ProviderFacts>& providers();
// The names of providers(), for `provider:` values and did-you-mean.
const std::vector<std::string>& provider_names();
// The row of a provider (case-insensitive id); nullptr when unknown.
const ProviderFacts* find_provider(std::string_view name);

// The default billing rule of a provider's nodes; exact per-second billing with no
// minimum (pure proration, the neutral choice) for an unknown provider.
BillingRule default_billing(std::string_view provider);
// The reclaim notice of a provider's spot nodes: AWS 2 min, GCP and Azure 30 s; zero for
// the others (not published) and for unknown providers.
sim::SimTime default_notice(std::string_view provider);
// Whether a provider bills a node's provisioning (ProviderFacts::bills_provisioning); true
// for an unknown provider (the dearer reading).
bool default_bills_provisioning(std::string_view provider);

}  // namespace gcsim::models
