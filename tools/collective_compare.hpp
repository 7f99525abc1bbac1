#pragma once
// `stepsim collective --compare FILE`: every row of a measured-collectives CSV simulated on the
// cluster it describes, with the error per row and a summary by message-size band.

#include <filesystem>

#include "scenarios/catalog.hpp"

namespace stepsim::cli {

/// Simulates each expressible row alone on an idle network and prints (table or JSON) the
/// measured and simulated bus bandwidth, the error, the algorithm and protocol stepsim ran and the
/// one it would choose itself; rows it cannot express are listed with the reason.
void compare_measurements(const std::filesystem::path& file, const scen::Catalog& catalog, bool json);

}  // namespace stepsim::cli
