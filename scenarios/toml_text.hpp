#pragma once
// Text for the TOML files stepsim writes (`stepsim import`): strings and comment lines that any
// input, however hostile, cannot break out of.

#include <cstdio>
#include <string>
#include <string_view>

namespace stepsim::scen {

/// A TOML basic string: quotes, backslashes and control characters escaped.
inline std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// One comment line: control characters (a newline would end the comment) become spaces.
inline std::string toml_comment(std::string_view s) {
  std::string out = "# ";
  for (char c : s) out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
  return out + "\n";
}

}  // namespace stepsim::scen
