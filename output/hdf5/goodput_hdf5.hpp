#pragma once
// `stepsim goodput --hdf5 FILE.h5`: goodput over checkpoint intervals as an HDF5 table (the Monte
// Carlo's mean and spread beside the first-order model at each interval of the sweep), the job's
// failure rate by component, and the assessment's headline figures as attributes of the root
// (schema `stepsim.goodput/1`, docs/hdf5.md). Built in memory and written whole.

#include <filesystem>

#include "output/hdf5/hdf5_writer.hpp"
#include "workloads/reliability/goodput.hpp"

namespace stepsim::out {

/// Writes `a` to `path` atomically; `meta.summary` is the `stepsim goodput --format json` document.
/// UserError (naming `path` and --hdf5) when the file cannot be built or written.
void write_goodput_hdf5(const std::filesystem::path& path, const work::GoodputAssessment& a,
                        const Hdf5Meta& meta);

}  // namespace stepsim::out
