#pragma once
// Test helper: a full disk without a full disk. While alive, files this process writes cannot grow
// past a size (RLIMIT_FSIZE): a write beyond it fails with EFBIG ("File too large") as a write to
// a full file system fails with ENOSPC. SIGXFSZ, which would kill the process, is ignored meanwhile.

#include <signal.h>
#include <sys/resource.h>

namespace stepsim::test {

class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = ::signal(SIGXFSZ, SIG_IGN);
    rlimit r = saved_;
    r.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &r);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    ::signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit saved_{};
  sighandler_t old_handler_;
};

}  // namespace stepsim::test
