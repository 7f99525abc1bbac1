#include "output/sweep/sweep_hdf5.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "output/common/atomic_file.hpp"
#include "output/sweep/sweep_h5.hpp"

namespace stepsim::out {
namespace {

constexpr const char* kFormat = "stepsim sweep results";
/// 2: the sweep and base texts are datasets (version 1 had them as attributes, which HDF5 limits
/// to 64 KiB). 3: text columns of a closed set of values are HDF5 enums, other text is UTF-8.
constexpr std::int64_t kSchemaVersion = 3;
constexpr hsize_t kChunkRows = 1024;

/// How one column is stored: free text `width` bytes wide, an enum of `categories`, or a number.
struct ColumnLayout {
  std::size_t offset = 0;
  std::size_t size = 8;
  std::size_t width = 0;                                 ///< free text
  std::vector<std::string> categories;                   ///< enum columns: names by value
  std::unordered_map<std::string, std::uint32_t> codes;  ///< enum columns: value of each name
};

/// The value that marks missing text ("") in an enum column: the base type's largest (HDF5 enum
/// names cannot be empty); pandas reads it as NaN through stepsim.read_tables.
std::uint32_t missing_code(std::size_t size) {
  return size == 1 ? 0xffu : size == 2 ? 0xffffu : 0xffffffffu;
}

/// Columns as stored: text columns with categories become enums over the smallest unsigned type
/// that leaves a value for missing text. Values the rows hold beyond the declared categories
/// (none in a file of one sweep) join them, in order of first appearance, so nothing is lost.
std::vector<ColumnLayout> plan_columns(const SweepJournal* rows, const SweepSchema& schema) {
  const std::vector<std::size_t> widths =
      rows != nullptr ? rows->text_widths() : std::vector<std::size_t>(schema.columns.size(), 0);
  std::vector<ColumnLayout> out(schema.columns.size());
  for (std::size_t c = 0; c < schema.columns.size(); ++c) {
    const Column& col = schema.columns[c];
    ColumnLayout& s = out[c];
    if (col.type != ColumnType::text) continue;
    if (col.categories.empty()) {
      s.width = s.size = std::max<std::size_t>(1, widths[c]);
      continue;
    }
    for (const std::string& name : col.categories)
      if (!name.empty() && s.codes.emplace(name, static_cast<std::uint32_t>(s.categories.size())).second)
        s.categories.push_back(name);
  }
  for (std::size_t i = 0; rows != nullptr && i < rows->size(); ++i) {
    const Row row = rows->row(i);
    for (std::size_t c = 0; c < out.size(); ++c) {
      ColumnLayout& s = out[c];
      if (schema.columns[c].type != ColumnType::text || schema.columns[c].categories.empty()) continue;
      const std::string& v = std::get<std::string>(row[c]);
      if (!v.empty() && s.codes.emplace(v, static_cast<std::uint32_t>(s.categories.size())).second)
        s.categories.push_back(v);
    }
  }
  std::size_t offset = 0;
  for (std::size_t c = 0; c < out.size(); ++c) {
    ColumnLayout& s = out[c];
    if (!s.codes.empty() || (schema.columns[c].type == ColumnType::text && s.width == 0))
      s.size = s.categories.size() < 0xffu ? 1 : s.categories.size() < 0xffffu ? 2 : 4;
    s.offset = offset;
    offset += s.size;
  }
  return out;
}

H5 enum_type(const ColumnLayout& s) {
  const hid_t base = s.size == 1 ? H5T_STD_U8LE : s.size == 2 ? H5T_STD_U16LE : H5T_STD_U32LE;
  H5 type(H5Tenum_create(base), H5Tclose, "create an enum type");
  for (std::uint32_t v = 0; v < s.categories.size(); ++v) {
    // H5Tenum_insert reads the value in the enum's own (little-endian) representation.
    unsigned char bytes[4] = {static_cast<unsigned char>(v), static_cast<unsigned char>(v >> 8),
                              static_cast<unsigned char>(v >> 16), static_cast<unsigned char>(v >> 24)};
    check(H5Tenum_insert(type, s.categories[v].c_str(), bytes), "add an enum value");
  }
  return type;
}

/// A packed compound type for `schema` as `cols` store it.
H5 row_type(const SweepSchema& schema, const std::vector<ColumnLayout>& cols) {
  const std::size_t size = cols.empty() ? 1 : cols.back().offset + cols.back().size;
  H5 type(H5Tcreate(H5T_COMPOUND, std::max<std::size_t>(size, 1)), H5Tclose, "create the row type");
  for (std::size_t c = 0; c < schema.columns.size(); ++c) {
    const Column& col = schema.columns[c];
    const ColumnLayout& s = cols[c];
    if (col.type == ColumnType::text && s.width == 0) {
      H5 e = enum_type(s);
      check(H5Tinsert(type, col.name.c_str(), s.offset, e), "add a column");
    } else if (col.type == ColumnType::text) {
      H5 t(H5Tcopy(H5T_C_S1), H5Tclose, "create a string type");
      check(H5Tset_size(t, s.width), "size a string type");
      check(H5Tset_strpad(t, H5T_STR_NULLPAD), "pad a string type");
      check(H5Tset_cset(t, H5T_CSET_UTF8), "mark a string type UTF-8");
      check(H5Tinsert(type, col.name.c_str(), s.offset, t), "add a column");
    } else {
      check(H5Tinsert(type, col.name.c_str(), s.offset,
                      col.type == ColumnType::int64 ? H5T_STD_I64LE : H5T_IEEE_F64LE),
            "add a column");
    }
  }
  return type;
}

void put_row(const Row& row, const std::vector<ColumnLayout>& cols, char* out) {
  for (std::size_t c = 0; c < cols.size(); ++c) {
    const ColumnLayout& s = cols[c];
    char* at = out + s.offset;
    if (const auto* i = std::get_if<std::int64_t>(&row[c])) {
      std::memcpy(at, i, 8);
    } else if (const auto* d = std::get_if<double>(&row[c])) {
      std::memcpy(at, d, 8);
    } else if (s.width == 0) {  // an enum: little-endian value, as the type's base says
      const std::string& v = std::get<std::string>(row[c]);
      const auto it = s.codes.find(v);
      const std::uint32_t code = it != s.codes.end() ? it->second : missing_code(s.size);
      for (std::size_t b = 0; b < s.size; ++b) at[b] = static_cast<char>((code >> (8 * b)) & 0xffu);
    } else {
      const std::string& v = std::get<std::string>(row[c]);
      std::memcpy(at, v.data(), std::min(v.size(), s.width));
    }
  }
}

void write_text_attr(hid_t obj, const char* name, const std::string& value) {
  H5 type(H5Tcopy(H5T_C_S1), H5Tclose, "create a string type");
  check(H5Tset_size(type, std::max<std::size_t>(1, value.size())), "size a string attribute");
  check(H5Tset_strpad(type, H5T_STR_NULLPAD), "pad a string attribute");
  check(H5Tset_cset(type, H5T_CSET_UTF8), "mark a string type UTF-8");
  H5 space(H5Screate(H5S_SCALAR), H5Sclose, "create a scalar space");
  H5 attr(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, "create an attribute");
  std::string padded = value;
  padded.resize(std::max<std::size_t>(1, value.size()), '\0');
  check(H5Awrite(attr, type, padded.data()), "write an attribute");
}

void write_int_attr(hid_t obj, const char* name, std::int64_t value) {
  H5 space(H5Screate(H5S_SCALAR), H5Sclose, "create a scalar space");
  H5 attr(H5Acreate2(obj, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
          "create an attribute");
  check(H5Awrite(attr, H5T_NATIVE_INT64, &value), "write an attribute");
}

/// A scalar fixed-length string dataset: texts of any length (attributes stop at 64 KiB).
void write_text_dataset(hid_t file, const char* name, const std::string& value) {
  H5 type(H5Tcopy(H5T_C_S1), H5Tclose, "create a string type");
  check(H5Tset_size(type, std::max<std::size_t>(1, value.size())), "size a string dataset");
  check(H5Tset_strpad(type, H5T_STR_NULLPAD), "pad a string dataset");
  check(H5Tset_cset(type, H5T_CSET_UTF8), "mark a string type UTF-8");
  H5 space(H5Screate(H5S_SCALAR), H5Sclose, "create a scalar space");
  H5 dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "create dataset properties");
  check(H5Pset_obj_track_times(dcpl, false), "turn off timestamps");
  H5 dset(H5Dcreate2(file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), H5Dclose,
          "create a text dataset");
  std::string padded = value;
  padded.resize(std::max<std::size_t>(1, value.size()), '\0');
  check(H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, padded.data()), "write a text dataset");
}

/// The rows of `rows` (none when null) as /results.
void write_rows(hid_t file, const SweepJournal* rows, const SweepSchema& schema) {
  const std::vector<ColumnLayout> cols = plan_columns(rows, schema);
  H5 type = row_type(schema, cols);
  const hsize_t n = rows != nullptr ? rows->size() : 0;
  H5 space(H5Screate_simple(1, &n, nullptr), H5Sclose, "create the row space");
  H5 dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "create dataset properties");
  check(H5Pset_obj_track_times(dcpl, false), "turn off timestamps");
  if (n > 0) {
    const hsize_t chunk = std::min(n, kChunkRows);
    check(H5Pset_chunk(dcpl, 1, &chunk), "chunk the rows");
    check(H5Pset_deflate(dcpl, 4), "compress the rows");
  }
  H5 dset(H5Dcreate2(file, "results", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), H5Dclose,
          "create /results");
  const std::size_t row_size = H5Tget_size(type);
  std::vector<char> buf;
  for (hsize_t start = 0; start < n; start += kChunkRows) {
    const hsize_t count = std::min(kChunkRows, n - start);
    buf.assign(count * row_size, '\0');
    for (hsize_t i = 0; i < count; ++i) put_row(rows->row(start + i), cols, buf.data() + i * row_size);
    H5 mem(H5Screate_simple(1, &count, nullptr), H5Sclose, "create a memory space");
    check(H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, nullptr, &count, nullptr), "select rows");
    check(H5Dwrite(dset, type, mem, space, H5P_DEFAULT, buf.data()), "write rows");
  }
}

