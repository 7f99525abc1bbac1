#pragma once
// Nsight Systems' SQLite export (`nsys export --type sqlite`) as the GPU activities `stepsim profile`
// classes: the kernel, memcpy and memset tables of CUPTI, with kernel names resolved through the
// export's string table. And the one entry point that tells the two trace formats apart.

#include <filesystem>

#include "output/profile/profile_trace.hpp"

namespace stepsim::out {

/// Reads the GPU activities of an Nsight Systems SQLite export, opened read-only: kernels
/// (CUPTI_ACTIVITY_KIND_KERNEL, named by demangledName, else shortName, through StringIds), memcpys
/// ("gpu_memcpy", named like Kineto's "Memcpy HtoD") and memsets ("gpu_memset", "Memset"); the last
/// two tables are optional. Times in microseconds of the export's nanosecond clock; activities in
/// start order. Throws UserError naming the file for a file that is not a readable database, an
/// export without kernels, or a name id missing from StringIds.
GpuTrace read_nsys_sqlite(const std::filesystem::path& path);

/// Reads a trace of either format: a file that starts with SQLite's header ("SQLite format 3\0")
/// is an Nsight Systems export, anything else a Kineto Chrome trace.
GpuTrace read_gpu_trace(const std::filesystem::path& path);

}  // namespace stepsim::out
