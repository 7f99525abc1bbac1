#pragma once
// `stepsim plot`: one column of a sweep's results against another, one series per value of a
// third, as a standalone SVG or a self-contained HTML page (the SVG, a caption and the plotted
// rows as a table). Only points that ran and fit (`status` ok) with a finite value are plotted;
// the caption counts the rest.

#include <cstddef>
#include <string>
#include <vector>

#include "output/sweep/sweep_hdf5.hpp"

namespace stepsim::out {

enum class PlotAggregate : std::uint8_t { none, min, max, mean };

struct PlotRequest {
  std::string x, y;   ///< column names; y must be a number
  std::string color;  ///< column whose values split the points into series; "" for one series
  /// What to draw where several points of a series share an x (other axes vary): every point
  /// (`none`: markers, no line), or their min, max or mean (one point per x, joined by a line).
  PlotAggregate aggregate = PlotAggregate::none;
  bool log_x = false, log_y = false;
  std::string title;   ///< "" : "<y> vs <x>"
  std::string source;  ///< the results file's name, for the caption
};

/// One plotted point (after aggregation).
struct PlotPoint {
  std::string series;  ///< the colour column's value as text ("" with one series)
  std::string x_text;  ///< x as text (numbers in shortest form)
  double x = 0.0;      ///< x as a number; for text x, its position 0, 1, ...
  double y = 0.0;
  std::size_t rows = 1;  ///< result rows behind it (aggregates)
};

struct Plot {
  std::string svg;  ///< a standalone SVG document
  std::vector<PlotPoint> points;
  std::size_t rows = 0;                          ///< rows in the file
  std::size_t not_ok = 0;                        ///< rows whose status is not ok (not plotted)
  std::size_t no_value = 0;                      ///< ok rows with no finite x or y (not plotted)
  std::vector<std::string> series;               ///< in legend order
  std::string caption;                           ///< what was plotted and what was left out
  std::string x_column, y_column, color_column;  ///< the columns plotted (axis names resolved)
};

/// Builds the chart; UserError for an unknown column (with the columns there are), a text y, a
/// log axis over values <= 0, or a file with no row to plot.
Plot plot_sweep(const SweepFileHeader& header, const std::vector<Row>& rows, const PlotRequest& request);

/// A self-contained HTML page: the chart, its caption and the plotted points as a table.
std::string plot_html(const Plot& plot, const PlotRequest& request, const SweepFileHeader& header);

std::string_view name(PlotAggregate a);

}  // namespace stepsim::out
