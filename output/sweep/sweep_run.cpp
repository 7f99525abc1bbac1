#include "output/sweep/sweep_run.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <unordered_map>

#include "output/common/atomic_file.hpp"
#include "output/sweep/point_queue.hpp"
#include "output/sweep/sweep_eval.hpp"
#include "sim/parallel_for.hpp"

namespace stepsim::out {
namespace {

/// True when `out` already holds this shard's complete results.
bool complete_file(const std::filesystem::path& out, const SweepIdentity& id, const SweepSchema& schema,
                   std::uint64_t rows) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(out, ec)) return false;
  try {
    const SweepFileHeader h = read_sweep_hdf5_header(out);
    const SweepIdentity& f = h.info.identity;
    return f.sweep_hash == id.sweep_hash && f.points == id.points && f.shard.index == id.shard.index &&
           f.shard.count == id.shard.count && f.version == id.version && h.schema == schema &&
           h.info.rows == rows;
  } catch (const UserError&) {
    return false;  // not a results file (or not ours): the run replaces it
  }
}

bool journal_exists(const std::filesystem::path& path) {
  std::error_code ec;
  const bool found = std::filesystem::exists(std::filesystem::symlink_status(path, ec));
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw UserError(SourceLocation{path.string(), 0, 0}, "", "cannot use the sweep journal: " + ec.message());
  return found;
}

SweepJournal open_or_create(const std::filesystem::path& path, const SweepIdentity& id,
                            const SweepSchema& schema, bool resume) {
  if (!journal_exists(path)) return SweepJournal::create(path, id, schema);
  if (!resume && SweepJournal::in_use(path))
    throw UserError(SourceLocation{path.string(), 0, 0}, "",
                    "another stepsim process is running this sweep now (it holds this journal)",
                    "wait for it to finish, or stop it and pass --resume to continue its work");
  if (!resume)
    throw UserError(SourceLocation{path.string(), 0, 0}, "", "an interrupted sweep left this journal",
                    "pass --resume to continue it, or delete it to start over");
  return SweepJournal::open(path, id, schema);
}

/// `todo` in groups of points with one program key (PointEvaluator::program_key), each in point
/// order, the groups by decreasing estimated cost (PointEvaluator::cost of the first point times
/// the points; ties in point order). Longest first, the way a list scheduler balances threads:
/// the big groups start at once, and the small ones fill in while the last big ones finish.
std::vector<std::vector<std::uint64_t>> program_groups(const PointEvaluator& eval,
                                                       const scen::SweepPoints& points,
                                                       std::span<const std::uint64_t> todo, unsigned jobs) {
  std::vector<std::vector<std::uint64_t>> groups;
  std::unordered_map<std::string, std::size_t> group_of;
  for (std::uint64_t p : todo) {
    const auto [it, added] = group_of.try_emplace(eval.program_key(points.steps(p)), groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(p);
  }
  std::vector<double> cost(groups.size());
  parallel_for(groups.size(), jobs, [&](std::size_t g) {
    cost[g] = eval.cost(points.steps(groups[g].front())) * static_cast<double>(groups[g].size());
  });
  std::vector<std::size_t> order(groups.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });
  std::vector<std::vector<std::uint64_t>> sorted;
  sorted.reserve(groups.size());
  for (std::size_t g : order) sorted.push_back(std::move(groups[g]));
  return sorted;
}

/// Evaluates `todo` on `jobs` threads, appending rows to `journal` as they finish. Threads take
/// points from a PointQueue, so that points sharing their step mostly share one build of it.
void evaluate_all(const PointEvaluator& eval, const scen::SweepPoints& points,
                  std::span<const std::uint64_t> todo, unsigned jobs, SweepJournal& journal,
                  SweepProgress& progress) {
  PointQueue queue(program_groups(eval, points, todo, jobs));
  const std::size_t threads = std::min<std::size_t>(std::max(1u, jobs), todo.size());
  parallel_for(threads, jobs, [&](std::size_t) {
    work::StepProgram program;
    std::optional<PointQueue::Claim> claim;
    try {
      while (const auto next = queue.next(claim)) {
        if (!claim || claim->group != next->group) program = work::StepProgram{};
        claim = next;
        journal.append(eval.evaluate(claim->point, points.steps(claim->point), program));
        progress.advance();
      }
    } catch (...) {
      queue.close();  // the sweep stops: the other threads take no new point
      throw;
    }
  });
}

