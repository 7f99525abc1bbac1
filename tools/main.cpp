// stepsim: predicts how long one training or inference step takes on a GPU cluster, and why.
#include <boost/program_options/errors.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/suggest.hpp"
#include "sim/error.hpp"
#include "sim/memory.hpp"
#include "tools/commands.hpp"

namespace {

void print_usage(std::FILE* out) {
  std::fprintf(out, "usage: stepsim <command> [options]\n\ncommands:\n");
  for (const auto& c : stepsim::cli::commands())
    std::fprintf(out, "  %-12.*s %.*s\n", static_cast<int>(c.name.size()), c.name.data(),
                 static_cast<int>(c.summary.size()), c.summary.data());
  std::fprintf(out,
               "\nRun `stepsim <command> --help` for a command's options and an example.\n\n"
               "Example:\n  stepsim run scenarios/examples/llama3.1-70b-512xh100.toml\n");
}

}  // namespace

int main(int argc, char** argv) {
  stepsim::sim::keep_freed_memory();
  if (argc < 2) {
    print_usage(stderr);
    return 2;
  }
  const std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    print_usage(stdout);
    return 0;
  }
  if (name == "--version") {
    std::printf("stepsim %s\n", STEPSIM_VERSION);
    return 0;
  }
  for (const auto& c : stepsim::cli::commands()) {
    if (c.name != name) continue;
    try {
      return c.run(stepsim::cli::Args(argv + 1, static_cast<std::size_t>(argc - 1)));
    } catch (const stepsim::UserError& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 2;
    } catch (const boost::program_options::error& e) {
      std::fprintf(stderr, "error: %s (see `stepsim %s --help`)\n", e.what(), argv[1]);
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "internal error: %s\n", e.what());
      return 1;
    }
  }
  std::vector<std::string> names;
  for (const auto& c : stepsim::cli::commands()) names.emplace_back(c.name);
  if (const auto match = stepsim::scen::closest_match(name, names)) {
    std::fprintf(stderr,
                 "error: unknown command `%s` (did you mean `%s`? `stepsim --help` lists the commands)\n",
                 argv[1], match->c_str());
    return 2;
  }
  std::fprintf(stderr, "error: unknown command `%s`\n", argv[1]);
  print_usage(stderr);
  return 2;
}
