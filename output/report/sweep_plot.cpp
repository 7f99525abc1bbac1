#include "output/report/sweep_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <toml++/toml.hpp>

#include "output/report/report_charts.hpp"
#include "output/common/svg.hpp"
#include "scenarios/suggest.hpp"
#include "sim/error.hpp"

namespace stepsim::out {
namespace sweep_plot {

constexpr double kWidth = 860, kHeight = 520;
constexpr double kLeft = 86, kRight = 190, kTop = 44, kBottom = 70;  // margins: axes, legend, title
constexpr std::string_view kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                         "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

/// The names filters use for the sweep's axis keys (`name`/`names` of each [[axis]], else the
/// key's last part), as name -> key, from the sweep text the results file keeps. A text that does
/// not parse gives none: the columns' own names still work.
std::map<std::string, std::string> axis_names(const std::string& sweep_text) {
  std::map<std::string, std::string> out;
  try {
    const toml::table doc = toml::parse(sweep_text);
    const toml::array* axes = doc["axis"].as_array();
    for (std::size_t a = 0; axes != nullptr && a < axes->size(); ++a) {
      const toml::table* t = axes->get(a)->as_table();
      if (t == nullptr) continue;
      std::vector<std::string> keys, names;
      auto strings = [](const toml::node* n, std::vector<std::string>& v) {
        if (const auto* s = n ? n->as_string() : nullptr) v.push_back(s->get());
        if (const auto* arr = n ? n->as_array() : nullptr)
          for (const auto& e : *arr)
            if (const auto* s = e.as_string()) v.push_back(s->get());
      };
      strings(t->get("key"), keys);
      strings(t->get("keys"), keys);
      strings(t->get("name"), names);
      strings(t->get("names"), names);
      for (std::size_t k = 0; k < keys.size(); ++k)
        out.emplace(k < names.size() ? names[k] : keys[k].substr(keys[k].rfind('.') + 1), keys[k]);
    }
  } catch (const toml::parse_error&) {
  }
  return out;
}

std::size_t column_index(const SweepFileHeader& header, const std::string& name, const char* option,
                         const std::string& file) {
  const SweepSchema& schema = header.schema;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < schema.columns.size(); ++i) {
    if (schema.columns[i].name == name) return i;
    names.push_back(schema.columns[i].name);
  }
  // An axis's filter name (`nic` for hardware.nic_gbps) names its key's column.
  const auto aliases = axis_names(header.info.sweep_text);
  if (const auto a = aliases.find(name); a != aliases.end())
    for (std::size_t i = 0; i < schema.columns.size(); ++i)
      if (schema.columns[i].name == a->second) return i;
  const std::string hint = scen::did_you_mean(name, names);
  throw UserError(std::string(option) + ": no column `" + name + "` in " + file +
                  (hint.empty() ? "" : " (" + hint + ")") + "; its columns are " +
                  scen::join_names(names, 80));
}

/// A cell as a number (text: NaN) and as text.
double number_of(const Cell& c) {
  if (const auto* i = std::get_if<std::int64_t>(&c)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&c)) return *d;
  return std::nan("");
}
std::string text_of(const Cell& c) {
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&c)) return std::to_string(*i);
  return number_text(std::get<double>(c));
}

/// A tick label: 3 significant digits without an exponent in [1e-3, 1e4), SI prefixes outside.
std::string tick_text(double v) {
  if (v == 0.0) return "0";
  static constexpr std::pair<double, const char*> kPrefixes[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"},
                                                                 {1e6, "M"},  {1e3, "k"},  {1.0, ""},
                                                                 {1e-3, "m"}, {1e-6, "µ"}, {1e-9, "n"}};
  double a = std::fabs(v), scaled = v;
  const char* prefix = "";
  if (a < 1e-3 || a >= 1e4)
    for (const auto& [scale, p] : kPrefixes)
      if (a >= scale || scale == 1e-9) {
        scaled = v / scale;
        prefix = p;
        break;
      }
  a = std::fabs(scaled);
  const int decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(a))));
  std::string s = fmt::format("{:.{}f}", scaled, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s + prefix;
}

