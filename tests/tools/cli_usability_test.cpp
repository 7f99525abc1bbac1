// The small things a new user trips on, through the real binary: an example in every --help,
// did-you-mean for commands and options, no guessed option prefixes, stray arguments refused,
// `stepsim kv` saying what it needs, --price, and progress only on a terminal.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/temp_files.hpp"

using stepsim::test::run_stepsim;
using stepsim::test::slurp;
using stepsim::test::TempDir;
namespace fs = std::filesystem;

namespace {

// A four-layer Llama job on one 8-GPU node: simulates in a moment.
constexpr const char* kSmallJob = R"([meta]
name = "small"
id = "small"
group = "g"
[model]
preset = "llama-3.1-8b"
layers = 4
[hardware]
gpu = "h100-sxm"
nodes = 1
[workload]
kind = "train"
seq_len = 1024
global_batch = 8
micro_batch = 1
[parallelism]
tp = 8
)";

const std::string kLlamaExample =
    std::string(STEPSIM_SOURCE_DIR) + "/scenarios/examples/llama3.1-70b-512xh100.toml";

std::string shell_quoted(const fs::path& p) {
  return "'" + p.string() + "'";
}

/// The command names `stepsim --help` lists.
std::vector<std::string> command_names() {
  const auto r = run_stepsim("--help");
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> names;
  std::istringstream in(r.out.substr(r.out.find("commands:")));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line) && line.starts_with("  "))
    names.push_back(line.substr(2, line.find(' ', 2) - 2));
  return names;
}

/// Runs `stepsim <args>` with stderr on a new pseudo-terminal; returns what it wrote there, or
/// nullopt where no pseudo-terminal can be opened.
std::optional<std::string> stderr_on_terminal(const std::string& args) {
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) {
    if (master >= 0) ::close(master);
    return std::nullopt;
  }
  const std::string slave = ::ptsname(master);
  // Held open so the master never reads end-of-file before the command opens its side.
  const int held = ::open(slave.c_str(), O_RDWR | O_NOCTTY);
  std::string captured;
  std::atomic<bool> finished{false};
  std::thread reader([&] {
    char buf[4096];
    for (;;) {
      pollfd p{master, POLLIN, 0};
      if (::poll(&p, 1, 50) > 0) {
        const ssize_t n = ::read(master, buf, sizeof buf);
        if (n <= 0) break;
        captured.append(buf, static_cast<std::size_t>(n));
      } else if (finished) {
        break;  // the command is done and nothing is left to read
      }
    }
  });
  const std::string cmd = "'" + std::string(STEPSIM_BINARY) + "' " + args + " >/dev/null 2>'" + slave + "'";
  (void)std::system(cmd.c_str());
  finished = true;
  reader.join();
  ::close(held);
  ::close(master);
  return captured;
}

}  // namespace

TEST_CASE("Every command's --help exits 0 and ends with an example that names bundled files") {
  const std::vector<std::string> names = command_names();
  REQUIRE(names.size() >= 14);  // version .. bench
  for (const std::string& name : names) {
    INFO("stepsim " << name << " --help");
    const auto r = run_stepsim(name + " --help");
    CHECK(r.exit_code == 0);
    const auto at = r.out.find("Example:");
    REQUIRE(at != std::string::npos);
    // Every path an example names is a file of this repository.
    std::istringstream words(r.out.substr(at));
    int commands = 0;
    for (std::string w; words >> w;) {
      if (w == "stepsim") ++commands;
      if (w.starts_with("scenarios/")) CHECK(fs::exists(fs::path(STEPSIM_SOURCE_DIR) / w));
    }
    CHECK(commands >= 1);
  }
  const auto top = run_stepsim("--help");
  CHECK(top.out.find("Example:") != std::string::npos);
}

TEST_CASE("A mistyped command or option gets a did-you-mean and exit code 2") {
  auto r = run_stepsim("rn");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown command `rn`") && Catch::Contains("did you mean `run`?"));
  r = run_stepsim("colective");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("did you mean `collective`?"));
  r = run_stepsim("frobnicate");  // nothing near: the list of commands
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("commands:"));

  r = run_stepsim("run " + shell_quoted(kLlamaExample) + " --formt json");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("--formt: not an option of `stepsim run`") &&
                        Catch::Contains("did you mean `--format`?"));
  r = run_stepsim("search x.toml --max-tpp 4");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("did you mean `--max-tp`?"));
}

