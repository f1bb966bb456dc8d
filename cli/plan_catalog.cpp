// gcsim plan's provider attributes and reserved terms (see plan_catalog.hpp).
#include "cli/plan_catalog.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <sstream>
#include <utility>

#include "sim/config/csv.hpp"
#include "sim/config/regular_file.hpp"
#include "sim/errors.hpp"
#include "sim/units.hpp"

namespace gcsim::cli {

namespace csv = config::csv;

namespace {

constexpr std::uint64_t MAX_TABLE_BYTES = 1 << 20;

// The rows after the header, which must be `header` exactly.
std::vector<csv::Row> rows_of(const std::string& path, const std::vector<std::string_view>& header) {
  const std::string text = config::read_regular_file(path, MAX_TABLE_BYTES, "plan table");
  std::istringstream in(text);
  csv::Reader reader(in, path, true);
  csv::Row row;
  if (!reader.next(row)) throw ConfigError(ErrorCode::EmptyFile, {path, 1, 1}, "", "no header row");
  bool same = row.fields.size() == header.size();
  for (std::size_t i = 0; same && i < header.size(); ++i) same = row.fields[i].text == header[i];
  if (!same) {
    std::string want;
    for (const std::string_view h : header) want += (want.empty() ? "" : ",") + std::string(h);
    csv::fail(ErrorCode::Syntax, path, row.line, 1, "header", "the header must be " + want);
  }
  std::vector<csv::Row> rows;
  while (reader.next(row)) {
    if (row.fields.size() != header.size())
      csv::fail(ErrorCode::Syntax, path, row.line, 1, "row",
                std::to_string(row.fields.size()) + " fields where the header has " + std::to_string(header.size()));
    for (std::size_t i = 0; i < header.size(); ++i)
      if (row.fields[i].text.empty())
        csv::fail(ErrorCode::MissingKey, path, row.line, row.fields[i].column, header[i], "empty (write unknown if not known)");
    rows.push_back(row);
  }
  return rows;
}

double number_at(const std::string& path, const csv::Row& row, std::size_t i, std::string_view column) {
  const std::string& t = row.fields[i].text;
  double v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || !std::isfinite(v) || v < 0)
    csv::fail(ErrorCode::WrongType, path, row.line, row.fields[i].column, column, "'" + t + "' is not a number >= 0");
  return v;
}

}  // namespace

std::vector<ProviderAttribute> read_provider_attributes(const std::string& path) {
  std::vector<ProviderAttribute> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (const csv::Row& row : rows_of(path, {"provider", "attribute", "value", "source"})) {
    ProviderAttribute a{row.fields[0].text, row.fields[1].text, row.fields[2].text, row.fields[3].text};
    if (std::find(std::begin(PROVIDER_ATTRIBUTES), std::end(PROVIDER_ATTRIBUTES), a.attribute) == std::end(PROVIDER_ATTRIBUTES)) {
      std::vector<std::string> names(std::begin(PROVIDER_ATTRIBUTES), std::end(PROVIDER_ATTRIBUTES));
      const std::string dym = did_you_mean(a.attribute, names);
      csv::fail(ErrorCode::UnknownName, path, row.line, row.fields[1].column, "attribute",
                "unknown attribute '" + a.attribute + "'" + (dym.empty() ? "" : "; did you mean '" + dym + "'?"));
    }
    if (a.attribute == "spot_rate_per_h" && a.value != "unknown" && a.provider != "aws") number_at(path, row, 2, "value");
    if (!seen.insert({a.provider, a.attribute}).second)
      csv::fail(ErrorCode::Duplicate, path, row.line, 1, "provider", a.provider + " " + a.attribute + " twice");
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<ReservedTermsRow> read_reserved_terms(const std::string& path) {
  std::vector<ReservedTermsRow> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (const csv::Row& row :
       rows_of(path, {"provider", "instance_type", "term", "upfront", "upfront_usd", "per_hour", "snapshot", "source"})) {
    ReservedTermsRow r;
    r.provider = row.fields[0].text;
    r.instance_type = row.fields[1].text;
    r.term = row.fields[2].text;
    try {
      if (units::parse_duration_ns(r.term) <= 0) throw Error("");
    } catch (const std::exception&) {
      csv::fail(ErrorCode::BadUnit, path, row.line, row.fields[2].column, "term", "'" + r.term + "' is not a duration > 0 (1y, 3y)");
    }
    r.upfront = row.fields[3].text;
    if (r.upfront != "none" && r.upfront != "partial" && r.upfront != "all")
      csv::fail(ErrorCode::UnknownName, path, row.line, row.fields[3].column, "upfront", "'" + r.upfront + "': none, partial or all");
    r.upfront_usd = number_at(path, row, 4, "upfront_usd");
    r.per_hour = number_at(path, row, 5, "per_hour");
    r.source = row.fields[7].text;
    if (!seen.insert({r.provider, r.instance_type}).second)
      csv::fail(ErrorCode::Duplicate, path, row.line, 1, "provider", r.provider + "/" + r.instance_type + " twice");
    out.push_back(std::move(r));
  }
  return out;
}

const ProviderAttribute* find_attribute(const std::vector<ProviderAttribute>& all, std::string_view provider,
                                        std::string_view attribute) {
  for (const ProviderAttribute& a : all)
    if (a.provider == provider && a.attribute == attribute) return &a;
  return nullptr;
}

}  // namespace gcsim::cli