/// The results file's bytes, built in memory (HDF5's core driver without a backing file): HDF5
/// never writes to disk itself, so a full disk is a failed write(2) of ours, with its reason, and
/// never a half-closed HDF5 file (which HDF5 1.10 crashes on at exit).
std::string sweep_image(const SweepJournal* rows, const SweepSchema& schema, const SweepFileInfo& info) {
  quiet_hdf5_errors();
  static std::atomic<unsigned> images{0};
  // A name under /dev/null cannot exist: HDF5's first, tentative open of the name finds nothing.
  const std::string name = "/dev/null/stepsim-sweep-results-" + std::to_string(images++) + ".h5";
  H5 fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create file access properties");
  check(H5Pset_fapl_core(fapl, 1 << 20, false), "keep the file in memory");
  H5 fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose, "create file properties");
  check(H5Pset_obj_track_times(fcpl, false), "turn off timestamps");
  H5 file(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, fcpl, fapl), H5Fclose, "create the file");
  write_text_attr(file, "format", kFormat);
  write_int_attr(file, "schema_version", kSchemaVersion);
  write_text_attr(file, "stepsim_version", info.identity.version);
  write_text_attr(file, "sweep_name", info.identity.sweep_name);
  write_text_attr(file, "sweep_hash", info.identity.sweep_hash);
  write_int_attr(file, "points", static_cast<std::int64_t>(info.identity.points));
  write_int_attr(file, "shard_index", info.identity.shard.index);
  write_int_attr(file, "shard_count", info.identity.shard.count);
  write_int_attr(file, "rows", static_cast<std::int64_t>(info.rows));
  write_text_dataset(file, "sweep_file", info.sweep_text);
  write_text_dataset(file, "base_scenario", info.base_text);
  write_rows(file, rows, schema);
  check(H5Fflush(file, H5F_SCOPE_GLOBAL), "flush the file");
  const ssize_t size = H5Fget_file_image(file, nullptr, 0);
  if (size < 0) hdf5_failed("read the file image");
  std::string image(static_cast<std::size_t>(size), '\0');
  if (H5Fget_file_image(file, image.data(), image.size()) != size) hdf5_failed("read the file image");
  file.close("close the file");
  return image;
}

[[noreturn]] void cannot_build(const std::filesystem::path& path, const Hdf5Failure& e) {
  throw UserError(SourceLocation{path.string(), 0, 0}, "", std::string("results file: ") + e.what());
}

}  // namespace

void write_sweep_hdf5(const std::filesystem::path& path, const SweepJournal& rows, SweepFileInfo info) {
  info.rows = rows.size();
  std::string image;
  try {
    image = sweep_image(&rows, rows.schema(), info);
  } catch (const Hdf5Failure& e) {
    cannot_build(path, e);
  }
  write_file_atomically(path, image, "results file");
}

void check_sweep_hdf5(const std::filesystem::path& path, const SweepSchema& schema, SweepFileInfo info) {
  info.rows = 0;
  try {
    sweep_image(nullptr, schema, info);
  } catch (const Hdf5Failure& e) {
    cannot_build(path, e);
  }
}

}  // namespace stepsim::out