TEST_CASE("Option prefixes are not guessed") {
  // --compare is its own option: a missing file is an error, not the built-in 8 x H100 comparison.
  auto r = run_stepsim("collective --compare /nonexistent.csv");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("/nonexistent.csv"));
  // A prefix of one option is refused and named, with the option it may have meant.
  r = run_stepsim("collective --compare-nccl");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--compare-nccl: not an option") &&
                        Catch::Contains("did you mean `--compare-nccl-h100`?"));
  r = run_stepsim("run " + shell_quoted(kLlamaExample) + " --form json");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("did you mean `--format`?"));
  // The full name still works.
  r = run_stepsim("collective --bytes 1048576 --format json");
  CHECK(r.exit_code == 0);
}

TEST_CASE("Stray positional arguments are refused with exit code 2") {
  TempDir dir;
  const auto job = dir.write("job.toml", kSmallJob);
  auto r = run_stepsim("check " + shell_quoted(job) + " extra.toml");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("unexpected argument `extra.toml`") &&
                        Catch::Contains("`stepsim check` takes one scenario"));
  // A value after a switch that takes none is a stray argument, not silently dropped.
  r = run_stepsim("sweep s.toml --resume yes --out r.h5");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("unexpected argument `yes`"));
  r = run_stepsim("collective 8");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("unexpected argument `8`") && Catch::Contains("takes options only"));
  // A stray negative number reads as an option: the message says how to write such a value.
  r = run_stepsim("check " + shell_quoted(job) + " -2");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("`-2` is read as an option, not as a value"));
}

TEST_CASE("stepsim kv says what it needs, and works as README shows it") {
  auto r = run_stepsim("kv");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("a scenario file, or --model ID with --context TOKENS") &&
                        Catch::Contains("stepsim kv --model llama-3.1-70b --context 8192"));
  r = run_stepsim("kv --model llama-3.1-70b --context 8192 --gpu h200");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("KV cache of llama-3.1-70b"));
  r = run_stepsim("kv '" + std::string(STEPSIM_SOURCE_DIR) +
                  "/scenarios/examples/llama3.1-70b-decode-8xh200-bs64.toml'");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("64 sequences"));
}

