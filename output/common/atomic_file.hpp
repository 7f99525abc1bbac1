#pragma once
// Output files appear whole or not at all. Every file stepsim writes (traces, reports, HDF5,
// sweep results, CSV) goes to a fresh temporary file in the target's folder, created exclusively
// and without following symbolic links, then is fsync'd and renamed over the target: a reader, a
// crash, a power loss or a full disk leaves the previous file or the complete new one, never a
// part. Problems with the target (a folder, a missing or read-only folder, a name too long, no
// space) are UserErrors that name the file and say what the system said.

#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace stepsim::out {

/// Checks, before any work, that `path` can be written as an output file: its folder exists and
/// takes new files, the name is not a folder or a special file and is short enough, with every
/// name the writer derives from it (`path` + each of `suffixes`, e.g. ".journal"). `option` names
/// it in errors ("--out"). Throws UserError with the path, the problem and a hint.
void check_output_path(const std::filesystem::path& path, std::string_view option,
                       std::initializer_list<std::string_view> suffixes = {});

/// A UserError for a failed system call on `path` while writing `option`'s file: the system's
/// text for `err` ("No space left on device") and a hint for the usual causes.
[[noreturn]] void output_error(const std::filesystem::path& path, std::string_view option,
                               std::string_view doing, int err);

/// Makes a folder's entries (a create, rename or remove in it) durable.
void sync_directory(const std::filesystem::path& dir);

/// A file written under a temporary name beside its target and renamed over it by commit().
/// Destroying it uncommitted (an error on the way) removes the temporary file. Not thread-safe.
class AtomicFile {
 public:
  /// Creates the temporary file now (exclusively; never through a symbolic link).
  AtomicFile(std::filesystem::path target, std::string option);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// A buffered stream into the temporary file. A failed write sets its badbit and is reported,
  /// with the system's reason, by commit().
  std::ostream& stream();
  /// Appends bytes; throws UserError on failure.
  void write(std::string_view bytes);
  /// Flushes, fsyncs and closes the file, renames it over the target and syncs the folder.
  void commit();

  const std::filesystem::path& target() const { return target_; }

 private:
  class Buffer;
  std::filesystem::path target_;
  std::filesystem::path temp_;
  std::string option_;
  int fd_ = -1;
  std::unique_ptr<Buffer> buf_;
  std::unique_ptr<std::ostream> stream_;
  bool committed_ = false;
};

/// Writes `bytes` to `path` through an AtomicFile.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes,
                           std::string_view option = "output");

}  // namespace stepsim::out
