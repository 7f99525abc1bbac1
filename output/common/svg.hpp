#pragma once
// A few helpers for writing inline SVG charts by hand: escaping, fixed-precision numbers (so
// that the same figures give the same bytes), and a canvas that collects elements.

#include <string>
#include <string_view>

namespace stepsim::out::svg {

/// Escapes &, <, >, " for text and attribute values.
std::string esc(std::string_view text);
/// `v` with `decimals` digits after the point; never "-0".
std::string num(double v, int decimals = 1);

/// One <svg> element with a viewBox of `width` x `height` user units, scaled to the page width.
class Canvas {
 public:
  /// `id` becomes the element's id (the page's tests look charts up by it); `label` its aria-label.
  Canvas(double width, double height, std::string_view id, std::string_view label);

  /// A filled rectangle; `tip` (optional) becomes a <title> tooltip; `opacity` < 1 fades it.
  void rect(double x, double y, double w, double h, std::string_view fill, std::string_view tip = {},
            std::string_view cls = {}, double opacity = 1.0);
  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1.0,
            std::string_view dash = {});
  /// Text at (x, y); `anchor` is start, middle or end; `cls` a CSS class.
  void text(double x, double y, std::string_view content, std::string_view anchor = "start",
            std::string_view cls = {});
  void circle(double cx, double cy, double r, std::string_view fill, std::string_view tip = {},
              std::string_view cls = {});
  /// Anything else, already well-formed SVG.
  void raw(std::string_view markup) { body_ += markup; }

  double width() const { return w_; }
  double height() const { return h_; }
  std::string str() const;

 private:
  double w_, h_;
  std::string id_, label_, body_;
};

}  // namespace stepsim::out::svg
