#pragma once
// Internal to the sweep results reader and writer: HDF5 identifiers that close themselves.

#include <hdf5.h>

#include <utility>

#include "output/hdf5/hdf5_errors.hpp"

namespace stepsim::out {

/// An HDF5 identifier closed by its own close function (in reverse order of creation, as locals
/// are destroyed). A failed create throws Hdf5Failure with HDF5's reason.
class H5 {
 public:
  H5(hid_t id, herr_t (*close)(hid_t), const char* what) : id_(id), close_(close) {
    if (id_ < 0) hdf5_failed(what);
  }
  H5(H5&& o) noexcept : id_(std::exchange(o.id_, -1)), close_(o.close_) {}
  H5(const H5&) = delete;
  ~H5() {
    if (id_ >= 0) close_(id_);
  }
  operator hid_t() const { return id_; }
  /// Closes now, reporting a failure (a file's last writes happen here).
  void close(const char* what) {
    const herr_t r = close_(std::exchange(id_, -1));
    if (r < 0) hdf5_failed(what);
  }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

inline void check(herr_t r, const char* what) {
  if (r < 0) hdf5_failed(what);
}

}  // namespace stepsim::out