TEST_CASE("The --price option sets the GPU-hour price over the catalog's and the scenario's own") {
  TempDir dir;
  const auto job = dir.write("job.toml", kSmallJob);
  std::string inline_gpu = kSmallJob;
  inline_gpu.replace(inline_gpu.find("gpu = \"h100-sxm\""), 16,
                     "gpu = { preset = \"h100-sxm\", price_per_hour = 3.93 }");
  const auto own_price = dir.write("own.toml", inline_gpu);
  const auto price_of = [](const std::string& args) {
    const auto r = run_stepsim("check " + args + " --format json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out)["job"]["cluster"]["gpu"]["price_per_hour"].get<double>();
  };
  CHECK(price_of(shell_quoted(own_price)) == 3.93);
  CHECK(price_of(shell_quoted(own_price) + " --price 2.5") == 2.5);
  CHECK(price_of(shell_quoted(job) + " --price 2.5") == 2.5);
  CHECK(price_of(shell_quoted(job) + " --price 0") == 0.0);
  // ... also when --set picks another GPU after it.
  CHECK(price_of(shell_quoted(job) + " --price 2.5 --set hardware.gpu=h200") == 2.5);

  SECTION("run: the cost figures follow it") {
    const auto r = run_stepsim("run " + shell_quoted(job) + " --price 2 --format json");
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["cost"]["per_gpu_hour"] == 2.0);
    CHECK(j["cost"]["cluster_per_hour"] == 16.0);  // 8 GPUs x $2
  }
  SECTION("estimate, compare and search take it too") {
    auto r = run_stepsim("estimate " + shell_quoted(own_price) + " --price 2 --format json");
    CHECK(r.exit_code == 0);
    r = run_stepsim("compare " + shell_quoted(job) + " " + shell_quoted(own_price) +
                    " --price 2 --format json");
    CHECK(r.exit_code == 0);
    r = run_stepsim("search " + shell_quoted(own_price) + " --price 1.5 --rank cost --top 1 --format json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    // $ per million tokens = 1.5 $/GPU-h x 8 GPUs / 3,600 s/h / (tokens/s) x 1e6, not 3.93 x ...
    const auto best = nlohmann::json::parse(r.out)["layouts"][0];
    CHECK(best["usd_per_million_tokens"].get<double>() ==
          Approx(1.5 * 8 / 3600.0 / best["tokens_per_s"].get<double>() * 1e6));
  }
  SECTION("sweep: every catalog GPU gets the price") {
    const auto sweep = dir.write("price.toml", R"([sweep]
name = "price"
[base.model]
preset = "llama-3.1-8b"
layers = 4
[base.hardware]
gpu = "h100-sxm"
nodes = 1
[base.workload]
kind = "train"
seq_len = 1024
global_batch = 8
micro_batch = 1
[[axis]]
key = "parallelism.tp"
values = [8]
)");
    const auto usd_at = [&](const std::string& price) {
      const auto csv = dir.path() / ("p" + price + ".csv");
      const auto r = run_stepsim("sweep " + shell_quoted(sweep) + " --out " +
                                 shell_quoted(dir.path() / ("p" + price + ".h5")) + " --csv " +
                                 shell_quoted(csv) + " --price " + price);
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      std::istringstream lines(slurp(csv));
      std::string header, row;
      std::getline(lines, header);
      std::getline(lines, row);
      const auto column = [](const std::string& line, std::size_t i) {
        std::istringstream cells(line);
        std::string cell;
        for (std::size_t k = 0; k <= i; ++k) std::getline(cells, cell, ',');
        return cell;
      };
      std::size_t i = 0;
      while (column(header, i) != "usd_per_million_tokens") REQUIRE(++i < 100);
      return std::stod(column(row, i));
    };
    // The same simulated rate at twice the price: twice the dollars per million tokens.
    const double at_one_dollar = usd_at("1");
    CHECK(at_one_dollar > 0.0);
    CHECK(usd_at("2") == Approx(2.0 * at_one_dollar));
  }
  SECTION("bad values are user errors naming --price") {
    for (const char* bad :
         {"--price=-1", "--price -1", "--price abc", "--price 2x", "--price inf", "--price=nan"}) {
      INFO(bad);
      const auto r = run_stepsim("run " + shell_quoted(job) + " " + bad);
      CHECK(r.exit_code == 2);
      CHECK_THAT(r.err, Catch::Contains("--price: expected USD per GPU-hour, a number of at least 0"));
    }
  }
}

TEST_CASE("Progress appears only on a terminal, and not with --quiet or JSON") {
  TempDir dir;
  fs::create_directories(dir.path() / "cases");
  dir.write("cases/small.toml",
            std::string(kSmallJob) + "[validation]\nmeasured_step_s = 0.5\nsource = \"test fixture\"\n");
  const std::string cases = shell_quoted(dir.path() / "cases");
  const auto job = shell_quoted(dir.path() / "cases" / "small.toml");
  // stderr is a file here, not a terminal: no progress line from any command.
  for (const std::string& args : {"validate " + cases, "compare " + job + " " + job, "run " + job}) {
    INFO(args);
    const auto r = run_stepsim(args);
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
  }
  // On a (pseudo-)terminal validate draws its counter, and --quiet or JSON silence it.
  const auto shown = stderr_on_terminal("validate " + cases);
  if (!shown) {
    WARN("no pseudo-terminal here: progress on a terminal is not checked");
    return;
  }
  CHECK_THAT(*shown, Catch::Contains("validate") && Catch::Contains("1/1 files") && Catch::Contains("\r"));
  CHECK(stderr_on_terminal("validate " + cases + " --quiet")->find("files") == std::string::npos);
  CHECK(stderr_on_terminal("validate " + cases + " --format json")->find("files") == std::string::npos);
}