/// What a column's name says about its unit.
std::string axis_title(const std::string& column, bool log) {
  struct Suffix {
    std::string_view end, unit;
  };
  static constexpr Suffix kUnits[] = {{"_per_s_per_gpu", "per second per GPU"},
                                      {"_per_s", "per second"},
                                      {"_s", "seconds"},
                                      {"_bytes", "bytes"},
                                      {"_gbps", "Gb/s"},
                                      {"_per_million_tokens", "per million tokens"},
                                      {"_per_gpu", "per GPU"}};
  std::string unit;
  for (const Suffix& s : kUnits)
    if (column.size() > s.end.size() && column.ends_with(s.end)) {
      unit = std::string(s.unit);
      break;
    }
  if (column == "mfu" || column == "hfu" || column == "est_mfu") unit = "fraction of peak";
  std::string t = column;
  if (!unit.empty()) t += " (" + unit + ")";
  if (log) t += ", log scale";
  return t;
}

/// An axis from `lo` to `hi` (data units) onto pixels [p0, p1]; ticks and a mapping.
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double p0 = 0, p1 = 1;
  double map(double v) const {
    const double f =
        log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
    return p0 + (p1 - p0) * f;
  }
  std::vector<double> ticks() const {
    std::vector<double> t;
    if (log) {
      const bool wide = std::log10(hi / lo) > 4;  // past 4 decades, only the powers of ten
      for (double d = std::pow(10.0, std::floor(std::log10(lo))); d <= hi * 1.0001; d *= 10)
        for (const double m : {1.0, 2.0, 5.0})
          if ((m == 1.0 || !wide) && m * d >= lo * 0.9999 && m * d <= hi * 1.0001) t.push_back(m * d);
      return t;
    }
    const double step = charts::tick_step(hi - lo, 6);
    for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
      t.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
    return t;
  }
};

/// A numeric axis over `values`, padded; linear axes of positive data start at 0.
Axis numeric_axis(const std::vector<double>& values, bool log, bool from_zero) {
  Axis a;
  a.log = log;
  a.lo = *std::min_element(values.begin(), values.end());
  a.hi = *std::max_element(values.begin(), values.end());
  if (log) {
    a.lo /= 1.25;
    a.hi *= 1.25;
    return a;
  }
  if (from_zero && a.lo >= 0) a.lo = 0;
  const double span = a.hi - a.lo;
  const double pad = span > 0 ? span * 0.05 : (a.hi != 0 ? std::fabs(a.hi) * 0.1 : 1.0);
  if (!(from_zero && a.lo == 0)) a.lo -= pad;
  a.hi += pad;
  return a;
}

void check_log(const std::vector<double>& values, const std::string& column, const char* option) {
  for (const double v : values)
    if (!(v > 0))
      throw UserError(std::string(option) + ": a log scale needs positive values, and `" + column + "` has " +
                      number_text(v) + " (drop the option, or plot another column)");
}

}  // namespace sweep_plot

std::string_view name(PlotAggregate a) {
  switch (a) {
    case PlotAggregate::none: return "none";
    case PlotAggregate::min: return "min";
    case PlotAggregate::max: return "max";
    case PlotAggregate::mean: return "mean";
  }
  return "?";
}

