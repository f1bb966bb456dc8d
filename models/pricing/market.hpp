// How a node is bought: the market of a node type (`price.market`). A header of its own so
// that the policies, which rank by market, need not include the price specs' readers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gcsim::models {

enum class Market { OnDemand, Spot, Reserved, Owned };
std::string_view market_name(Market m);  // "on_demand", "spot", "reserved", "owned"
const std::vector<std::string>& market_names();
std::optional<Market> market_from_name(std::string_view name);

}  // namespace gcsim::models
