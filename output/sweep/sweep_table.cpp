#include "output/sweep/sweep_table.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace stepsim::out {
namespace {

ColumnType column_type(scen::ValueKind k) {
  switch (k) {
    case scen::ValueKind::integer:
    case scen::ValueKind::boolean: return ColumnType::int64;
    case scen::ValueKind::real: return ColumnType::float64;
    case scen::ValueKind::text:
    case scen::ValueKind::toml: return ColumnType::text;
  }
  return ColumnType::text;
}

Cell missing(ColumnType t) {
  switch (t) {
    case ColumnType::int64: return std::int64_t{0};
    case ColumnType::float64: return std::numeric_limits<double>::quiet_NaN();
    case ColumnType::text: return std::string();
  }
  return std::string();
}

void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint64_t get_u64(std::string_view& in) {
  if (in.size() < 8) throw std::runtime_error("journal row is truncated");
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  in.remove_prefix(8);
  return v;
}

}  // namespace

std::string_view name(ColumnType t) {
  switch (t) {
    case ColumnType::int64: return "int64";
    case ColumnType::float64: return "float64";
    case ColumnType::text: return "text";
  }
  return "?";
}

std::string_view name(PointStatus s) {
  switch (s) {
    case PointStatus::ok: return "ok";
    case PointStatus::out_of_memory: return "out_of_memory";
    case PointStatus::invalid: return "invalid";
    case PointStatus::failed: return "failed";
  }
  return "?";
}

std::uint64_t SweepSchema::fingerprint() const {
  std::uint64_t h = scen::fnv1a64("stepsim sweep schema");
  for (const Column& c : columns)
    h = scen::fnv1a64(std::string(c.name) + ":" + std::string(name(c.type)) + ";", h);
  return h;
}

bool SweepSchema::operator==(const SweepSchema& o) const {
  if (columns.size() != o.columns.size() || first_result != o.first_result) return false;
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].name != o.columns[i].name || columns[i].type != o.columns[i].type) return false;
  return true;
}

SweepSchema sweep_schema(const scen::Sweep& sweep) {
  SweepSchema s;
  s.columns.push_back({"point", ColumnType::int64});
  for (std::size_t k = 0; k < sweep.keys.size(); ++k) {
    Column c{sweep.keys[k].key, column_type(sweep.keys[k].kind), {}};
    // A text axis takes the values its axes list, in their order (empty_row stores `text`).
    if (c.type == ColumnType::text)
      for (const scen::SweepAxis& axis : sweep.axes)
        for (std::size_t i = 0; i < axis.keys.size(); ++i)
          if (axis.keys[i] == k)
            for (const auto& tuple : axis.tuples)
              if (std::find(c.categories.begin(), c.categories.end(), tuple[i].text) == c.categories.end())
                c.categories.push_back(tuple[i].text);
    s.columns.push_back(std::move(c));
  }
  s.first_result = s.columns.size();
  std::vector<std::string> statuses;
  for (const PointStatus p :
       {PointStatus::ok, PointStatus::out_of_memory, PointStatus::invalid, PointStatus::failed})
    statuses.emplace_back(name(p));
  s.columns.push_back({"status", ColumnType::text, std::move(statuses)});
  s.columns.push_back({"message", ColumnType::text, {}});
  for (const ResultColumn& r : result_columns())
    s.columns.push_back(
        {r.name, r.type, r.categories != nullptr ? r.categories() : std::vector<std::string>{}});
  return s;
}

Row empty_row(const SweepSchema& schema, std::uint64_t point,
              std::span<const scen::SweepValue* const> values) {
  Row row;
  row.reserve(schema.columns.size());
  row.emplace_back(static_cast<std::int64_t>(point));
  for (std::size_t k = 0; k < values.size(); ++k) {
    const scen::SweepValue& v = *values[k];
    switch (schema.columns[1 + k].type) {
      case ColumnType::int64:
        row.emplace_back(v.kind == scen::ValueKind::boolean ? std::int64_t{v.flag} : v.integer);
        break;
      case ColumnType::float64: row.emplace_back(v.real); break;
      case ColumnType::text: row.emplace_back(v.text); break;
    }
  }
  for (std::size_t c = schema.first_result; c < schema.columns.size(); ++c)
    row.push_back(missing(schema.columns[c].type));
  return row;
}

std::string encode_row(const SweepSchema& schema, const Row& row) {
  std::string out;
  for (std::size_t c = 0; c < schema.columns.size(); ++c) {
    switch (schema.columns[c].type) {
      case ColumnType::int64: put_u64(out, static_cast<std::uint64_t>(std::get<std::int64_t>(row[c]))); break;
      case ColumnType::float64: put_u64(out, std::bit_cast<std::uint64_t>(std::get<double>(row[c]))); break;
      case ColumnType::text: {
        const std::string& s = std::get<std::string>(row[c]);
        put_u64(out, s.size());
        out += s;
        break;
      }
    }
  }
  return out;
}

Row decode_row(const SweepSchema& schema, std::string_view in) {
  Row row;
  row.reserve(schema.columns.size());
  for (const Column& c : schema.columns) {
    switch (c.type) {
      case ColumnType::int64: row.emplace_back(static_cast<std::int64_t>(get_u64(in))); break;
      case ColumnType::float64: row.emplace_back(std::bit_cast<double>(get_u64(in))); break;
      case ColumnType::text: {
        const std::uint64_t n = get_u64(in);
        if (n > in.size()) throw std::runtime_error("journal row is truncated");
        row.emplace_back(std::string(in.substr(0, n)));
        in.remove_prefix(n);
        break;
      }
    }
  }
  if (!in.empty()) throw std::runtime_error("journal row has trailing bytes");
  return row;
}

std::string number_text(double v) {
  if (std::isnan(v)) return {};
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace stepsim::out
