// Bad-input catalogue, `stepsim plot`: a results file that is missing or is not one, options that
// are missing or malformed. Each exits 2 with a message naming the option or the file. (Columns
// that do not exist or cannot be plotted: tests/output/report/sweep_plot_test.cpp.)
#include "tests/bad_inputs/bad_input.hpp"

namespace plot_rows {

using stepsim::test::bad::BadInput;

BadInput row(std::string name, std::string args, std::vector<std::string> stderr_contains) {
  return BadInput{std::move(name),
                  {{"not-results.h5", "[sweep]\nname = \"x\"\n"}},
                  std::move(args),
                  2,
                  std::move(stderr_contains)};
}

const std::vector<BadInput> kRows = {
    row("a results file that does not exist", "plot {dir}/none.h5 --x a --y b --out {dir}/p.svg",
        {"none.h5", "no such file"}),
    row("a text file given as results", "plot {dir}/not-results.h5 --x a --y b --out {dir}/p.svg",
        {"not-results.h5", "not an HDF5 file"}),
    row("no --y", "plot {dir}/not-results.h5 --x a --out {dir}/p.svg", {"--x and --y are required"}),
    row("no --out", "plot {dir}/not-results.h5 --x a --y b", {"--out is required", ".svg or FILE.html"}),
    row("an output that is neither SVG nor HTML", "plot {dir}/not-results.h5 --x a --y b --out {dir}/p.png",
        {"--out", "p.png", "should end in .svg or .html"}),
    row("an unknown aggregate", "plot {dir}/not-results.h5 --x a --y b --agg median --out {dir}/p.svg",
        {"--agg: expected none, min, max or mean, got `median`"}),
    row("no results file at all", "plot --x a --y b --out {dir}/p.svg", {"missing the results file"}),
};

}  // namespace plot_rows

TEST_CASE("bad inputs: stepsim plot names the file or option it cannot use") {
  for (const auto& r : plot_rows::kRows) stepsim::test::bad::check_bad_input(r);
}
