// The dense number of a link resource. The topology numbers its link resources 0..N-1 and
// the flow network adds them in that order (FlowNetwork::add_links), so one id names the
// same link in both; this header lets topology/ name links without including network/.
#pragma once

#include <cstdint>

namespace gcsim::topology {

using LinkId = std::uint32_t;

}  // namespace gcsim::topology
