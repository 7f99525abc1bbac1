#pragma once
// Internal to the sweep results reader and writer: HDF5 identifiers that close themselves.

#include <hdf5.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace stepsim::out {

/// An HDF5 identifier closed by its own close function.
class H5 {
 public:
  H5(hid_t id, herr_t (*close)(hid_t), const char* what) : id_(id), close_(close) {
    if (id_ < 0) throw std::runtime_error(std::string("HDF5: cannot ") + what);
  }
  H5(H5&& o) noexcept : id_(std::exchange(o.id_, -1)), close_(o.close_) {}
  H5(const H5&) = delete;
  ~H5() {
    if (id_ >= 0) close_(id_);
  }
  operator hid_t() const { return id_; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

inline void check(herr_t r, const char* what) {
  if (r < 0) throw std::runtime_error(std::string("HDF5: cannot ") + what);
}

}  // namespace stepsim::out