Plot plot_sweep(const SweepFileHeader& header, const std::vector<Row>& rows, const PlotRequest& req) {
  using namespace sweep_plot;
  const SweepSchema& schema = header.schema;
  const std::size_t xi = column_index(header, req.x, "--x", req.source);
  const std::size_t yi = column_index(header, req.y, "--y", req.source);
  const std::size_t ci =
      req.color.empty() ? schema.columns.size() : column_index(header, req.color, "--color", req.source);
  if (schema.columns[yi].type == ColumnType::text)
    throw UserError("--y: `" + req.y +
                    "` is text; plot a number (step_time_s, tokens_per_s_per_gpu, mfu, ...)");
  const bool text_x = schema.columns[xi].type == ColumnType::text;
  if (text_x && req.log_x) throw UserError("--log-x: `" + req.x + "` is text, not a number");
  std::size_t status = schema.columns.size();
  for (std::size_t i = 0; i < schema.columns.size(); ++i)
    if (schema.columns[i].name == "status") status = i;

  Plot plot;
  plot.rows = rows.size();
  plot.x_column = schema.columns[xi].name;
  plot.y_column = schema.columns[yi].name;
  plot.color_column = ci < schema.columns.size() ? schema.columns[ci].name : std::string();
  const std::string &xname = plot.x_column, &yname = plot.y_column, &cname = plot.color_column;
  // Categories of text x and of the colour column, in the file's order (an axis's order), then
  // in order of appearance.
  auto order_of = [&](std::size_t col) {
    std::vector<std::string> order;
    if (col < schema.columns.size()) order = schema.columns[col].categories;
    return order;
  };
  std::vector<std::string> x_order = order_of(xi), series_order = order_of(ci);
  struct Raw {
    std::string series, x_text;
    double x, y;
    double series_value;  ///< a numeric colour column's value (for the legend's order)
  };
  std::vector<Raw> raw;
  for (const Row& r : rows) {
    if (status < schema.columns.size() && std::get<std::string>(r[status]) != "ok") {
      ++plot.not_ok;
      continue;
    }
    const double y = number_of(r[yi]);
    const double x = text_x ? 0.0 : number_of(r[xi]);
    if (!std::isfinite(y) || !std::isfinite(x) || (text_x && std::get<std::string>(r[xi]).empty())) {
      ++plot.no_value;
      continue;
    }
    const bool coloured = ci < schema.columns.size();
    raw.push_back(
        {coloured ? text_of(r[ci]) : std::string(), text_of(r[xi]), x, y, coloured ? number_of(r[ci]) : 0.0});
  }
  if (raw.empty())
    throw UserError(req.source + ": no point to plot: " + std::to_string(plot.not_ok) + " of " +
                    std::to_string(plot.rows) + " rows are not ok and " + std::to_string(plot.no_value) +
                    " have no value of `" + yname + "`");
  auto add_unique = [](std::vector<std::string>& order, const std::string& v) {
    if (std::find(order.begin(), order.end(), v) == order.end()) order.push_back(v);
  };
  // Numeric colour values sort as numbers; text keeps the axis order.
  std::vector<std::string> seen_series;
  for (const Raw& p : raw) add_unique(seen_series, p.series);
  if (ci < schema.columns.size() && schema.columns[ci].type != ColumnType::text) {
    std::map<double, std::string> sorted;
    for (const Raw& p : raw) sorted.emplace(p.series_value, p.series);
    series_order.clear();
    for (const auto& [v, s] : sorted) series_order.push_back(s);
  }
  for (const std::string& s : seen_series) add_unique(series_order, s);
  std::erase_if(series_order, [&](const std::string& s) {
    return std::find(seen_series.begin(), seen_series.end(), s) == seen_series.end();
  });
  if (text_x) {
    std::vector<std::string> used;
    for (const Raw& p : raw) add_unique(used, p.x_text);
    for (const std::string& v : used) add_unique(x_order, v);
    std::erase_if(x_order,
                  [&](const std::string& v) { return std::find(used.begin(), used.end(), v) == used.end(); });
    for (Raw& p : raw)
      p.x = static_cast<double>(std::find(x_order.begin(), x_order.end(), p.x_text) - x_order.begin());
  }
  plot.series = series_order;

  // Points per series, aggregated per x when asked.
  bool lines = true;
  for (const std::string& s : series_order) {
    std::map<double, std::vector<const Raw*>> by_x;
    for (const Raw& p : raw)
      if (p.series == s) by_x[p.x].push_back(&p);
    for (const auto& [x, group] : by_x) {
      if (req.aggregate == PlotAggregate::none) {
        if (group.size() > 1) lines = false;
        for (const Raw* p : group) plot.points.push_back({s, p->x_text, x, p->y, 1});
        continue;
      }
      double v = req.aggregate == PlotAggregate::min   ? INFINITY
                 : req.aggregate == PlotAggregate::max ? -INFINITY
                                                       : 0.0;
      for (const Raw* p : group)
        v = req.aggregate == PlotAggregate::min   ? std::min(v, p->y)
            : req.aggregate == PlotAggregate::max ? std::max(v, p->y)
                                                  : v + p->y / static_cast<double>(group.size());
      plot.points.push_back({s, group.front()->x_text, x, v, group.size()});
    }
  }

  std::vector<double> xs, ys;
  for (const PlotPoint& p : plot.points) {
    xs.push_back(p.x);
    ys.push_back(p.y);
  }
  if (req.log_x) check_log(xs, xname, "--log-x");
  if (req.log_y) check_log(ys, yname, "--log-y");
  Axis ax = text_x ? Axis{-0.5, static_cast<double>(x_order.size()) - 0.5, false, 0, 1}
                   : numeric_axis(xs, req.log_x, false);
  Axis ay = numeric_axis(ys, req.log_y, true);
  ax.p0 = kLeft;
  ax.p1 = kWidth - kRight;
  ay.p0 = kHeight - kBottom;
  ay.p1 = kTop;

  const std::string title = req.title.empty() ? yname + " vs " + xname : req.title;
  svg::Canvas c(kWidth, kHeight, "plot", title);
  c.raw(
      "<style>text{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;font-size:12px;fill:#222}"
      ".title{font-size:15px;font-weight:bold}.tick{font-size:11px;fill:#444}.axis-title{font-size:12.5px}"
      "</style>");
  c.rect(0, 0, kWidth, kHeight, "#ffffff");
  c.text(kLeft, 24, title, "start", "title");
  // Grid and ticks.
  for (const double t : ay.ticks()) {
    const double y = ay.map(t);
    c.line(kLeft, y, kWidth - kRight, y, "#e4e4e4");
    c.text(kLeft - 6, y + 4, tick_text(t), "end", "tick");
  }
  if (text_x) {
    for (std::size_t i = 0; i < x_order.size(); ++i) {
      const double x = ax.map(static_cast<double>(i));
      c.line(x, kHeight - kBottom, x, kHeight - kBottom + 4, "#555");
      c.text(x, kHeight - kBottom + 17, x_order[i], "middle", "tick");
    }
  } else {
    for (const double t : ax.ticks()) {
      const double x = ax.map(t);
      c.line(x, kTop, x, kHeight - kBottom, "#f0f0f0");
      c.line(x, kHeight - kBottom, x, kHeight - kBottom + 4, "#555");
      c.text(x, kHeight - kBottom + 17, tick_text(t), "middle", "tick");
    }
  }
  c.line(kLeft, kHeight - kBottom, kWidth - kRight, kHeight - kBottom, "#555");
  c.line(kLeft, kTop, kLeft, kHeight - kBottom, "#555");
  c.text((kLeft + kWidth - kRight) / 2, kHeight - 24, axis_title(xname, req.log_x), "middle", "axis-title");
  c.raw(
      fmt::format("<text class=\"axis-title\" text-anchor=\"middle\" transform=\"translate(22 {}) "
                  "rotate(-90)\">{}</text>",
                  svg::num((kTop + kHeight - kBottom) / 2), svg::esc(axis_title(yname, req.log_y))));
  // Series: a polyline through each (when every x has one point), then the markers.
  for (std::size_t s = 0; s < series_order.size(); ++s) {
    const std::string_view colour = kPalette[s % std::size(kPalette)];
    std::string pts;
    for (const PlotPoint& p : plot.points)
      if (p.series == series_order[s]) pts += svg::num(ax.map(p.x)) + "," + svg::num(ay.map(p.y)) + " ";
    if (lines && !pts.empty())
      c.raw(fmt::format(
          "<polyline class=\"series\" data-series=\"{}\" points=\"{}\" fill=\"none\" stroke=\"{}\" "
          "stroke-width=\"2\"/>",
          svg::esc(series_order[s]), pts, colour));
    for (const PlotPoint& p : plot.points) {
      if (p.series != series_order[s]) continue;
      std::string tip = xname + " = " + p.x_text + ", " + yname + " = " + fmt::format("{:.6g}", p.y);
      if (!cname.empty()) tip += ", " + cname + " = " + p.series;
      if (p.rows > 1) tip += fmt::format(" ({} of {} points)", name(req.aggregate), p.rows);
      c.circle(ax.map(p.x), ay.map(p.y), 4, colour, tip, "point");
    }
  }
  // Legend: the colour column's name, then a swatch per series.
  if (!cname.empty()) {
    const double lx = kWidth - kRight + 18;
    c.text(lx, kTop + 4, cname, "start", "axis-title");
    for (std::size_t s = 0; s < series_order.size() && s < 24; ++s) {
      const double y = kTop + 22 + 18.0 * static_cast<double>(s);
      c.rect(lx, y - 9, 12, 12, kPalette[s % std::size(kPalette)]);
      c.text(lx + 18, y + 1, series_order[s]);
    }
    if (series_order.size() > 24)
      c.text(lx, kTop + 22 + 18.0 * 24, "and " + std::to_string(series_order.size() - 24) + " more");
  }
  plot.caption =
      fmt::format("{} points plotted from {} rows of {}", plot.points.size(), plot.rows, req.source);
  if (req.aggregate != PlotAggregate::none) plot.caption += fmt::format(" ({} per x)", name(req.aggregate));
  if (plot.not_ok > 0)
    plot.caption += fmt::format("; {} not ok (out of memory, invalid or failed)", plot.not_ok);
  if (plot.no_value > 0) plot.caption += fmt::format("; {} without a value", plot.no_value);
  if (!lines)
    plot.caption += "; several points share an x in a series (other axes vary): markers only, or --agg";
  c.text(kLeft, kHeight - 6, plot.caption, "start", "tick");
  plot.svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + c.str();
  return plot;
}

