// `stepsim plot RESULTS.h5 --x COLUMN --y COLUMN [--color COLUMN] --out FILE.svg|.html`: a chart of
// a sweep's results.
#include <boost/program_options.hpp>
#include <iostream>

#include "output/common/atomic_file.hpp"
#include "output/report/sweep_plot.hpp"
#include "sim/error.hpp"
#include "tools/cli_common.hpp"
#include "tools/commands.hpp"

namespace stepsim::cli {
namespace cmd_plot_options {

out::PlotAggregate aggregate_of(const std::string& text) {
  for (const auto a :
       {out::PlotAggregate::none, out::PlotAggregate::min, out::PlotAggregate::max, out::PlotAggregate::mean})
    if (text == out::name(a)) return a;
  throw UserError("--agg: expected none, min, max or mean, got `" + text + "`");
}

}  // namespace cmd_plot_options

int cmd_plot(Args args) {
  namespace po = boost::program_options;
  std::string file, out_path, agg = "none";
  out::PlotRequest req;
  po::options_description visible(
      "stepsim plot RESULTS.h5 --x COLUMN --y COLUMN [--color COLUMN] --out FILE.svg|FILE.html\n\n"
      "Plots one column of a sweep's results (`stepsim sweep --out`, `stepsim merge`) against another, one\n"
      "series per value of a third: an SVG, or a self-contained HTML page with the chart and the plotted\n"
      "points as a table. Columns are the axis keys (`hardware.nic_gbps`) and the result columns\n"
      "(`tokens_per_s_per_gpu`, `step_time_s`, `mfu`, ...; docs/sweeps.md lists them). Only points whose\n"
      "status is ok are plotted; the caption counts the others");
  visible.add_options()("help,h", "show this help")(
      "x", po::value(&req.x), "column along the horizontal axis")("y", po::value(&req.y),
                                                                  "numeric column along the vertical axis")(
      "color", po::value(&req.color), "column whose values make the series (one colour each)")(
      "agg", po::value(&agg)->default_value("none"),
      "where points of a series share an x: none (every point, markers only), min, max or mean")(
      "log-x", po::bool_switch(&req.log_x), "logarithmic horizontal axis")(
      "log-y", po::bool_switch(&req.log_y), "logarithmic vertical axis")(
      "title", po::value(&req.title), "chart title (default: Y vs X)")("out", po::value(&out_path),
                                                                       "the chart: FILE.svg or FILE.html");
  if (!parse_command_line(args, visible, "results", file)) return 0;
  if (file.empty())
    throw UserError("missing the results file (usage: stepsim plot RESULTS.h5 --x X --y Y --out F)");
  if (req.x.empty() || req.y.empty())
    throw UserError(
        "--x and --y are required: the columns to plot (for example --x hardware.nodes --y "
        "tokens_per_s_per_gpu)");
  if (out_path.empty()) throw UserError("--out is required: the chart's file, FILE.svg or FILE.html");
  const bool html = out_path.ends_with(".html") || out_path.ends_with(".htm");
  if (!html && !out_path.ends_with(".svg"))
    throw UserError("--out: `" + out_path + "` should end in .svg or .html (the format follows the name)");
  req.aggregate = cmd_plot_options::aggregate_of(agg);
  out::check_output_path(out_path, "--out");
  req.source = std::filesystem::path(file).filename().string();
  const out::SweepFileHeader header = out::read_sweep_hdf5_header(file);
  std::vector<out::Row> rows;
  out::read_sweep_hdf5_rows(file, [&](out::Row&& r) { rows.push_back(std::move(r)); });
  const out::Plot plot = out::plot_sweep(header, rows, req);
  out::write_file_atomically(out_path, html ? out::plot_html(plot, req, header) : plot.svg, "--out");
  std::cout << "wrote " << out_path << ": " << plot.caption << "\n";
  return 0;
}

}  // namespace stepsim::cli
