// `stepsim plot`: which rows become points, in which series and order, what aggregation does, and
// the errors a user gets for columns that do not exist or cannot be plotted.
#include "output/report/sweep_plot.hpp"

#include <catch2/catch.hpp>

#include <cmath>

#include "sim/error.hpp"

using namespace stepsim;
using namespace stepsim::out;

namespace {

/// A results file's header: a text axis (gpu, declared in the order b200, h100), an integer axis
/// (tp, filter name `t` in the sweep text), status and one result.
SweepFileHeader header() {
  SweepFileHeader h;
  h.info.identity.sweep_name = "plot-test";
  h.info.sweep_text =
      "[sweep]\nbase = \"x.toml\"\n[[axis]]\nkey = \"hardware.gpu\"\nvalues = [\"b200\", \"h100\"]\n"
      "[[axis]]\nkey = \"parallelism.tp\"\nname = \"t\"\nvalues = [1, 2, 4]\n";
  h.schema.columns = {{"point", ColumnType::int64},
                      {"hardware.gpu", ColumnType::text, {"b200", "h100"}},
                      {"parallelism.tp", ColumnType::int64},
                      {"status", ColumnType::text, {"ok", "out_of_memory", "invalid", "failed"}},
                      {"step_time_s", ColumnType::float64}};
  h.schema.first_result = 3;
  return h;
}

Row row(std::int64_t point, const char* gpu, std::int64_t tp, const char* status, double t) {
  return Row{point, std::string(gpu), tp, std::string(status), t};
}

/// h100 rows come first in the file; one point does not fit and one has no step time.
std::vector<Row> rows() {
  return {
      row(0, "h100", 1, "ok", 4.0), row(1, "h100", 2, "ok", 2.5),  row(2, "h100", 4, "out_of_memory", 1.0),
      row(3, "b200", 1, "ok", 2.0), row(4, "b200", 2, "ok", 1.25), row(5, "b200", 4, "ok", std::nan("")),
      row(6, "b200", 2, "ok", 1.75)};
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("plot: ok rows with a value become points, one series per colour value in axis order") {
  PlotRequest req;
  req.x = "parallelism.tp";
  req.y = "step_time_s";
  req.color = "hardware.gpu";
  req.source = "r.h5";
  const Plot p = plot_sweep(header(), rows(), req);
  CHECK(p.rows == 7);
  CHECK(p.not_ok == 1);    // point 2: out of memory
  CHECK(p.no_value == 1);  // point 5: NaN step time
  REQUIRE(p.points.size() == 5);
  // The legend follows the axis's declared order (b200 first), not the file's.
  CHECK(p.series == std::vector<std::string>{"b200", "h100"});
  CHECK(p.points.front().series == "b200");
  // b200 has two points at tp = 2 (points 4 and 6): markers only, no lines, and the caption says so.
  CHECK(count(p.svg, "<polyline") == 0);
  CHECK(count(p.svg, "<circle") == 5);
  CHECK(p.caption.find("markers only") != std::string::npos);
  CHECK(p.svg.find("step_time_s (seconds)") != std::string::npos);  // the axis title names the unit
}

TEST_CASE("plot: --agg keeps one point per x and draws a line per series") {
  PlotRequest req;
  req.x = "t";  // the axis's filter name stands for parallelism.tp
  req.y = "step_time_s";
  req.color = "hardware.gpu";
  req.aggregate = PlotAggregate::mean;
  req.source = "r.h5";
  const Plot p = plot_sweep(header(), rows(), req);
  CHECK(p.x_column == "parallelism.tp");
  REQUIRE(p.points.size() == 4);  // b200 at tp 1, 2; h100 at tp 1, 2
  // b200 at tp 2: the mean of 1.25 and 1.75.
  CHECK(p.points[1].series == "b200");
  CHECK(p.points[1].x == 2.0);
  CHECK(p.points[1].y == Approx(1.5));
  CHECK(p.points[1].rows == 2);
  CHECK(count(p.svg, "<polyline") == 2);
  req.aggregate = PlotAggregate::max;
  CHECK(plot_sweep(header(), rows(), req).points[1].y == 1.75);
}

TEST_CASE("plot: a text x is placed in its categories' order") {
  PlotRequest req;
  req.x = "hardware.gpu";
  req.y = "step_time_s";
  req.color = "parallelism.tp";
  req.source = "r.h5";
  const Plot p = plot_sweep(header(), rows(), req);
  // Series are tp values in numeric order; b200 is position 0 and h100 position 1.
  CHECK(p.series == std::vector<std::string>{"1", "2"});
  for (const PlotPoint& pt : p.points) CHECK(pt.x == (pt.x_text == "b200" ? 0.0 : 1.0));
  const std::string html = plot_html(p, req, header());
  CHECK(html.find("<svg id=\"plot\"") != std::string::npos);
  CHECK(html.find("data-points=\"5\"") != std::string::npos);
  CHECK(count(html, "<tr>") == 1 + 5);  // the header row and one per point
}

TEST_CASE("plot: columns that do not exist or cannot be plotted are refused clearly") {
  PlotRequest req;
  req.x = "parallelism.tp";
  req.y = "step_time";
  req.source = "r.h5";
  CHECK_THROWS_WITH(plot_sweep(header(), rows(), req),
                    Catch::Contains("--y: no column `step_time` in r.h5") && Catch::Contains("step_time_s"));
  req.y = "status";
  CHECK_THROWS_WITH(plot_sweep(header(), rows(), req), Catch::Contains("--y: `status` is text"));
  req.y = "step_time_s";
  req.x = "hardware.gpu";
  req.log_x = true;
  CHECK_THROWS_WITH(plot_sweep(header(), rows(), req), Catch::Contains("--log-x: `hardware.gpu` is text"));
  req.x = "parallelism.tp";
  std::vector<Row> zero = rows();
  std::get<double>(zero[0][4]) = 0.0;
  req.log_x = false;
  req.log_y = true;
  CHECK_THROWS_WITH(plot_sweep(header(), zero, req),
                    Catch::Contains("--log-y: a log scale needs positive values"));
  std::vector<Row> none = {row(0, "h100", 1, "invalid", std::nan(""))};
  req.log_y = false;
  CHECK_THROWS_WITH(plot_sweep(header(), none, req),
                    Catch::Contains("no point to plot: 1 of 1 rows are not ok"));
}
