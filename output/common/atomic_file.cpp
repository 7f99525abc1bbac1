#include "output/common/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <random>
#include <streambuf>
#include <vector>

#include "sim/error.hpp"

namespace stepsim::out {
namespace atomic_file {

/// What to do about the usual reasons a file cannot be written.
std::string hint_for(int err) {
  switch (err) {
    case ENOSPC:
    case EDQUOT: return "free some space there, or write to another folder; nothing was replaced";
    case EACCES:
    case EPERM:
    case EROFS: return "choose a folder you can write to";
    case ENAMETOOLONG: return "a file name has at most 255 bytes; choose a shorter one";
    case ENOENT: return "create the folder first";
    case ENOTDIR: return "a part of the path is a file, not a folder";
    case EISDIR: return "name the file to write, e.g. DIR/results.h5";
    case EFBIG: return "the file is larger than the file system or `ulimit -f` allows";
    case ELOOP: return "the name is a symbolic link; remove it or choose another name";
    default: return {};
  }
}

/// The longest name the folder takes (255 on Linux file systems).
std::size_t name_max(const std::filesystem::path& dir) {
  const long n = ::pathconf(dir.empty() ? "." : dir.c_str(), _PC_NAME_MAX);
  return n > 0 ? static_cast<std::size_t>(n) : std::size_t{255};
}

std::filesystem::path folder_of(const std::filesystem::path& p) {
  return p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
}

/// 0 or the errno of the first failed write.
int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

/// A new file `<name>.<random>.tmp` beside `target`, created exclusively (a name that exists, a
/// symbolic link included, is never opened); its path goes to `temp`. Returns the descriptor or
/// -errno.
int create_temp(const std::filesystem::path& target, std::filesystem::path& temp) {
  static thread_local std::mt19937_64 rng{std::random_device{}() ^ static_cast<std::uint64_t>(::getpid())};
  // Truncated so that the temporary name fits wherever the target's name does.
  const std::string stem = target.filename().string().substr(0, 200);
  for (int attempt = 0; attempt < 16; ++attempt) {
    char tag[17];
    std::snprintf(tag, sizeof tag, "%08x", static_cast<unsigned>(rng() & 0xffffffffu));
    temp = folder_of(target) / (stem + "." + tag + ".tmp");
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd >= 0 ? fd : -errno;
  }
  return -EEXIST;
}

}  // namespace atomic_file

using atomic_file::folder_of;

void output_error(const std::filesystem::path& path, std::string_view option, std::string_view doing,
                  int err) {
  std::string problem = std::string(option) + ": " + std::string(doing) + ": " + std::strerror(err);
  throw UserError(SourceLocation{path.string(), 0, 0}, "", std::move(problem), atomic_file::hint_for(err));
}

void sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // nothing more we can do; the data itself is synced
  ::fsync(fd);
  ::close(fd);
}

void check_output_path(const std::filesystem::path& path, std::string_view option,
                       std::initializer_list<std::string_view> suffixes) {
  if (path.empty()) throw UserError(std::string(option) + ": expected a file name");
  const std::string name = path.filename().string();
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (name.empty() || name == "." || name == ".." || (exists && S_ISDIR(st.st_mode)))
    throw UserError(SourceLocation{path.string(), 0, 0}, "",
                    std::string(option) + ": is a folder, not a file",
                    "name a file inside it: " + (path / "<name>").string());
  if (exists) {
    if (!S_ISREG(st.st_mode))
      throw UserError(SourceLocation{path.string(), 0, 0}, "",
                      std::string(option) + ": is not a regular file (a device, pipe or socket)",
                      "outputs replace their file by a rename: write to a file, then copy it");
  } else if (errno != ENOENT) {  // a dangling symbolic link is ENOENT too: the rename replaces it
    output_error(path, option, "cannot use this name", errno);
  }
  const std::filesystem::path dir = folder_of(path);
  if (::stat(dir.c_str(), &st) != 0) output_error(path, option, "cannot use its folder", errno);
  if (!S_ISDIR(st.st_mode)) output_error(path, option, "cannot use its folder", ENOTDIR);
  const std::size_t longest = atomic_file::name_max(dir);
  for (const std::string_view suffix : suffixes)
    if (name.size() + suffix.size() > longest)
      output_error(path, option,
                   "the name (" + std::to_string(name.size()) + " bytes) is too long for `" +
                       name.substr(0, 16) + "..." + std::string(suffix) + "` beside it",
                   ENAMETOOLONG);
  // The folder takes new files (permissions, a read-only or full file system): make one.
  std::filesystem::path probe;
  const int fd = atomic_file::create_temp(path, probe);
  if (fd < 0) output_error(path, option, "cannot create a file in its folder", -fd);
  ::close(fd);
  ::unlink(probe.c_str());
}

class AtomicFile::Buffer : public std::streambuf {
 public:
  explicit Buffer(int fd) : fd_(fd), data_(1 << 16) { setp(data_.data(), data_.data() + data_.size()); }
  /// Writes what is buffered; false (and error() set) when the system refused.
  bool drain() {
    const auto n = static_cast<std::size_t>(pptr() - pbase());
    setp(data_.data(), data_.data() + data_.size());
    if (error_ == 0 && n > 0) error_ = atomic_file::write_all(fd_, std::string_view(data_.data(), n));
    return error_ == 0;
  }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) sputc(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n < static_cast<std::streamsize>(data_.size()) / 2 || !drain()) return std::streambuf::xsputn(s, n);
    error_ = atomic_file::write_all(fd_, std::string_view(s, static_cast<std::size_t>(n)));
    return error_ == 0 ? n : 0;
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  int fd_;
  std::vector<char> data_;
  int error_ = 0;
};

AtomicFile::AtomicFile(std::filesystem::path target, std::string option)
    : target_(std::move(target)), option_(std::move(option)) {
  const int fd = atomic_file::create_temp(target_, temp_);
  if (fd < 0) output_error(target_, option_, "cannot create a temporary file beside it", -fd);
  fd_ = fd;
  buf_ = std::make_unique<Buffer>(fd_);
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  if (fd_ >= 0) ::close(fd_);
  ::unlink(temp_.c_str());
}

std::ostream& AtomicFile::stream() {
  if (!stream_) stream_ = std::make_unique<std::ostream>(buf_.get());
  return *stream_;
}

void AtomicFile::write(std::string_view bytes) {
  stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (buf_->error() != 0) output_error(target_, option_, "cannot write it", buf_->error());
}

void AtomicFile::commit() {
  if (!buf_->drain()) output_error(target_, option_, "cannot write it", buf_->error());
  if (stream_ && !*stream_) output_error(target_, option_, "cannot write it", EIO);
  if (::fsync(fd_) != 0) output_error(target_, option_, "cannot sync it to disk", errno);
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0) output_error(target_, option_, "cannot write it", errno);
  if (::rename(temp_.c_str(), target_.c_str()) != 0)
    output_error(target_, option_, "cannot put it in place", errno);
  committed_ = true;
  sync_directory(folder_of(target_));
}

void write_file_atomically(const std::filesystem::path& path, std::string_view bytes,
                           std::string_view option) {
  AtomicFile f(path, std::string(option));
  f.write(bytes);
  f.commit();
}

}  // namespace stepsim::out
