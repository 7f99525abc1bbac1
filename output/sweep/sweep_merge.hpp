#pragma once
// Joining the results files of a sharded sweep into one, identical to the file an unsharded run
// writes: same sweep, every point exactly once, rows in point order.

#include <filesystem>
#include <optional>
#include <span>

namespace stepsim::out {

struct MergeSummary {
  std::uint64_t points = 0;
  std::size_t files = 0;
};

/// Checks that `shards` come from one sweep (same hash, schema and stepsim version) and together
/// hold every point exactly once, then writes `out` (and `csv`). A UserError names the file and
/// the points at fault (missing points: the first few, and which shard should have had them).
MergeSummary merge_sweep_files(const std::filesystem::path& out,
                               std::span<const std::filesystem::path> shards,
                               const std::optional<std::filesystem::path>& csv = std::nullopt);

}  // namespace stepsim::out
