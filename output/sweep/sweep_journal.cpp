#include "output/sweep/sweep_journal.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <boost/crc.hpp>

namespace stepsim::out {
namespace {

constexpr std::string_view kMagic = "STEPSIM-SWEEP-JOURNAL 1\n";
constexpr std::size_t kFrame = 8;  ///< u32 length + u32 CRC before each payload
/// A record longer than this is corruption, not a row (rows are a few hundred bytes).
constexpr std::uint32_t kMaxRecord = 64u << 20;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

[[noreturn]] void io_error(const std::filesystem::path& p, const std::string& what) {
  throw UserError(SourceLocation{p.string(), 0, 0}, "", what + ": " + std::strerror(errno));
}

void write_all(int fd, const std::filesystem::path& p, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) io_error(p, "cannot write the sweep journal");
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::string read_at(int fd, std::uint64_t offset, std::size_t n) {
  std::string buf(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, buf.data() + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  buf.resize(got);
  return buf;
}

std::uint32_t get_u32(std::string_view b, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + i])) << (8 * i);
  return v;
}

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::string frame(std::string_view payload) {
  std::string rec;
  rec.reserve(kFrame + payload.size());
  put_u32(rec, static_cast<std::uint32_t>(payload.size()));
  put_u32(rec, crc32(payload));
  rec += payload;
  return rec;
}

/// "sweep_hash is 0123... for this run, 4567... in the journal": the first header line that differs.
std::string first_difference(const std::string& journal, const std::string& mine) {
  std::istringstream a(journal), b(mine);
  std::string x, y;
  while (true) {
    const bool more_a = static_cast<bool>(std::getline(a, x));
    const bool more_b = static_cast<bool>(std::getline(b, y));
    if (!more_a && !more_b) return "its header differs";
    if (!more_a) x.clear();
    if (!more_b) y.clear();
    if (x == y) continue;
    const std::string& line = y.empty() ? x : y;
    const auto value = [](const std::string& l) {
      return l.empty() ? std::string("absent") : l.substr(l.find('=') + 1);
    };
    return line.substr(0, line.find('=')) + " is " + value(y) + " for this run, " + value(x) +
           " in the journal";
  }
}

/// Why a journal whose header is not `expected` cannot be resumed: damaged, or another sweep's.
[[noreturn]] void refuse_header(const std::filesystem::path& path, int fd, const std::string& expected) {
  const SourceLocation where{path.string(), 0, 0};
  const std::string start_over = "delete it and run the sweep again; the points it held are computed again";
  if (read_at(fd, 0, kMagic.size()) != kMagic)
    throw UserError(where, "", "not a stepsim sweep journal, or its first bytes are damaged", start_over);
  // The header record, [length][CRC][text]: whole and intact but different means another sweep.
  const std::string fr = read_at(fd, kMagic.size(), kFrame);
  const std::uint32_t len = fr.size() == kFrame ? get_u32(fr, 0) : 0;
  const std::string text = len > 0 && len <= kMaxRecord ? read_at(fd, kMagic.size() + kFrame, len) : "";
  if (len == 0 || text.size() != len || crc32(text) != get_u32(fr, 4))
    throw UserError(where, "", "the sweep journal is damaged: its header does not read back", start_over);
  throw UserError(where, "",
                  "this journal belongs to a different sweep, shard or stepsim version (" +
                      first_difference(text, expected.substr(kMagic.size() + kFrame)) + ")",
                  "resume with the original sweep file and stepsim, or delete the journal to start over");
}

int open_locked(const std::filesystem::path& p, int flags) {
  const int fd = ::open(p.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) io_error(p, "cannot open the sweep journal");
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    throw UserError(SourceLocation{p.string(), 0, 0}, "",
                    "another stepsim process is running this sweep (it holds the journal's lock)",
                    "wait for it to finish, or stop it first and then pass --resume");
  }
  return fd;
}

}  // namespace

std::uint32_t crc32(std::string_view bytes) {
  boost::crc_32_type crc;
  crc.process_bytes(bytes.data(), bytes.size());
  return crc.checksum();
}

std::string SweepIdentity::header(const SweepSchema& schema) const {
  std::string h = "sweep_name=" + sweep_name + "\nsweep_hash=" + sweep_hash +
                  "\npoints=" + std::to_string(points) + "\nshard=" + std::to_string(shard.index) + "/" +
                  std::to_string(shard.count) + "\nversion=" + version + "\n";
  for (const Column& c : schema.columns) h += "column=" + c.name + ":" + std::string(name(c.type)) + "\n";
  return h;
}

SweepJournal::SweepJournal(std::filesystem::path path, int fd, SweepSchema schema)
    : path_(std::move(path)),
      fd_(fd),
      schema_(std::move(schema)),
      widths_(schema_.columns.size(), 0),
      last_sync_s_(now_s()) {}

SweepJournal::SweepJournal(SweepJournal&& o) noexcept
    : path_(std::move(o.path_)),
      fd_(std::exchange(o.fd_, -1)),
      schema_(std::move(o.schema_)),
      entries_(std::move(o.entries_)),
      widths_(std::move(o.widths_)),
      end_(o.end_),
      dropped_bytes_(o.dropped_bytes_),
      last_sync_s_(o.last_sync_s_) {}

SweepJournal::~SweepJournal() {
  if (fd_ < 0) return;
  ::fdatasync(fd_);
  ::close(fd_);
}

SweepJournal SweepJournal::create(const std::filesystem::path& path, const SweepIdentity& id,
                                  const SweepSchema& schema) {
  SweepJournal j(path, open_locked(path, O_RDWR | O_CREAT | O_APPEND), schema);
  if (::ftruncate(j.fd_, 0) != 0) io_error(path, "cannot truncate the sweep journal");
  const std::string head = std::string(kMagic) + frame(id.header(schema));
  write_all(j.fd_, path, head);
  if (::fdatasync(j.fd_) != 0) io_error(path, "cannot sync the sweep journal");
  sync_directory(path.parent_path());
  j.end_ = head.size();
  return j;
}