/// The results file and CSV from a complete journal, which is then deleted.
void write_results(const SweepRunOptions& options, const SweepJournal& journal, const SweepFileInfo& info) {
  try {
    write_sweep_hdf5(options.out, journal, info);
    if (options.csv) write_sweep_csv(*options.csv, journal);
  } catch (const UserError& e) {
    throw UserError(e.where(), e.key(), e.problem(),
                    (e.hint().empty() ? "" : e.hint() + "; ") + "every row is kept in " +
                        journal.path().filename().string() +
                        ": --resume writes the files without computing them again");
  }
  // Only now is the journal redundant; a crash before this line leaves it for --resume. (Should
  // it stay, --resume finds every row in it and writes the same file again.)
  std::error_code ec;
  std::filesystem::remove(journal.path(), ec);
  sync_directory(journal.path().parent_path());
}

}  // namespace

std::filesystem::path journal_path(const std::filesystem::path& out) {
  return out.string() + ".journal";
}

SweepFileInfo sweep_file_info(const scen::Sweep& sweep, std::uint64_t points, scen::Shard shard,
                              const std::string& version) {
  SweepFileInfo info;
  info.identity = SweepIdentity{sweep.name, sweep.hash_hex(), points, shard, version};
  info.sweep_text = sweep.text;
  info.base_text = sweep.base_text;
  return info;
}

std::array<std::uint64_t, 4> count_statuses(const SweepJournal& rows, std::string& first_problem) {
  std::array<std::uint64_t, 4> n{};
  const std::size_t col = rows.schema().first_result;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row row = rows.row(i);
    const std::string& status = std::get<std::string>(row[col]);
    for (std::size_t s = 0; s < n.size(); ++s)
      if (status == name(static_cast<PointStatus>(s))) ++n[s];
    const bool problem = status == name(PointStatus::invalid) || status == name(PointStatus::failed);
    if (problem && first_problem.empty())
      first_problem = "point " + std::to_string(std::get<std::int64_t>(row[0])) + ": " +
                      std::get<std::string>(row[col + 1]);
  }
  return n;
}

SweepRunSummary run_sweep(const scen::Sweep& sweep, const scen::Catalog& catalog,
                          const SweepRunOptions& options, std::ostream& progress_out) {
  // Before any point: the files can be written (a folder named as --out, a read-only or missing
  // folder, a name too long for its journal are found now, not after the last point).
  check_output_path(options.out, "--out", {".journal"});
  if (options.csv) check_output_path(*options.csv, "--csv");
  const PointEvaluator eval(sweep, catalog, options.max_ops);
  const scen::SweepPoints points(sweep);
  SweepRunSummary sum;
  sum.points_total = points.size();
  sum.rejected = points.rejected();
  std::vector<std::uint64_t> mine;
  for (std::uint64_t p = options.shard.index; p < points.size(); p += options.shard.count) mine.push_back(p);
  sum.points_shard = mine.size();
  const SweepFileInfo info = sweep_file_info(sweep, points.size(), options.shard, options.version);
  check_sweep_hdf5(options.out, eval.schema(), info);
  const auto jpath = journal_path(options.out);
  if (options.resume && !journal_exists(jpath) &&
      complete_file(options.out, info.identity, eval.schema(), mine.size())) {
    sum.already_complete = true;
    return sum;
  }
  SweepJournal journal = open_or_create(jpath, info.identity, eval.schema(), options.resume);
  const std::vector<std::uint64_t> done = journal.points();
  sum.resumed = done.size();
  std::vector<std::uint64_t> todo;
  std::set_difference(mine.begin(), mine.end(), done.begin(), done.end(), std::back_inserter(todo));
  SweepProgress progress(progress_out, options.progress, mine.size(), mine.size() - todo.size());
  const auto start = std::chrono::steady_clock::now();
  evaluate_all(eval, points, todo, options.jobs, journal, progress);
  sum.run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.finish();
  sum.evaluated = todo.size();
  journal.sync();
  if (journal.points() != mine)
    throw std::logic_error("sweep journal holds " + std::to_string(journal.size()) + " points, expected " +
                           std::to_string(mine.size()));
  sum.by_status = count_statuses(journal, sum.first_problem);
  write_results(options, journal, info);
  return sum;
}

}  // namespace stepsim::out
