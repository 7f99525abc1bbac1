#include "output/profile/profile_nsys.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "sim/error.hpp"

namespace stepsim::out {
namespace profile_nsys {

const char* const kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";
const char* const kExportHint =
    "profile with `nsys profile -t cuda ...` and export the report with "
    "`nsys export --type sqlite -o report.sqlite report.nsys-rep`";
const char* const kDamagedHint =
    "the file is not an Nsight Systems SQLite export or it is damaged: export the report again with "
    "`nsys export --type sqlite`";

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& key, const std::string& problem,
                       const std::string& hint) {
  throw UserError(SourceLocation{path.string(), 0, 0}, key, problem, hint);
}

struct DbClose {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct StmtFinalize {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Db = std::unique_ptr<sqlite3, DbClose>;
using Stmt = std::unique_ptr<sqlite3_stmt, StmtFinalize>;

/// One open export and the file it came from, for messages.
struct Export {
  std::filesystem::path path;
  Db db;

  [[noreturn]] void damaged(const std::string& key) const {
    fail(path, key, std::string("cannot read the database: ") + sqlite3_errmsg(db.get()), kDamagedHint);
  }
  Stmt prepare(const std::string& sql, const std::string& key) const {
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) {
      sqlite3_finalize(raw);
      damaged(key);
    }
    return Stmt(raw);
  }
  /// True while `s` has a row; SQLite's errors (a damaged page, not a database) are the user's.
  bool step(const Stmt& s, const std::string& key) const {
    const int rc = sqlite3_step(s.get());
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    damaged(key);
  }
  bool has_table(const std::string& name) const {
    const Stmt s = prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?1", name);
    sqlite3_bind_text(s.get(), 1, name.c_str(), -1, SQLITE_TRANSIENT);
    return step(s, name);
  }
  std::set<std::string> columns(const std::string& table) const {
    const Stmt s = prepare("SELECT name FROM pragma_table_info(?1)", table);
    sqlite3_bind_text(s.get(), 1, table.c_str(), -1, SQLITE_TRANSIENT);
    std::set<std::string> out;
    while (step(s, table))
      if (const unsigned char* n = sqlite3_column_text(s.get(), 0))
        out.insert(reinterpret_cast<const char*>(n));
    return out;
  }
};

Export open_export(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    fail(path, "", "cannot open the Nsight Systems export: no such file", kExportHint);
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  Export e{path, Db(raw)};
  if (rc != SQLITE_OK)
    fail(path, "",
         std::string("cannot open the Nsight Systems export: ") +
             (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)),
         kDamagedHint);
  return e;
}

/// Reads the integer in column `col` of the current row of `s`; anything else is a damaged row.
std::int64_t int_column(const Export& e, const Stmt& s, int col, const std::string& table, long row) {
  if (sqlite3_column_type(s.get(), col) != SQLITE_INTEGER)
    fail(e.path, table,
         "row " + std::to_string(row) + ": \"" + sqlite3_column_name(s.get(), col) + "\" is not an integer",
         kDamagedHint);
  return sqlite3_column_int64(s.get(), col);
}

/// The timing columns every activity table has, checked for presence.
void require_columns(const Export& e, const std::string& table, const std::set<std::string>& have,
                     std::initializer_list<const char*> needed) {
  for (const char* c : needed)
    if (!have.count(c))
      fail(e.path, table, std::string("the table has no column \"") + c + "\"",
           "export the report with an Nsight Systems version that writes it (2021.2 or later)");
}

/// Start, end, device and stream of the current row (columns 0-3) as a TraceKernel.
TraceKernel timed_row(const Export& e, const Stmt& s, const std::string& table, long row) {
  const std::int64_t start_ns = int_column(e, s, 0, table, row), end_ns = int_column(e, s, 1, table, row);
  if (end_ns < start_ns)
    fail(e.path, table,
         "row " + std::to_string(row) + " ends (" + std::to_string(end_ns) + " ns) before it starts (" +
             std::to_string(start_ns) + " ns)",
         kDamagedHint);
  TraceKernel k;
  k.ts_us = static_cast<double>(start_ns) / 1e3;
  k.dur_us = static_cast<double>(end_ns - start_ns) / 1e3;
  k.device = static_cast<int>(int_column(e, s, 2, table, row));
  k.stream = static_cast<int>(int_column(e, s, 3, table, row));
  return k;
}

/// The name of the current row from an id column and its joined StringIds value (columns `col`,
/// `col + 1`): empty when the id is NULL; an id StringIds lacks is an error.
std::optional<std::string> string_id(const Export& e, const Stmt& s, int col, const std::string& table,
                                     long row) {
  if (sqlite3_column_type(s.get(), col) == SQLITE_NULL) return std::nullopt;
  const std::int64_t id = int_column(e, s, col, table, row);
  const unsigned char* value = sqlite3_column_text(s.get(), col + 1);
  if (!value)
    fail(e.path, table,
         "row " + std::to_string(row) + ": the name id " + std::to_string(id) + " (\"" +
             sqlite3_column_name(s.get(), col) + "\") is missing from StringIds",
         kDamagedHint);
  return std::string(reinterpret_cast<const char*>(value));
}

void read_kernels(const Export& e, std::vector<TraceKernel>& out) {
  const std::string table = kKernelTable;
  if (!e.has_table(table))
    fail(e.path, table, "the export holds no CUDA kernels (no table CUPTI_ACTIVITY_KIND_KERNEL)",
         kExportHint);
  if (!e.has_table("StringIds"))
    fail(e.path, "StringIds", "the export has no string table, so kernel names cannot be read", kDamagedHint);
  const std::set<std::string> have = e.columns(table);
  require_columns(e, table, have, {"start", "end", "deviceId", "streamId"});
  const bool demangled = have.count("demangledName") > 0, short_name = have.count("shortName") > 0;
  if (!demangled && !short_name)
    fail(e.path, table, "the table has neither \"demangledName\" nor \"shortName\"", kDamagedHint);
  const Stmt s = e.prepare(std::string("SELECT k.start, k.end, k.deviceId, k.streamId, ") +
                               (demangled ? "k.demangledName, d.value, " : "NULL, NULL, ") +
                               (short_name ? "k.shortName, n.value" : "NULL, NULL") +
                               " FROM CUPTI_ACTIVITY_KIND_KERNEL AS k" +
                               (demangled ? " LEFT JOIN StringIds AS d ON d.id = k.demangledName" : "") +
                               (short_name ? " LEFT JOIN StringIds AS n ON n.id = k.shortName" : ""),
                           table);
  long row = 0;
  while (e.step(s, table)) {
    TraceKernel k = timed_row(e, s, table, ++row);
    std::optional<std::string> name = string_id(e, s, 4, table, row);
    if (!name) name = string_id(e, s, 6, table, row);
    if (!name)
      fail(e.path, table, "row " + std::to_string(row) + ": a kernel without a name id", kDamagedHint);
    k.name = std::move(*name);
    k.category = "kernel";
    out.push_back(std::move(k));
  }
  if (row == 0)
    fail(e.path, table, "the kernel table has no rows: no CUDA kernel ran while Nsight Systems traced",
         kExportHint + std::string(", covering the steps that run on the GPU"));
}

/// CUPTI's CUpti_ActivityMemcpyKind, as Kineto writes it in memcpy names.
std::string memcpy_name(std::optional<std::int64_t> copy_kind) {
  static const std::array<const char*, 11> kKinds = {"",     "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                                     "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
  if (!copy_kind || *copy_kind <= 0 || *copy_kind >= static_cast<std::int64_t>(kKinds.size()))
    return "Memcpy";
  return std::string("Memcpy ") + kKinds[static_cast<std::size_t>(*copy_kind)];
}

/// An optional table of memory operations: memcpys (named by copyKind) or memsets.
void read_memory_ops(const Export& e, const std::string& table, const char* category,
                     std::vector<TraceKernel>& out) {
  if (!e.has_table(table)) return;
  const std::set<std::string> have = e.columns(table);
  require_columns(e, table, have, {"start", "end", "deviceId", "streamId"});
  const bool is_memcpy = std::strcmp(category, "gpu_memcpy") == 0;
  const bool copy_kind = is_memcpy && have.count("copyKind") > 0;
  const Stmt s = e.prepare(std::string("SELECT start, end, deviceId, streamId, ") +
                               (copy_kind ? "copyKind" : "NULL") + " FROM " + table,
                           table);
  long row = 0;
  while (e.step(s, table)) {
    TraceKernel k = timed_row(e, s, table, ++row);
    std::optional<std::int64_t> kind;
    if (sqlite3_column_type(s.get(), 4) != SQLITE_NULL) kind = int_column(e, s, 4, table, row);
    k.name = is_memcpy ? memcpy_name(kind) : "Memset";
    k.category = category;
    out.push_back(std::move(k));
  }
}

}  // namespace profile_nsys

GpuTrace read_nsys_sqlite(const std::filesystem::path& path) {
  using namespace profile_nsys;
  const Export e = open_export(path);
  GpuTrace trace;
  trace.path = path;
  read_kernels(e, trace.kernels);
  read_memory_ops(e, "CUPTI_ACTIVITY_KIND_MEMCPY", "gpu_memcpy", trace.kernels);
  read_memory_ops(e, "CUPTI_ACTIVITY_KIND_MEMSET", "gpu_memset", trace.kernels);
  std::stable_sort(trace.kernels.begin(), trace.kernels.end(),
                   [](const TraceKernel& a, const TraceKernel& b) { return a.ts_us < b.ts_us; });
  return trace;
}

GpuTrace read_gpu_trace(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  if (!in || std::filesystem::is_directory(path, ec))
    throw UserError(
        "cannot read the trace " + path.string() +
        " (hint: give a PyTorch profiler (Kineto) Chrome trace (.json; gunzip a .json.gz first) or "
        "an Nsight Systems SQLite export (`nsys export --type sqlite`))");
  const std::string ext = path.extension().string();
  if (ext == ".nsys-rep" || ext == ".qdrep")
    throw UserError(SourceLocation{path.string(), 0, 0}, "",
                    "an Nsight Systems report, not its SQLite export",
                    "export it first: `nsys export --type sqlite -o report.sqlite " +
                        path.filename().string() + "`, then give report.sqlite");
  // SQLite's file header: the 16 bytes "SQLite format 3" and its terminating NUL.
  static constexpr char kSqliteHeader[16] = "SQLite format 3";
  char header[16] = {};
  in.read(header, sizeof header);
  if (in.gcount() == sizeof header && std::memcmp(header, kSqliteHeader, sizeof header) == 0)
    return read_nsys_sqlite(path);
  return read_kineto_trace(path);
}

}  // namespace stepsim::out
