#pragma once
// Small helpers over the HDF5 C++ API for writing results: one-dimensional compound tables that
// grow as rows arrive (chunked, shuffled and deflated), enum and string types, and creation
// properties without modification times so that the same results give the same file bytes.

#include <H5Cpp.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stepsim::out::h5 {

/// Dataset creation properties: chunked rows, shuffle + deflate, no object timestamps.
H5::DSetCreatPropList chunked(hsize_t chunk_rows);
/// File creation properties without object timestamps (the root group's included).
H5::FileCreatPropList file_creation();

/// An enum over uint8 values 0..names.size()-1.
H5::EnumType enum_type(const std::vector<std::string_view>& names);
/// A variable-length C string (the struct member is `const char*`, NUL-terminated).
H5::StrType vlen_string();
/// A fixed-length, NUL-padded string of `chars` bytes (numpy reads it as bytes `S<chars>`).
H5::StrType fixed_string(std::size_t chars);

/// A scalar variable-length string dataset (long texts: the scenario, the JSON summary).
void write_text(H5::H5File& file, const std::string& name, const std::string& text);
/// A variable-length string attribute on `obj`.
void write_attribute(H5::H5Object& obj, const std::string& name, const std::string& value);
/// A float64 attribute on `obj` (a figure of a summary: seconds, shares, bytes).
void write_attribute(H5::H5Object& obj, const std::string& name, double value);
/// An int64 attribute on `obj` (counts, indices, step intervals).
void write_integer_attribute(H5::H5Object& obj, const std::string& name, std::int64_t value);

/// A group at `name` (its parent must exist), without timestamps.
H5::Group create_group(H5::H5File& file, const std::string& name);

/// A file that lives in memory only (HDF5's core driver, no backing file): HDF5 never writes to
/// disk itself, so a full disk is a failed write of ours with its reason. `file_image` gives its
/// bytes, to write whole (output/common/atomic_file.hpp).
H5::H5File in_memory_file();
/// The bytes of `file` as a file; Hdf5Failure when HDF5 cannot flush or copy it.
std::string file_image(H5::H5File& file);

/// A table of `Row` structs appended in batches. `type` must describe `Row` (insertMember with
/// HOFFSET). Variable-length strings referenced by rows must live until flush() (or the
/// destructor) returns.
template <class Row>
class Table {
 public:
  Table(H5::H5File& file, const std::string& name, const H5::CompType& type, hsize_t chunk_rows = 8192)
      : type_(type), batch_(chunk_rows) {
    const hsize_t zero = 0, unlimited = H5S_UNLIMITED;
    H5::DataSpace space(1, &zero, &unlimited);
    // Stored packed: the struct's padding (whatever bytes it holds) never reaches the file.
    H5::CompType stored;
    stored.copy(type_);
    stored.pack();
    set_ = file.createDataSet(name, stored, space, chunked(chunk_rows));
    rows_.reserve(batch_);
  }
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;
  ~Table() {
    try {
      flush();
    } catch (...) {  // destructors must not throw; explicit flush() reports errors
    }
  }

  void append(const Row& r) {
    rows_.push_back(r);
    if (rows_.size() >= batch_) flush();
  }

  /// Writes the buffered rows at the end of the dataset.
  void flush() {
    if (rows_.empty()) return;
    const hsize_t count = rows_.size(), start = written_, total = written_ + count;
    set_.extend(&total);
    H5::DataSpace file_space = set_.getSpace();
    file_space.selectHyperslab(H5S_SELECT_SET, &count, &start);
    H5::DataSpace mem_space(1, &count);
    set_.write(rows_.data(), type_, mem_space, file_space);
    written_ = total;
    rows_.clear();
  }
  hsize_t rows() const { return written_ + rows_.size(); }
  H5::DataSet& dataset() { return set_; }

 private:
  H5::CompType type_;
  H5::DataSet set_;
  std::size_t batch_;
  std::vector<Row> rows_;
  hsize_t written_ = 0;
};

}  // namespace stepsim::out::h5
