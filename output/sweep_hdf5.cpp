#include "output/sweep_hdf5.hpp"

#include "output/sweep_h5.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace stepsim::out {
namespace {

constexpr const char* kFormat = "stepsim sweep results";
constexpr std::int64_t kSchemaVersion = 1;
constexpr hsize_t kChunkRows = 1024;

/// A packed compound type for `schema`, text columns `widths` bytes wide; offsets out.
H5 row_type(const SweepSchema& schema, const std::vector<std::size_t>& widths,
            std::vector<std::size_t>& offsets) {
  std::size_t size = 0;
  offsets.clear();
  for (std::size_t c = 0; c < schema.columns.size(); ++c) {
    offsets.push_back(size);
    size += schema.columns[c].type == ColumnType::text ? std::max<std::size_t>(1, widths[c]) : 8;
  }
  H5 type(H5Tcreate(H5T_COMPOUND, std::max<std::size_t>(size, 1)), H5Tclose, "create the row type");
  for (std::size_t c = 0; c < schema.columns.size(); ++c) {
    const Column& col = schema.columns[c];
    if (col.type == ColumnType::text) {
      H5 s(H5Tcopy(H5T_C_S1), H5Tclose, "create a string type");
      check(H5Tset_size(s, std::max<std::size_t>(1, widths[c])), "size a string type");
      check(H5Tset_strpad(s, H5T_STR_NULLPAD), "pad a string type");
      check(H5Tinsert(type, col.name.c_str(), offsets[c], s), "add a column");
    } else {
      check(H5Tinsert(type, col.name.c_str(), offsets[c],
                      col.type == ColumnType::int64 ? H5T_STD_I64LE : H5T_IEEE_F64LE),
            "add a column");
    }
  }
  return type;
}

void put_row(const Row& row, const SweepSchema& schema, const std::vector<std::size_t>& widths,
             const std::vector<std::size_t>& offsets, char* out) {
  for (std::size_t c = 0; c < schema.columns.size(); ++c) {
    char* at = out + offsets[c];
    if (const auto* i = std::get_if<std::int64_t>(&row[c])) {
      std::memcpy(at, i, 8);
    } else if (const auto* d = std::get_if<double>(&row[c])) {
      std::memcpy(at, d, 8);
    } else {
      const std::string& s = std::get<std::string>(row[c]);
      std::memcpy(at, s.data(), std::min(s.size(), widths[c]));
    }
  }
}

void write_text_attr(hid_t obj, const char* name, const std::string& value) {
  H5 type(H5Tcopy(H5T_C_S1), H5Tclose, "create a string type");
  check(H5Tset_size(type, std::max<std::size_t>(1, value.size())), "size a string attribute");
  check(H5Tset_strpad(type, H5T_STR_NULLPAD), "pad a string attribute");
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

void write_rows(hid_t file, const SweepJournal& rows) {
  const SweepSchema& schema = rows.schema();
  const std::vector<std::size_t> widths = rows.text_widths();
  std::vector<std::size_t> offsets;
  H5 type = row_type(schema, widths, offsets);
  const hsize_t n = rows.size();
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
    for (hsize_t i = 0; i < count; ++i)
      put_row(rows.row(start + i), schema, widths, offsets, buf.data() + i * row_size);
    H5 mem(H5Screate_simple(1, &count, nullptr), H5Sclose, "create a memory space");
    check(H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, nullptr, &count, nullptr), "select rows");
    check(H5Dwrite(dset, type, mem, space, H5P_DEFAULT, buf.data()), "write rows");
  }
}

void fsync_path(const std::filesystem::path& p) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    if (fd >= 0) ::close(fd);
    throw UserError(SourceLocation{p.string(), 0, 0}, "",
                    std::string("cannot sync the file: ") + std::strerror(errno));
  }
  ::close(fd);
}

std::filesystem::path temp_path(const std::filesystem::path& p) {
  return p.string() + ".tmp";
}

}  // namespace

void write_sweep_hdf5(const std::filesystem::path& path, const SweepJournal& rows, SweepFileInfo info) {
  const auto tmp = temp_path(path);
  info.rows = rows.size();
  {
    H5 fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose, "create file properties");
    check(H5Pset_obj_track_times(fcpl, false), "turn off timestamps");
    H5 file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, fcpl, H5P_DEFAULT), H5Fclose,
            ("create " + tmp.string()).c_str());
    write_text_attr(file, "format", kFormat);
    write_int_attr(file, "schema_version", kSchemaVersion);
    write_text_attr(file, "stepsim_version", info.identity.version);
    write_text_attr(file, "sweep_name", info.identity.sweep_name);
    write_text_attr(file, "sweep_hash", info.identity.sweep_hash);
    write_int_attr(file, "points", static_cast<std::int64_t>(info.identity.points));
    write_int_attr(file, "shard_index", info.identity.shard.index);
    write_int_attr(file, "shard_count", info.identity.shard.count);
    write_int_attr(file, "rows", static_cast<std::int64_t>(info.rows));
    write_text_attr(file, "sweep_file", info.sweep_text);
    write_text_attr(file, "base_scenario", info.base_text);
    write_rows(file, rows);
    check(H5Fflush(file, H5F_SCOPE_GLOBAL), "flush the file");
  }
  fsync_path(tmp);
  std::filesystem::rename(tmp, path);
  sync_directory(path.parent_path());
}

void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
  const auto tmp = temp_path(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw UserError(SourceLocation{tmp.string(), 0, 0}, "",
                    std::string("cannot create: ") + std::strerror(errno));
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      throw UserError(SourceLocation{tmp.string(), 0, 0}, "",
                      std::string("cannot write: ") + std::strerror(errno));
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced)
    throw UserError(SourceLocation{tmp.string(), 0, 0}, "",
                    std::string("cannot sync: ") + std::strerror(errno));
  std::filesystem::rename(tmp, path);
  sync_directory(path.parent_path());
}

}  // namespace stepsim::out
