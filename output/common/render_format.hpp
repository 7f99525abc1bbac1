#pragma once
// How a command renders its result: aligned text for people, JSON for programs.

#include <cstdint>
#include <string_view>

namespace stepsim::out {

enum class RenderFormat : std::uint8_t { table, json };

/// "table" or "json"; anything else is a UserError naming the choices.
RenderFormat parse_render_format(std::string_view text);

}  // namespace stepsim::out
