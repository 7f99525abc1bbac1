// Reading sweep results files back (merge, resume), and the CSV form of a results table.
#include <cstring>
#include <sstream>

#include "output/common/atomic_file.hpp"
#include "output/sweep/sweep_h5.hpp"
#include "output/sweep/sweep_hdf5.hpp"

namespace stepsim::out {
namespace {

constexpr hsize_t kReadRows = 4096;

[[noreturn]] void not_results(const std::filesystem::path& p, const std::string& why) {
  throw UserError(SourceLocation{p.string(), 0, 0}, "", "not a stepsim sweep results file: " + why,
                  "pass files written by `stepsim sweep --out`");
}

std::string text_attr(hid_t obj, const std::filesystem::path& p, const char* name) {
  if (H5Aexists(obj, name) <= 0) not_results(p, std::string("no `") + name + "` attribute");
  H5 attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose, "open an attribute");
  H5 type(H5Aget_type(attr), H5Tclose, "read an attribute type");
  if (H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) > 0)
    not_results(p, std::string("`") + name + "` is not text");
  std::string s(H5Tget_size(type), '\0');
  check(H5Aread(attr, type, s.data()), "read an attribute");
  s.resize(s.find_last_not_of('\0') + 1);  // NULLPAD; npos + 1 = 0 for an all-NUL value
  return s;
}

/// A text of any length: a scalar string dataset (schema 2) or, in files of schema 1, an attribute.
std::string long_text(hid_t file, const std::filesystem::path& p, const char* name) {
  if (H5Lexists(file, name, H5P_DEFAULT) <= 0) return text_attr(file, p, name);
  H5 dset(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose, "open a text dataset");
  H5 type(H5Dget_type(dset), H5Tclose, "read a text dataset's type");
  if (H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) > 0)
    not_results(p, std::string("`") + name + "` is not text");
  std::string s(H5Tget_size(type), '\0');
  check(H5Dread(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, s.data()), "read a text dataset");
  s.resize(s.find_last_not_of('\0') + 1);
  return s;
}

/// A results file HDF5 cannot read: cut short (a copy or a crash) or overwritten in places.
[[noreturn]] void damaged(const std::filesystem::path& p, const Hdf5Failure& e) {
  throw UserError(SourceLocation{p.string(), 0, 0}, "",
                  std::string("the results file is damaged or incomplete (") + e.what() + ")",
                  "write it again: rerun its sweep or shard");
}

std::int64_t int_attr(hid_t obj, const std::filesystem::path& p, const char* name) {
  if (H5Aexists(obj, name) <= 0) not_results(p, std::string("no `") + name + "` attribute");
  H5 attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose, "open an attribute");
  std::int64_t v = 0;
  check(H5Aread(attr, H5T_NATIVE_INT64, &v), "read an attribute");
  return v;
}

H5 open_file(const std::filesystem::path& p) {
  quiet_hdf5_errors();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec))
    throw UserError(SourceLocation{p.string(), 0, 0}, "",
                    ec && ec != std::errc::no_such_file_or_directory ? ec.message() : "no such file");
  if (H5Fis_hdf5(p.c_str()) <= 0) not_results(p, "not an HDF5 file");
  return H5(H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open the file");
}

struct StoredColumn {
  Column column;
  std::size_t offset = 0;
  std::size_t size = 0;
  bool is_enum = false;              ///< text as an enum (schema 3): `column.categories` by value
  H5T_cset_t cset = H5T_CSET_ASCII;  ///< text: UTF-8 in schema 3 (HDF5 converts no cset to another)
};

/// An enum member's names by value (0..n-1, as stepsim writes them); other layouts are refused.
std::vector<std::string> enum_names(hid_t member, const std::filesystem::path& p, const std::string& column) {
  const int n = H5Tget_nmembers(member);
  if (n < 0) hdf5_failed("read an enum type");
  std::vector<std::string> names(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    std::uint64_t value = 0;  // enum values are unsigned and little-endian in stepsim's files
    unsigned char bytes[8] = {};
    check(H5Tget_member_value(member, static_cast<unsigned>(i), bytes), "read an enum value");
    for (std::size_t b = 0; b < H5Tget_size(member) && b < 8; ++b)
      value |= std::uint64_t{bytes[b]} << (8 * b);
    if (value >= names.size()) not_results(p, "column `" + column + "` has enum values out of order");
    char* raw = H5Tget_member_name(member, static_cast<unsigned>(i));
    names[value] = raw;
    H5free_memory(raw);
  }
  return names;
}

