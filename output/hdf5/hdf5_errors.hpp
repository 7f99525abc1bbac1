#pragma once
// HDF5 failures as one line of ours. By default HDF5 prints its whole error stack to stderr (a
// dozen to a hundred lines per failure); instead each failure's most telling message is kept, per
// thread: the system's reason when the failure came from the operating system ("No space left on
// device"), else HDF5's innermost description ("truncated file: eof = 1000, ...").

#include <stdexcept>
#include <string>
#include <string_view>

namespace stepsim::out {

/// Turns HDF5's error printing off and starts recording failures for last_hdf5_error(). Cheap;
/// call it before using HDF5 on a thread.
void quiet_hdf5_errors();

/// What the last failed HDF5 call on this thread said ("" when nothing was recorded).
std::string last_hdf5_error();

/// An HDF5 call failed; what() is "cannot <what>: <reason>".
class Hdf5Failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws Hdf5Failure for `what` ("create /results") with the recorded reason.
[[noreturn]] void hdf5_failed(std::string_view what);

}  // namespace stepsim::out
