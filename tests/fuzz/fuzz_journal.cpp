// libFuzzer target: a sweep journal damaged anywhere -> SweepJournal::open (the resume path), then
// every row it indexed read back. A power loss, a full disk, a stray write or another program can
// leave any bytes in the file; the journal must keep what it can prove whole and refuse or drop the
// rest, never crash or report an internal error.
//
// Input layout: byte 0 = number of valid rows to append first (mod 8), each built from 9 input
// bytes; then 2 bytes = an offset into the file, where the remaining bytes are written (over the
// header, over records, or past the end as a torn tail).
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "output/sweep/sweep_journal.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

stepsim::out::SweepSchema fuzz_schema() {
  using stepsim::out::ColumnType;
  stepsim::out::SweepSchema schema;
  schema.columns = {{"point", ColumnType::int64}, {"step_s", ColumnType::float64}, {"bottleneck", ColumnType::text}};
  schema.first_result = 1;
  return schema;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stepsim;
  // On tmpfs where there is one: the journal fsyncs its header and records, which on a disk would
  // make this target a hundred times slower without testing anything more.
  static const std::filesystem::path path =
      (std::filesystem::is_directory("/dev/shm") ? std::filesystem::path("/dev/shm")
                                                 : std::filesystem::temp_directory_path()) /
      ("stepsim-fuzz-journal-" + std::to_string(::getpid()));
  static const out::SweepSchema schema = fuzz_schema();
  out::SweepIdentity id;
  id.sweep_name = "fuzz";
  id.sweep_hash = "0123456789abcdef";
  id.points = 1000;
  id.version = "fuzz";
  std::size_t at = 0;
  const std::size_t rows = size > 0 ? data[at++] % 8 : 0;
  {
    auto j = out::SweepJournal::create(path, id, schema);
    for (std::size_t r = 0; r < rows && at + 9 <= size; ++r, at += 9) {
      std::uint64_t point = 0;
      std::memcpy(&point, data + at, 8);
      out::Row row{static_cast<std::int64_t>(point % id.points), static_cast<double>(data[at + 8]) * 1e-3,
                   std::string(data[at + 8] % 5, 'x')};
      j.append(row);
    }
  }
  if (at + 2 <= size) {
    const off_t offset = static_cast<off_t>(data[at] | (data[at + 1] << 8));
    at += 2;
    const int fd = ::open(path.c_str(), O_WRONLY);
    if (fd >= 0) {
      const off_t end = ::lseek(fd, 0, SEEK_END);
      (void)!::pwrite(fd, data + at, size - at, offset < end ? offset : end);
      ::close(fd);
    }
  }
  fuzz::expect_user_errors_only([&] {
    auto j = out::SweepJournal::open(path, id, schema);
    for (std::size_t i = 0; i < j.size(); ++i) (void)j.row(i);
    (void)j.text_widths();
  });
  return 0;
}
