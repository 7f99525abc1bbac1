#include "output/common/render_format.hpp"

#include <string>

#include "sim/error.hpp"

namespace stepsim::out {

RenderFormat parse_render_format(std::string_view text) {
  if (text == "table") return RenderFormat::table;
  if (text == "json") return RenderFormat::json;
  throw UserError(SourceLocation{}, "--format",
                  "unknown format `" + std::string(text) + "`; expected table or json");
}

}  // namespace stepsim::out
