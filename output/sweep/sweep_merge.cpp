#include "output/sweep/sweep_merge.hpp"

#include <string>
#include <vector>

#include "output/common/atomic_file.hpp"
#include "output/sweep/sweep_hdf5.hpp"
#include "output/sweep/sweep_run.hpp"

namespace stepsim::out {
namespace {

[[noreturn]] void mismatch(const std::filesystem::path& file, const std::filesystem::path& first,
                           const std::string& what) {
  throw UserError(SourceLocation{file.string(), 0, 0}, "", what + " differs from " + first.string(),
                  "merge only the shards of one sweep, run by one stepsim version");
}

void check_same(const SweepFileHeader& a, const std::filesystem::path& pa, const SweepFileHeader& b,
                const std::filesystem::path& pb) {
  const SweepIdentity& x = a.info.identity;
  const SweepIdentity& y = b.info.identity;
  if (x.sweep_hash != y.sweep_hash)
    mismatch(pb, pa, "the sweep (hash " + y.sweep_hash + " vs " + x.sweep_hash + ")");
  if (x.points != y.points) mismatch(pb, pa, "the number of points");
  if (x.version != y.version)
    mismatch(pb, pa, "the stepsim version (" + y.version + " vs " + x.version + ")");
  if (!(a.schema == b.schema)) mismatch(pb, pa, "the columns");
  if (x.shard.count != y.shard.count) mismatch(pb, pa, "the shard count");
}

/// "3 points are missing: 4, 9, 14 (shard 1/5 has none of them)": which files to rerun.
std::string missing_text(const std::vector<std::uint64_t>& missing, std::uint32_t count) {
  std::string list;
  for (std::size_t i = 0; i < missing.size() && i < 8; ++i)
    list += (i ? ", " : "") + std::to_string(missing[i]);
  if (missing.size() > 8) list += ", ...";
  std::vector<bool> shard(count, false);
  for (const auto p : missing) shard[p % count] = true;
  std::string shards;
  for (std::uint32_t s = 0; s < count; ++s)
    if (shard[s]) shards += (shards.empty() ? "" : ", ") + std::to_string(s) + "/" + std::to_string(count);
  return std::to_string(missing.size()) + " point" + (missing.size() == 1 ? " is" : "s are") + " missing (" +
         list + "); they belong to shard" + (shards.find(',') == std::string::npos ? " " : "s ") + shards;
}

}  // namespace

MergeSummary merge_sweep_files(const std::filesystem::path& out,
                               std::span<const std::filesystem::path> shards,
                               const std::optional<std::filesystem::path>& csv) {
  if (shards.empty()) throw UserError("merge: no shard files given");
  check_output_path(out, "merge output", {".merge-journal"});
  if (csv) check_output_path(*csv, "--csv");
  std::vector<SweepFileHeader> headers;
  for (const auto& p : shards) {
    headers.push_back(read_sweep_hdf5_header(p));
    check_same(headers.front(), shards.front(), headers.back(), p);
  }
  const SweepFileHeader& first = headers.front();
  SweepFileInfo info = first.info;
  info.identity.shard = scen::Shard{0, 1};
  const std::uint64_t points = info.identity.points;
  // Rows go through a journal of their own, so the merged file is written by exactly the code
  // (and in exactly the order) of an unsharded run.
  const std::filesystem::path jpath = out.string() + ".merge-journal";
  SweepJournal journal = SweepJournal::create(jpath, info.identity, first.schema);
  struct RemoveOnExit {
    std::filesystem::path path;
    ~RemoveOnExit() {
      std::error_code ec;
      std::filesystem::remove(path, ec);
    }
  } cleanup{jpath};
  std::vector<std::int32_t> owner(points, -1);
  for (std::size_t f = 0; f < shards.size(); ++f) {
    read_sweep_hdf5_rows(shards[f], [&](Row&& row) {
      const auto p = std::get<std::int64_t>(row[0]);
      if (p < 0 || static_cast<std::uint64_t>(p) >= points)
        throw UserError(
            SourceLocation{shards[f].string(), 0, 0}, "",
            "holds point " + std::to_string(p) + ", outside the sweep's " + std::to_string(points));
      if (owner[p] >= 0)
        throw UserError(SourceLocation{shards[f].string(), 0, 0}, "",
                        "point " + std::to_string(p) + " is also in " + shards[owner[p]].string(),
                        "each shard must appear once; rerun the shards with distinct --shard i/n");
      owner[p] = static_cast<std::int32_t>(f);
      journal.append(row);
    });
  }
  std::vector<std::uint64_t> missing;
  for (std::uint64_t p = 0; p < points; ++p)
    if (owner[p] < 0) missing.push_back(p);
  if (!missing.empty())
    throw UserError(SourceLocation{out.string(), 0, 0}, "",
                    missing_text(missing, first.info.identity.shard.count),
                    "rerun the missing shards (with --resume) and merge again");
  write_sweep_hdf5(out, journal, info);
  if (csv) write_sweep_csv(*csv, journal);
  return MergeSummary{points, shards.size()};
}

}  // namespace stepsim::out