std::string plot_html(const Plot& plot, const PlotRequest& req, const SweepFileHeader& header) {
  const std::string title = req.title.empty() ? plot.y_column + " vs " + plot.x_column : req.title;
  std::string h = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\n<style>"
      "body{{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;margin:24px;color:#222;max-width:960px}}"
      "svg{{width:100%;height:auto;border:1px solid #ddd}}table{{border-collapse:collapse;margin-top:16px}}"
      "td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right;font-size:13px}}th{{background:#f4f4f4}}"
      "</style></head><body>\n<h1 style=\"font-size:20px\">{}</h1>\n<p>sweep <b>{}</b> ({} points), file "
      "{}</p>\n",
      svg::esc(title), svg::esc(title), svg::esc(header.info.identity.sweep_name),
      header.info.identity.points, svg::esc(req.source));
  const std::string& s = plot.svg;
  h += s.substr(s.find("<svg"));
  h += fmt::format("<p id=\"caption\" data-points=\"{}\">{}</p>\n", plot.points.size(),
                   svg::esc(plot.caption));
  h += "<table id=\"plot-data\"><tr>";
  if (!plot.color_column.empty()) h += "<th>" + svg::esc(plot.color_column) + "</th>";
  h += "<th>" + svg::esc(plot.x_column) + "</th><th>" + svg::esc(plot.y_column) + "</th>";
  if (req.aggregate != PlotAggregate::none) h += "<th>points</th>";
  h += "</tr>\n";
  for (const PlotPoint& p : plot.points) {
    h += "<tr>";
    if (!plot.color_column.empty()) h += "<td>" + svg::esc(p.series) + "</td>";
    h += fmt::format("<td>{}</td><td>{:.6g}</td>", svg::esc(p.x_text), p.y);
    if (req.aggregate != PlotAggregate::none) h += fmt::format("<td>{}</td>", p.rows);
    h += "</tr>\n";
  }
  h += "</table>\n</body></html>\n";
  return h;
}

}  // namespace stepsim::out
