#pragma once
// The crash-safe record of a running sweep: an append-only file of completed rows.
//
// Each row is one record, [u32 length][u32 CRC-32][payload], written with a single write(2) the
// moment its point finishes, and fdatasync'd at most a second later. A process killed at any
// moment (kill -9) leaves every finished record intact in the page cache, plus at most one torn
// record at the end; opening the journal again drops that torn tail and truncates the file there.
// So the rows lost are exactly the points that were still in flight. An OS crash or power loss can
// lose up to the last second of records as well, and may leave zeros or stale bytes where they
// were (ext4, XFS): the first record that does not decode (zero or impossible length, CRC
// mismatch, cut short, not a row) and everything after it is that torn tail, and its points are
// rerun. The journal is locked (flock) while a process uses it.

#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "output/common/atomic_file.hpp"
#include "output/sweep/sweep_table.hpp"

namespace stepsim::out {

/// What a journal or results file belongs to; a journal is only resumed by the same sweep.
struct SweepIdentity {
  std::string sweep_name;
  std::string sweep_hash;    ///< Sweep::hash_hex()
  std::uint64_t points = 0;  ///< points of the whole sweep (all shards, after filters)
  scen::Shard shard;
  std::string version;  ///< stepsim version that produced the rows
  /// The header text: every field and the schema's columns, one per line.
  std::string header(const SweepSchema& schema) const;
};

class SweepJournal {
 public:
  /// Creates (or truncates) the journal and writes its header durably (file and folder synced).
  static SweepJournal create(const std::filesystem::path& path, const SweepIdentity& id,
                             const SweepSchema& schema);
  /// Opens a journal to continue it: its header must equal the one `id` and `schema` give
  /// (UserError otherwise, saying whether it is another sweep's or damaged), a torn tail is cut
  /// off, and the rows present are indexed. UserError if another process holds it.
  static SweepJournal open(const std::filesystem::path& path, const SweepIdentity& id,
                           const SweepSchema& schema);

  /// True when another process holds the journal at `path` (a sweep running now).
  static bool in_use(const std::filesystem::path& path);

  SweepJournal(SweepJournal&& other) noexcept;
  SweepJournal& operator=(SweepJournal&&) = delete;
  SweepJournal(const SweepJournal&) = delete;
  ~SweepJournal();

  /// Appends one finished row (one write; synced within a second). Thread-safe.
  void append(const Row& row);
  /// Forces every appended record to disk.
  void sync();

  /// Distinct points recorded so far, ascending.
  std::vector<std::uint64_t> points() const;
  /// Number of distinct points recorded.
  std::size_t size() const;
  /// The row of the i-th recorded point in ascending point order (0 <= i < size()).
  Row row(std::size_t i) const;
  /// Length of the longest text in each column over all rows (0 for other columns).
  std::vector<std::size_t> text_widths() const;
  const SweepSchema& schema() const { return schema_; }
  const std::filesystem::path& path() const { return path_; }
  /// Bytes of torn tail that open() cut off.
  std::uint64_t dropped_bytes() const { return dropped_bytes_; }

 private:
  struct Entry {
    std::uint64_t point;
    std::uint64_t offset;  ///< of the payload
    std::uint32_t length;
  };
  SweepJournal(std::filesystem::path path, int fd, SweepSchema schema);
  void scan(std::uint64_t start);
  const std::vector<Entry>& sorted() const;

  std::filesystem::path path_;
  int fd_ = -1;
  SweepSchema schema_;
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;         ///< in file order
  mutable std::vector<Entry> sorted_;  ///< by point, first record of each point; rebuilt on demand
  mutable bool sorted_valid_ = false;
  std::vector<std::size_t> widths_;
  std::uint64_t end_ = 0;            ///< file size after the last whole record
  std::uint64_t dropped_bytes_ = 0;  ///< torn tail cut off by open()
  double last_sync_s_ = 0.0;         ///< steady-clock seconds of the last fdatasync
};

/// CRC-32 (IEEE 802.3, as zlib: Boost.CRC's crc_32_type), to detect torn records. Journals on disk
/// carry it, so it is part of the file format.
std::uint32_t crc32(std::string_view bytes);

}  // namespace stepsim::out
