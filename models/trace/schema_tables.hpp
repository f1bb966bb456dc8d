// The schema's tables (schema.hpp) as tables of a trace file: every trace table is made
// here, so its columns are the schema's by construction.
#pragma once

#include <cstddef>
#include <vector>

#include "models/trace/schema.hpp"
#include "sim/trace/table_writer.hpp"

namespace gcsim::models {

// The table's columns as the trace file takes them (names, types, enum labels).
std::vector<trace::Column> trace_columns(const trace::schema::Table& table);

// TraceFile::add_table with the schema's name and columns.
trace::Table& add_table(trace::TraceFile& file, const trace::schema::Table& table, std::size_t chunk_rows = 8192);
// The table added as add_table does, written through a BlockedRows of `block_rows` rows.
trace::BlockedRows add_blocked_table(trace::TraceFile& file, const trace::schema::Table& table, std::size_t chunk_rows,
                                     std::size_t block_rows = 4096);

}  // namespace gcsim::models