bool SweepJournal::in_use(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  const bool busy = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // also releases the lock if we got it
  return busy;
}

SweepJournal SweepJournal::open(const std::filesystem::path& path, const SweepIdentity& id,
                                const SweepSchema& schema) {
  const std::string expected = std::string(kMagic) + frame(id.header(schema));
  {
    SweepJournal j(path, open_locked(path, O_RDWR | O_APPEND), schema);
    struct stat st {};
    if (::fstat(j.fd_, &st) != 0) io_error(path, "cannot read the sweep journal");
    const std::string head = read_at(j.fd_, 0, expected.size());
    const bool torn_header = head.size() < expected.size() && expected.compare(0, head.size(), head) == 0;
    // Nothing but zeros: created, then a power loss took the header before it reached the disk.
    const auto all_zero = [](const std::string& b) { return b.find_first_not_of('\0') == std::string::npos; };
    const bool zeros = all_zero(head) && all_zero(read_at(j.fd_, 0, static_cast<std::size_t>(st.st_size)));
    if (!torn_header && !zeros) {
      if (head != expected) refuse_header(path, j.fd_, expected);
      j.scan(expected.size());
      return j;
    }
  }
  // Killed while creating it: the header never became whole, so no row was written either.
  return create(path, id, schema);
}

void SweepJournal::scan(std::uint64_t start) {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) io_error(path_, "cannot read the sweep journal");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  std::uint64_t at = start;
  while (at + kFrame <= size) {
    const std::string fr = read_at(fd_, at, kFrame);
    const std::uint32_t len = get_u32(fr, 0);
    // No row encodes to nothing: a zero length is a tail the file system zero-filled (ext4 and
    // XFS after a power loss), not an empty record (whose CRC, 0, would match).
    if (len == 0 || len > kMaxRecord || at + kFrame + len > size) break;
    const std::string payload = read_at(fd_, at + kFrame, len);
    if (payload.size() != len || crc32(payload) != get_u32(fr, 4)) break;
    Row row;
    try {
      row = decode_row(schema_, payload);
    } catch (const std::runtime_error&) {
      break;  // the CRC matched by chance: garbage all the same
    }
    for (std::size_t c = 0; c < row.size(); ++c)
      if (const auto* s = std::get_if<std::string>(&row[c])) widths_[c] = std::max(widths_[c], s->size());
    entries_.push_back({static_cast<std::uint64_t>(std::get<std::int64_t>(row[0])), at + kFrame, len});
    at += kFrame + len;
  }
  // Whatever follows the last record that decodes is the torn tail of a crash (a record cut
  // short, zeros, garbage): it is dropped, and its points are computed again.
  if (at != size && ::ftruncate(fd_, static_cast<off_t>(at)) != 0)
    io_error(path_, "cannot truncate the torn journal tail");
  dropped_bytes_ = size - at;
  end_ = at;
}

void SweepJournal::append(const Row& row) {
  const std::string rec = frame(encode_row(schema_, row));
  std::lock_guard lock(mutex_);
  try {
    write_all(fd_, path_, rec);
  } catch (const UserError&) {
    // A full disk may have taken part of the record: cut it off, so that the file stays a
    // sequence of whole records (a later append would land after the fragment otherwise).
    [[maybe_unused]] const int cut = ::ftruncate(fd_, static_cast<off_t>(end_));
    throw;
  }
  entries_.push_back({static_cast<std::uint64_t>(std::get<std::int64_t>(row[0])), end_ + kFrame,
                      static_cast<std::uint32_t>(rec.size() - kFrame)});
  end_ += rec.size();
  sorted_valid_ = false;
  for (std::size_t c = 0; c < row.size(); ++c)
    if (const auto* s = std::get_if<std::string>(&row[c])) widths_[c] = std::max(widths_[c], s->size());
  if (const double t = now_s(); t - last_sync_s_ >= 1.0) {
    ::fdatasync(fd_);
    last_sync_s_ = t;
  }
}

void SweepJournal::sync() {
  std::lock_guard lock(mutex_);
  if (::fdatasync(fd_) != 0) io_error(path_, "cannot sync the sweep journal");
  last_sync_s_ = now_s();
}

const std::vector<SweepJournal::Entry>& SweepJournal::sorted() const {
  if (!sorted_valid_) {
    sorted_ = entries_;
    std::stable_sort(sorted_.begin(), sorted_.end(),
                     [](const Entry& a, const Entry& b) { return a.point < b.point; });
    sorted_.erase(std::unique(sorted_.begin(), sorted_.end(),
                              [](const Entry& a, const Entry& b) { return a.point == b.point; }),
                  sorted_.end());
    sorted_valid_ = true;
  }
  return sorted_;
}

std::vector<std::uint64_t> SweepJournal::points() const {
  std::lock_guard lock(mutex_);
  std::vector<std::uint64_t> out;
  for (const Entry& e : sorted()) out.push_back(e.point);
  return out;
}

std::size_t SweepJournal::size() const {
  std::lock_guard lock(mutex_);
  return sorted().size();
}

Row SweepJournal::row(std::size_t i) const {
  std::lock_guard lock(mutex_);
  const Entry& e = sorted().at(i);
  return decode_row(schema_, read_at(fd_, e.offset, e.length));
}

std::vector<std::size_t> SweepJournal::text_widths() const {
  std::lock_guard lock(mutex_);
  return widths_;
}

}  // namespace stepsim::out
