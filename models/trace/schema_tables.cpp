// Schema tables as trace-file tables (see schema_tables.hpp).
#include "models/trace/schema_tables.hpp"

#include <string>

namespace gcsim::models {

namespace {
trace::ColumnType column_type(trace::schema::Type t) {
  using trace::schema::Type;
  switch (t) {
    case Type::F64: return trace::ColumnType::F64;
    case Type::I64: return trace::ColumnType::I64;
    case Type::I32: return trace::ColumnType::I32;
    case Type::Str: return trace::ColumnType::Str;
    case Type::Enum8: return trace::ColumnType::Enum8;
    case Type::Code: return trace::ColumnType::Enum;
  }
  return trace::ColumnType::F64;  // unreachable: every Type is listed
}
}  // namespace

std::vector<trace::Column> trace_columns(const trace::schema::Table& table) {
  std::vector<trace::Column> out;
  out.reserve(table.columns.size());
  for (const trace::schema::Column& c : table.columns) {
    std::vector<std::string> labels(c.labels.begin(), c.labels.end());
    if (c.type == trace::schema::Type::Code) labels.emplace_back(trace::schema::NONE_LABEL);  // the writer adds the names
    out.push_back({std::string(c.name), column_type(c.type), std::move(labels), c.str_bytes});
  }
  return out;
}

trace::Table& add_table(trace::TraceFile& file, const trace::schema::Table& table, std::size_t chunk_rows) {
  return file.add_table(std::string(table.name), trace_columns(table), chunk_rows);
}

trace::BlockedRows add_blocked_table(trace::TraceFile& file, const trace::schema::Table& table, std::size_t chunk_rows,
                                     std::size_t block_rows) {
  std::vector<trace::Column> columns = trace_columns(table);
  trace::Table& t = file.add_table(std::string(table.name), columns, chunk_rows);
  return trace::BlockedRows(t, columns, block_rows);
}

}  // namespace gcsim::models
