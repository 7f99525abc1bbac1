#include <catch2/catch.hpp>

#include "output/common/render_format.hpp"
#include "output/common/text_table.hpp"
#include "sim/error.hpp"

using namespace stepsim::out;

TEST_CASE("TextTable aligns labels left and numbers right") {
  TextTable t({"id", "value"});
  t.add_row({"a", "1"});
  t.add_row({"long-id", "1,234"});
  // widths: id column 7 ("long-id"), value column 5 ("1,234" and "value")
  CHECK(t.render() ==
        "id       value\n"
        "--------------\n"
        "a            1\n"
        "long-id  1,234\n");
  CHECK_THROWS_AS(t.add_row({"a", "b", "c"}), std::invalid_argument);
}

TEST_CASE("render formats parse and reject unknown names") {
  CHECK(parse_render_format("json") == RenderFormat::json);
  CHECK(parse_render_format("table") == RenderFormat::table);
  CHECK_THROWS_AS(parse_render_format("yaml"), stepsim::UserError);
}