std::vector<StoredColumn> stored_columns(hid_t dset, const std::filesystem::path& p) {
  H5 type(H5Dget_type(dset), H5Tclose, "read the row type");
  if (H5Tget_class(type) != H5T_COMPOUND) not_results(p, "/results is not a table of rows");
  std::vector<StoredColumn> out;
  const int n = H5Tget_nmembers(type);
  for (int i = 0; i < n; ++i) {
    char* raw = H5Tget_member_name(type, static_cast<unsigned>(i));
    StoredColumn c;
    c.column.name = raw;
    H5free_memory(raw);
    H5 member(H5Tget_member_type(type, static_cast<unsigned>(i)), H5Tclose, "read a column type");
    c.offset = H5Tget_member_offset(type, static_cast<unsigned>(i));
    c.size = H5Tget_size(member);
    const H5T_class_t cls = H5Tget_class(member);
    if (cls == H5T_INTEGER && c.size == 8)
      c.column.type = ColumnType::int64;
    else if (cls == H5T_FLOAT && c.size == 8)
      c.column.type = ColumnType::float64;
    else if (cls == H5T_STRING && H5Tis_variable_str(member) <= 0) {
      c.column.type = ColumnType::text;
      c.cset = H5Tget_cset(member);
    } else if (cls == H5T_ENUM && (c.size == 1 || c.size == 2 || c.size == 4)) {
      c.column.type = ColumnType::text;
      c.column.categories = enum_names(member, p, c.column.name);
      c.is_enum = true;
    } else
      not_results(p, "column `" + c.column.name + "` has an unexpected type");
    out.push_back(std::move(c));
  }
  return out;
}

/// The compound type to read `cols` into: the same layout with native numbers.
H5 memory_type(hid_t dset, const std::vector<StoredColumn>& cols, std::size_t row_size) {
  H5 type(H5Tcreate(H5T_COMPOUND, row_size), H5Tclose, "create the row type");
  for (const StoredColumn& c : cols) {
    if (c.is_enum) {  // read as stored: the values, not converted (missing text is out of range)
      H5 file_type(H5Dget_type(dset), H5Tclose, "read the row type");
      const int i = H5Tget_member_index(file_type, c.column.name.c_str());
      H5 e(H5Tget_member_type(file_type, static_cast<unsigned>(i)), H5Tclose, "read a column type");
      check(H5Tinsert(type, c.column.name.c_str(), c.offset, e), "add a column");
    } else if (c.column.type == ColumnType::text) {
      H5 s(H5Tcopy(H5T_C_S1), H5Tclose, "create a string type");
      check(H5Tset_size(s, c.size), "size a string type");
      check(H5Tset_strpad(s, H5T_STR_NULLPAD), "pad a string type");
      check(H5Tset_cset(s, c.cset), "set a string type's character set");
      check(H5Tinsert(type, c.column.name.c_str(), c.offset, s), "add a column");
    } else {
      check(H5Tinsert(type, c.column.name.c_str(), c.offset,
                      c.column.type == ColumnType::int64 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE),
            "add a column");
    }
  }
  return type;
}

std::string csv_field(const Cell& cell) {
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&cell)) return number_text(*d);
  const std::string& s = std::get<std::string>(cell);
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

