// Reading one row of a CSV catalog table, cell by cell, for the instance catalog's reader
// (instance_catalog.cpp) and the catalog importers (models/importers/): every failure names
// its file, line, column and header name, and never quotes the cell (a catalog a scenario
// names may be any file: sim/errors.hpp, hide_text).
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <string_view>

#include "models/pricing/csv.hpp"
#include "sim/errors.hpp"
#include "sim/units.hpp"

namespace gcsim::models {

namespace catalog_csv {

// Reads one catalog row's cells; every failure names the cell.
class RowReader {
 public:
  RowReader(const csv::Row& row, const std::map<std::string, std::size_t>& index, const std::string& label)
      : row_(row), index_(index), label_(label) {}

  // The cell's text ("" when the column is absent or the row short).
  const std::string& text(const std::string& column) const {
    static const std::string empty;
    const auto it = index_.find(column);
    if (it == index_.end() || it->second >= row_.fields.size()) return empty;
    return row_.fields[it->second].text;
  }
  int column_of(const std::string& column) const {
    const auto it = index_.find(column);
    if (it == index_.end() || it->second >= row_.fields.size()) return 1;
    return row_.fields[it->second].column;
  }
  // The cell's text is never quoted: a catalog named by a scenario may be any file.
  [[noreturn]] void fail(ErrorCode code, const std::string& column, const std::string& detail) const {
    csv::fail(code, label_, row_.line, column_of(column), column, hide_text(detail, text(column)));
  }
  std::string required_text(const std::string& column) const {
    const std::string& t = text(column);
    if (t.empty()) fail(ErrorCode::MissingKey, column, "empty " + column);
    return t;
  }
  template <class F>
  double quantity(const std::string& column, F parse, const char* example) const {
    const std::string& t = text(column);
    if (t.empty()) return 0;
    double v = 0;
    try {
      v = parse(t);
    } catch (const units::UnitError& e) {
      fail(e.kind() == units::UnitError::Kind::NotANumber ? ErrorCode::WrongType
           : e.kind() == units::UnitError::Kind::OutOfRange ? ErrorCode::OutOfRange
                                                            : ErrorCode::BadUnit,
           column, std::string(e.what()) + " (e.g. " + example + ")");
    }
    if (v < 0) fail(ErrorCode::OutOfRange, column, "'" + t + "' must not be negative");
    return v;
  }
  int integer(const std::string& column, int min, int max) const {
    const std::string& t = text(column);
    if (t.empty()) {
      if (min > 0) fail(ErrorCode::MissingKey, column, "empty " + column);
      return 0;
    }
    double v = 0;
    try {
      v = units::parse_number(t);
    } catch (const units::UnitError&) {
      fail(ErrorCode::WrongType, column, "expected an integer, got '" + t + "'");
    }
    if (v != std::floor(v)) fail(ErrorCode::WrongType, column, "expected an integer, got '" + t + "'");
    if (v < min || v > max)
      fail(ErrorCode::OutOfRange, column,
           "'" + t + "' is out of range: must be between " + std::to_string(min) + " and " + std::to_string(max));
    return static_cast<int>(v);
  }

 private:
  const csv::Row& row_;
  const std::map<std::string, std::size_t>& index_;
  const std::string& label_;
};

}  // namespace catalog_csv

// A plain number of at most `max`, else units::UnitError (OutOfRange).
double catalog_bounded_number(std::string_view text, double max);

}  // namespace gcsim::models
