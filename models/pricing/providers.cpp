// The provider table; see providers.hpp. Each row carries the sources of its figures, which
// docs/pricing.md ("Billing rules") and docs/spot.md ("Notice defaults") repeat.
#include "models/pricing/providers.hpp"

#include <algorithm>

#include "sim/errors.hpp"
#include "sim/units.hpp"

namespace gcsim::models {
namespace {

constexpr sim::SimTime NO_NOTICE = sim::SimTime::zero();
constexpr std::string_view NOTICE_NOT_PUBLISHED = "not published: no notice";
constexpr std::string_view PROVISIONING_NOT_PUBLISHED =
    "not published: ASSUMPTION billed from the request (the dearer reading; `bill_provisioning: false` says otherwise)";

std::vector<ProviderFacts> make_providers() {
  const sim::SimTime zero = sim::SimTime::zero();
  const sim::SimTime month = sim::hours(units::HOURS_PER_MONTH);
  return {
      {"aws", BillingRule{sim::seconds(1), sim::seconds(60)},
       "per second, 60 s minimum: \"Amazon EC2 usage of Linux based instances that are launched in On-Demand, "
       "Reserved and Spot form will be billed on one second increments, with a minimum of 60 seconds\" (AWS What's "
       "New, 2017-10-02, aws.amazon.com/about-aws/whats-new/2017/10/announcing-amazon-ec2-per-second-billing/); "
       "Windows followed in 2021. Instances with a separate hourly OS charge, dedicated instances and Marketplace "
       "products still bill per hour (same notice): not modelled",
       sim::seconds(120),
       "AWS EC2 \"Spot Instance interruption notices\": a two-minute warning "
       "(docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-instance-termination-notices.html)",
       SkyPilotLayout::Zoned, false,
       "not billed: \"pending ... Not billed; running ... Billed\" (Amazon EC2 User Guide, \"Amazon EC2 instance state "
       "changes\", Billing by instance state, docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-instance-lifecycle.html); "
       "the guest's own boot after `running` is billed and belongs in the workload's start-up, not here"},
      {"gcp", BillingRule{sim::seconds(1), sim::seconds(60)},
       "per second, 1 minute minimum (Packt, \"Google Cloud Platform for Developers\", section \"Pricing on GCE\": "
       "\"charged ... on a per-second basis, with a minimum time of one minute\"); a secondary source, Google's own "
       "pricing page was not in the corpus",
       sim::seconds(30),
       "Compute Engine Spot VMs: 30 s between ACPI soft-off and hard-off (Compute API "
       "Scheduling.skipGuestOsShutdown documentation)",
       SkyPilotLayout::SplitAccelerators, false,
       "not billed: an instance is PROVISIONING, then STAGING, then RUNNING, and Compute Engine bills from RUNNING "
       "(Compute Engine \"Instance lifecycle\", docs.cloud.google.com/compute/docs/instances/instance-lifecycle; the "
       "billing sentence itself was not in the corpus: likely, not proven)"},
      {"azure", BillingRule{sim::seconds(1), sim::minutes(5)},
       "per second, 5 minute minimum from 2025-06-01 (Microsoft Q&A answer 2259765, "
       "learn.microsoft.com/en-us/answers/questions/2259765: \"minimum billing duration of 5 minutes (300 seconds) "
       "... billing will continue to be calculated per second\"); a community answer quoting Microsoft's notice: "
       "likely, not proven. Before June 2025: per second, no minimum",
       sim::seconds(30), "Azure Scheduled Events: Preempt gives at least 30 s (MicrosoftDocs azure-docs, scheduled-events)",
       SkyPilotLayout::None, true, PROVISIONING_NOT_PUBLISHED},
      {"lambda", BillingRule{sim::minutes(1), zero},
       "per minute: \"ODC prices instances by hourly usage and bills in one-minute increments\" "
       "(docs.lambda.ai/public-cloud/billing)",
       NO_NOTICE, NOTICE_NOT_PUBLISHED, SkyPilotLayout::Regional, true, PROVISIONING_NOT_PUBLISHED},
      {"alibaba", BillingRule{sim::seconds(1), zero},
       "per second: \"Pay-As-You-Go ECS instances ... charged by the second\" (Alibaba Cloud notice ECS-0928, "
       "2017-09-28). The current ECS page adds a per-hour minimum that \"varies based on the number of vCPUs\" "
       "without figures: ASSUMPTION no minimum",
       NO_NOTICE, NOTICE_NOT_PUBLISHED, SkyPilotLayout::None, true, PROVISIONING_NOT_PUBLISHED},
      {"tencent", BillingRule{sim::seconds(1), zero},
       "per second: \"The billing granularity is accurate to second\" (Tencent Cloud CVM \"Selecting a Billing "
       "Mode\", intl.cloud.tencent.com/document/product/213/15373)",
       NO_NOTICE, NOTICE_NOT_PUBLISHED, SkyPilotLayout::None, true, PROVISIONING_NOT_PUBLISHED},
      {"vast", BillingRule{sim::seconds(1), zero},
       "per second: vast.ai/pricing \"Per-second billing\" (as transcribed in api-evangelist/vast-ai "
       "plans/vast-ai-plans-pricing.yml, 2026-10-07)",
       NO_NOTICE, NOTICE_NOT_PUBLISHED, SkyPilotLayout::None, true, PROVISIONING_NOT_PUBLISHED},
      {"colab", BillingRule{sim::seconds(1), zero},
       "ASSUMPTION per second: compute units are drawn down continuously while a runtime is attached; Google "
       "publishes no rounding rule",
       NO_NOTICE, NOTICE_NOT_PUBLISHED, SkyPilotLayout::None, true, PROVISIONING_NOT_PUBLISHED},
      {"dgx-cloud", BillingRule{month, month},
       "per month (730 h), one-month minimum: DGX Cloud was leased per node per month (\"$36,999 a month\", "
       "aisecret.us \"Nvidia's Next $4 Trillion Bet\", 2025, on the 2023 launch price)",
       NO_NOTICE, NOTICE_NOT_PUBLISHED, SkyPilotLayout::None, true, PROVISIONING_NOT_PUBLISHED},
  };
}

}  // namespace

const std::vector<ProviderFacts>& providers() {
  static const std::vector<ProviderFacts> table = make_providers();
  return table;
}

const std::vector<std::string>& provider_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const ProviderFacts& p : providers()) n.emplace_back(p.name);
    return n;
  }();
  return names;
}

bool default_bills_provisioning(std::string_view provider) {
  const ProviderFacts* p = find_provider(provider);
  return p == nullptr || p->bills_provisioning;
}

const ProviderFacts* find_provider(std::string_view name) {
  const std::string id = ascii_lower(name);
  const auto& table = providers();
  const auto it = std::find_if(table.begin(), table.end(), [&](const ProviderFacts& p) { return p.name == id; });
  return it == table.end() ? nullptr : &*it;
}

BillingRule default_billing(std::string_view provider) {
  const ProviderFacts* p = find_provider(provider);
  return p != nullptr ? p->billing : per_second_billing();
}

sim::SimTime default_notice(std::string_view provider) {
  const ProviderFacts* p = find_provider(provider);
  return p != nullptr ? p->spot_notice : NO_NOTICE;
}

}  // namespace gcsim::models
