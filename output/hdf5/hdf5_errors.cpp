#include "output/hdf5/hdf5_errors.hpp"

#include <hdf5.h>

namespace stepsim::out {
namespace hdf5_errors {

thread_local std::string last;

struct Reasons {
  std::string system;     ///< the operating system's text, from HDF5's "error message = '...'"
  std::string innermost;  ///< the most specific description
};

herr_t visit(unsigned n, const H5E_error2_t* e, void* data) {
  auto& r = *static_cast<Reasons*>(data);
  const std::string_view desc = e->desc != nullptr ? e->desc : "";
  constexpr std::string_view kSystem = "error message = '";
  if (const auto at = desc.find(kSystem); r.system.empty() && at != std::string_view::npos) {
    const auto from = at + kSystem.size();
    r.system = desc.substr(from, desc.find('\'', from) - from);
  }
  if (n == 0) r.innermost = desc;
  return 0;
}

/// HDF5's automatic error handler, called as a failing API call returns, with its stack intact.
herr_t record(hid_t stack, void*) {
  Reasons r;
  H5Ewalk2(stack, H5E_WALK_UPWARD, visit, &r);
  last = !r.system.empty() ? r.system : !r.innermost.empty() ? r.innermost : "HDF5 gave no reason";
  return 0;
}

}  // namespace hdf5_errors

void quiet_hdf5_errors() {
  H5Eset_auto2(H5E_DEFAULT, hdf5_errors::record, nullptr);
}

std::string last_hdf5_error() {
  return hdf5_errors::last;
}

void hdf5_failed(std::string_view what) {
  const std::string why = last_hdf5_error();
  throw Hdf5Failure("cannot " + std::string(what) + (why.empty() ? std::string() : ": " + why));
}

}  // namespace stepsim::out