SweepFileHeader read_header(const std::filesystem::path& path) {
  H5 file = open_file(path);
  if (text_attr(file, path, "format") != "stepsim sweep results")
    not_results(path, "its `format` attribute differs");
  SweepFileHeader h;
  SweepIdentity& id = h.info.identity;
  id.version = text_attr(file, path, "stepsim_version");
  id.sweep_name = text_attr(file, path, "sweep_name");
  id.sweep_hash = text_attr(file, path, "sweep_hash");
  id.points = static_cast<std::uint64_t>(int_attr(file, path, "points"));
  id.shard.index = static_cast<std::uint32_t>(int_attr(file, path, "shard_index"));
  id.shard.count = static_cast<std::uint32_t>(int_attr(file, path, "shard_count"));
  h.info.rows = static_cast<std::uint64_t>(int_attr(file, path, "rows"));
  h.info.sweep_text = long_text(file, path, "sweep_file");
  h.info.base_text = long_text(file, path, "base_scenario");
  if (H5Lexists(file, "results", H5P_DEFAULT) <= 0) not_results(path, "no /results dataset");
  H5 dset(H5Dopen2(file, "results", H5P_DEFAULT), H5Dclose, "open /results");
  for (const StoredColumn& c : stored_columns(dset, path)) h.schema.columns.push_back(c.column);
  const auto status = std::find_if(h.schema.columns.begin(), h.schema.columns.end(),
                                   [](const Column& c) { return c.name == "status"; });
  if (h.schema.columns.empty() || h.schema.columns[0].name != "point" || status == h.schema.columns.end())
    not_results(path, "/results lacks the point and status columns");
  h.schema.first_result = static_cast<std::size_t>(status - h.schema.columns.begin());
  return h;
}

void read_rows(const std::filesystem::path& path, const std::function<void(Row&&)>& sink) {
  H5 file = open_file(path);
  H5 dset(H5Dopen2(file, "results", H5P_DEFAULT), H5Dclose, "open /results");
  const std::vector<StoredColumn> cols = stored_columns(dset, path);
  H5 file_type(H5Dget_type(dset), H5Tclose, "read the row type");
  const std::size_t row_size = H5Tget_size(file_type);
  H5 type = memory_type(dset, cols, row_size);
  H5 space(H5Dget_space(dset), H5Sclose, "read the row space");
  hsize_t n = 0;
  if (H5Sget_simple_extent_ndims(space) != 1) not_results(path, "/results is not one-dimensional");
  H5Sget_simple_extent_dims(space, &n, nullptr);
  std::vector<char> buf;
  for (hsize_t start = 0; start < n; start += kReadRows) {
    const hsize_t count = std::min(kReadRows, n - start);
    buf.assign(count * row_size, '\0');
    H5 mem(H5Screate_simple(1, &count, nullptr), H5Sclose, "create a memory space");
    check(H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, nullptr, &count, nullptr), "select rows");
    check(H5Dread(dset, type, mem, space, H5P_DEFAULT, buf.data()), "read rows");
    for (hsize_t i = 0; i < count; ++i) {
      const char* at = buf.data() + i * row_size;
      Row row;
      for (const StoredColumn& c : cols) {
        if (c.column.type == ColumnType::int64) {
          std::int64_t v;
          std::memcpy(&v, at + c.offset, 8);
          row.emplace_back(v);
        } else if (c.column.type == ColumnType::float64) {
          double v;
          std::memcpy(&v, at + c.offset, 8);
          row.emplace_back(v);
        } else if (c.is_enum) {
          std::uint32_t v = 0;
          for (std::size_t b = 0; b < c.size; ++b)
            v |= std::uint32_t{static_cast<unsigned char>(at[c.offset + b])} << (8 * b);
          row.emplace_back(v < c.column.categories.size() ? c.column.categories[v] : std::string());
        } else {
          row.emplace_back(std::string(at + c.offset, strnlen(at + c.offset, c.size)));
        }
      }
      sink(std::move(row));
    }
  }
}

}  // namespace

SweepFileHeader read_sweep_hdf5_header(const std::filesystem::path& path) {
  try {
    return read_header(path);
  } catch (const Hdf5Failure& e) {
    damaged(path, e);
  }
}

void read_sweep_hdf5_rows(const std::filesystem::path& path, const std::function<void(Row&&)>& sink) {
  try {
    read_rows(path, sink);
  } catch (const Hdf5Failure& e) {
    damaged(path, e);
  }
}

void write_sweep_csv(const std::filesystem::path& path, const SweepJournal& rows) {
  std::ostringstream out;
  const auto& cols = rows.schema().columns;
  for (std::size_t c = 0; c < cols.size(); ++c) out << (c ? "," : "") << csv_field(cols[c].name);
  out << "\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row row = rows.row(i);
    for (std::size_t c = 0; c < row.size(); ++c) out << (c ? "," : "") << csv_field(row[c]);
    out << "\n";
  }
  write_file_atomically(path, out.str(), "--csv");
}

}  // namespace stepsim::out
