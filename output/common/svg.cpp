#include "output/common/svg.hpp"

#include <fmt/format.h>

#include <cmath>

namespace stepsim::out::svg {

std::string esc(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string num(double v, int decimals) {
  if (!std::isfinite(v)) return "0";
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s.find_first_not_of("-0.") == std::string::npos && s.front() == '-') s.erase(0, 1);
  return s;
}

Canvas::Canvas(double width, double height, std::string_view id, std::string_view label)
    : w_(width), h_(height), id_(id), label_(label) {}

void Canvas::rect(double x, double y, double w, double h, std::string_view fill, std::string_view tip,
                  std::string_view cls, double opacity) {
  body_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"", num(x), num(y),
                       num(w), num(h), fill);
  if (opacity < 1.0) body_ += fmt::format(" fill-opacity=\"{}\"", num(opacity, 2));
  if (!cls.empty()) body_ += fmt::format(" class=\"{}\"", cls);
  body_ += tip.empty() ? "/>" : fmt::format("><title>{}</title></rect>", esc(tip));
}

void Canvas::line(double x1, double y1, double x2, double y2, std::string_view stroke, double width,
                  std::string_view dash) {
  body_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"",
                       num(x1), num(y1), num(x2), num(y2), stroke, num(width, 2));
  if (!dash.empty()) body_ += fmt::format(" stroke-dasharray=\"{}\"", dash);
  body_ += "/>";
}

void Canvas::text(double x, double y, std::string_view content, std::string_view anchor,
                  std::string_view cls) {
  body_ += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\"", num(x), num(y), anchor);
  if (!cls.empty()) body_ += fmt::format(" class=\"{}\"", cls);
  body_ += fmt::format(">{}</text>", esc(content));
}

void Canvas::circle(double cx, double cy, double r, std::string_view fill, std::string_view tip,
                    std::string_view cls) {
  body_ += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"", num(cx), num(cy), num(r), fill);
  if (!cls.empty()) body_ += fmt::format(" class=\"{}\"", cls);
  body_ += tip.empty() ? "/>" : fmt::format("><title>{}</title></circle>", esc(tip));
}

std::string Canvas::str() const {
  return fmt::format(
      "<svg id=\"{}\" class=\"chart\" role=\"img\" aria-label=\"{}\" viewBox=\"0 0 {} {}\" "
      "xmlns=\"http://www.w3.org/2000/svg\">{}</svg>\n",
      esc(id_), esc(label_), num(w_, 0), num(h_, 0), body_);
}

}  // namespace stepsim::out::svg
