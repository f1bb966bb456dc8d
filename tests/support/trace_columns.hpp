// Columns of the five basic kinds for the trace layer's tests: a float, an int64, an int32,
// a string `str_bytes` wide and a three-label Enum8 (idle, busy, down), in that order.
#pragma once

#include <cstddef>
#include <vector>

#include "sim/trace/table_writer.hpp"

namespace gcsim::test {

inline std::vector<trace::Column> basic_columns(std::size_t str_bytes) {
  using trace::ColumnType;
  return {
      {"x", ColumnType::F64},
      {"id", ColumnType::I64},
      {"n", ColumnType::I32},
      {"name", ColumnType::Str, {}, str_bytes},
      {"state", ColumnType::Enum8, {"idle", "busy", "down"}},
  };
}

}  // namespace gcsim::test
