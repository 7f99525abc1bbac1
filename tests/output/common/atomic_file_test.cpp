// Output files appear whole or not at all, never through a symbolic link, and a target that cannot
// be written is a UserError with the system's reason, found before any work.
#include "output/common/atomic_file.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>

#include "sim/error.hpp"
#include "tests/support/file_size_limit.hpp"
#include "tests/support/temp_files.hpp"

using namespace stepsim;
namespace fs = std::filesystem;

namespace atomic_file_test {

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace atomic_file_test

using atomic_file_test::error_of;
using atomic_file_test::names_in;

TEST_CASE("An atomic file replaces its target only when committed") {
  test::TempDir dir;
  const fs::path target = dir.write("out.json", "old");
  {
    out::AtomicFile f(target, "--trace");
    f.stream() << "new " << 42;
    CHECK(test::slurp(target) == "old");  // readers see the old file until the rename
    f.commit();
  }
  CHECK(test::slurp(target) == "new 42");
  CHECK(names_in(dir.path()) == std::vector<std::string>{"out.json"});  // no temporary left
  {
    out::AtomicFile f(target, "--trace");
    f.write("half");
    // an error on the way: destroyed uncommitted
  }
  CHECK(test::slurp(target) == "new 42");
  CHECK(names_in(dir.path()) == std::vector<std::string>{"out.json"});
}

TEST_CASE("An atomic file never writes through a symbolic link") {
  test::TempDir dir;
  const fs::path victim = dir.write("victim", "precious");
  // The old fixed temporary name, and the target itself, as links to another file.
  fs::create_symlink(victim, dir.path() / "r.h5.tmp");
  fs::create_symlink(victim, dir.path() / "r.h5");
  out::write_file_atomically(dir.path() / "r.h5", "results", "--out");
  CHECK(test::slurp(victim) == "precious");
  CHECK_FALSE(fs::is_symlink(dir.path() / "r.h5"));  // the rename replaced the link itself
  CHECK(test::slurp(dir.path() / "r.h5") == "results");
}

TEST_CASE("A file that outgrows the disk is a UserError with the system's reason, and nothing is replaced") {
  test::TempDir dir;
  const fs::path target = dir.write("r.html", "old");
  const std::string big(1 << 20, 'x');
  std::string what;
  {
    test::FileSizeLimit limit(64 * 1024);
    what = error_of([&] { out::write_file_atomically(target, big, "--report"); });
    out::AtomicFile f(dir.path() / "t.json", "--trace");
    f.stream() << big;  // the stream's own buffering meets the limit too
    CHECK_FALSE(f.stream().good());
    CHECK_THAT(error_of([&] { f.commit(); }), Catch::Contains("File too large"));
  }
  CHECK_THAT(what, Catch::Contains("r.html: --report: cannot write it: File too large"));
  CHECK(test::slurp(target) == "old");
  CHECK(names_in(dir.path()) == std::vector<std::string>{"r.html"});
}

TEST_CASE("Output paths are checked before any work") {
  test::TempDir dir;
  fs::create_directories(dir.path() / "folder");
  const auto check = [](const fs::path& p, std::initializer_list<std::string_view> suffixes = {}) {
    return error_of([&] { out::check_output_path(p, "--out", suffixes); });
  };
  CHECK(check(dir.path() / "r.h5") == "no error");
  CHECK(names_in(dir.path()) == std::vector<std::string>{"folder"});  // the probe file is gone
  CHECK_THAT(check(dir.path() / "folder"), Catch::Contains("--out: is a folder, not a file"));
  CHECK_THAT(check(dir.path() / "folder/"), Catch::Contains("is a folder"));
  CHECK_THAT(check(dir.path() / "missing" / "r.h5"),
             Catch::Contains("cannot use its folder: No such file or directory") &&
                 Catch::Contains("create the folder first"));
  CHECK_THAT(check(dir.path() / (std::string(300, 'x') + ".h5")), Catch::Contains("File name too long"));
  // 250 bytes fit, but not with ".journal" (8 more) beside it: NAME_MAX is 255.
  const fs::path long_name = dir.path() / std::string(250, 'y');
  CHECK(check(long_name) == "no error");
  CHECK_THAT(check(long_name, {".journal"}), Catch::Contains("too long") && Catch::Contains(".journal"));
  CHECK_THAT(check("/dev/null"), Catch::Contains("is not a regular file"));
  CHECK_THAT(check(dir.path() / "r.h5" / "x"), Catch::Contains("--out"));  // a missing folder
}
