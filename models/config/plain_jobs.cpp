// The fast path of written-out jobs (see plain_jobs.hpp).
#include "models/config/plain_jobs.hpp"

#include <charconv>
#include <cmath>

#include "sim/config/names.hpp"
#include "sim/units.hpp"

namespace gcsim::models::detail {

std::int16_t TeamNames::add(std::string_view team) {
  if (team.empty()) return -1;
  int at = last_;
  if (at < 0 || names_[static_cast<std::size_t>(at)] != team) {
    at = -1;
    if (names_.size() <= FEW) {
      // A few teams (the usual case): a look at each is quicker than hashing the name.
      for (std::size_t i = 0; i < names_.size() && at < 0; ++i)
        if (names_[i] == team) at = static_cast<int>(i);
    } else if (const auto it = index_.find(team); it != index_.end()) {
      at = it->second;
    }
    if (at < 0) {
      at = static_cast<int>(names_.size());
      names_.emplace_back(team);
      if (names_.size() > FEW) {
        if (index_.empty())
          for (std::size_t i = 0; i < names_.size(); ++i) index_.emplace(names_[i], static_cast<int>(i));
        else
          index_.emplace(names_.back(), at);
      }
    }
    last_ = at;
  }
  return at < 32000 ? static_cast<std::int16_t>(at) : std::int16_t{-1};
}

namespace {

// A name as config::read_name accepts it.
bool plain_name(std::string_view s) {
  if (s.empty() || s.size() > config::MAX_NAME_BYTES) return false;
  for (const char c : s)
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return false;
  return true;
}

// Nanoseconds of a one-letter duration unit (units.cpp's table), 0 for another letter.
constexpr std::int64_t NS_PER_S = 1'000'000'000;
std::int64_t letter_unit_ns(char c) {
  switch (c) {
    case 's': return NS_PER_S;
    case 'm': return 60 * NS_PER_S;
    case 'h': return 3'600 * NS_PER_S;
    case 'd': return 86'400 * NS_PER_S;
    case 'w': return 604'800 * NS_PER_S;
    case 'y': return 365 * 86'400 * NS_PER_S;
    default: return 0;
  }
}

// A duration of one part, digits (with a fraction or not) and a one-letter unit (`2h`,
// `1048.697s`), read to the nanoseconds units::parse_duration_ns gives it, by its
// arithmetic: an integer exact in int64, a fraction as the double from_chars reads
// times the unit's nanoseconds, rounded. False for any other text (a sign, a space, an
// exponent, two letters, several parts) and for a value beyond int64: the general parser
// reads it, or refuses it with its error.
bool letter_duration(std::string_view text, std::int64_t& ns) {
  if (text.size() < 2 || text.size() > 24) return false;
  const std::int64_t unit_ns = letter_unit_ns(text.back());
  if (unit_ns == 0) return false;
  const std::string_view number = text.substr(0, text.size() - 1);
  std::size_t dot = std::string_view::npos;
  std::uint64_t count = 0;  // used only without a fraction, of at most 18 digits (unsigned: no overflow before)
  for (std::size_t i = 0; i < number.size(); ++i) {
    const char c = number[i];
    if (c >= '0' && c <= '9') {
      count = count * 10 + static_cast<std::uint64_t>(c - '0');
    } else if (c == '.' && dot == std::string_view::npos && i > 0 && i + 1 < number.size()) {
      dot = i;
    } else {
      return false;
    }
  }
  if (dot == std::string_view::npos)
    return number.size() <= 18 && !__builtin_mul_overflow(static_cast<std::int64_t>(count), unit_ns, &ns);
  double value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size()) return false;
  const double scaled = std::round(value * static_cast<double>(unit_ns));
  if (!(scaled < 9223372036854775808.0)) return false;  // 2^63: beyond int64
  ns = static_cast<std::int64_t>(scaled);
  return true;
}

// `gpus` as config::read_int reads plain digits, in JOB_KEYS' range 1..2^20.
bool plain_gpus(std::string_view text, std::int32_t& out) {
  if (text.empty() || text.size() > 7) return false;
  std::int32_t n = 0;
  for (const char ch : text) {
    if (ch < '0' || ch > '9') return false;
    n = n * 10 + (ch - '0');
  }
  if (n < 1 || n > (1 << 20)) return false;
  out = n;
  return true;
}

// The plain values of one job (null: not given, the key's default), each unquoted text.
struct PlainText {
  const std::string_view* name = nullptr;
  const std::string_view* submit = nullptr;
  const std::string_view* gpus = nullptr;
  const std::string_view* duration = nullptr;
  const std::string_view* team = nullptr;
};

// The one reading of a plain job, for both sources: read_job's parsers, bounds and defaults.
bool read_plain_text(const PlainText& t, std::size_t index, JobSpec& j, TeamNames& teams) {
  if (t.name) {
    if (!plain_name(*t.name)) return false;
    j.name.assign(t.name->data(), t.name->size());
  } else {
    j.name = "job-" + std::to_string(index);
  }
  if (t.submit && !plain_duration(*t.submit, 0, j.submit)) return false;  // JOB_KEYS: submit >= 0
  if (t.gpus == nullptr || !plain_gpus(*t.gpus, j.gpus)) return false;    // JOB_KEYS: gpus required
  if (t.team && !plain_name(*t.team)) return false;
  sim::SimTime length;
  if (t.duration == nullptr || !plain_duration(*t.duration, 1, length)) return false;  // JOB_KEYS: duration >= 1 ns
  j.duration = length;
  j.team = teams.add(t.team ? *t.team : std::string_view());
  return true;
}

}  // namespace

bool plain_duration(std::string_view text, std::int64_t min_ns, sim::SimTime& out) {
  std::int64_t ns = 0;
  if (!letter_duration(text, ns)) {
    try {
      ns = units::parse_duration_ns(text);
    } catch (const units::UnitError&) {
      return false;
    }
  }
  if (ns < min_ns) return false;
  out = sim::SimTime::from_ns(ns);
  return true;
}

PlainColumns plain_columns(const config::CsvTable& t) {
  PlainColumns c{t.column("name"), t.column("submit"), t.column("gpus"), t.column("duration"), t.column("team")};
  std::size_t found = 0;
  for (const std::size_t col : {c.name, c.submit, c.gpus, c.duration, c.team}) found += col != config::CsvTable::npos;
  c.usable = found == t.width() && c.gpus != config::CsvTable::npos && c.duration != config::CsvTable::npos;
  return c;
}

bool read_plain_job(const config::csv::Row& row, std::size_t index, const PlainColumns& c, JobSpec& j,
                    TeamNames& teams) {
  for (const config::csv::Field& f : row.fields)
    if (f.quoted) return false;
  // A cell left empty is not given (the key's default applies, as CsvTable::node leaves the key out).
  std::string_view text[5];
  const std::size_t columns[5] = {c.name, c.submit, c.gpus, c.duration, c.team};
  const std::string_view* given[5] = {};
  for (int k = 0; k < 5; ++k) {
    if (columns[k] >= row.fields.size() || row.fields[columns[k]].text.empty()) continue;
    text[k] = row.fields[columns[k]].text;
    given[k] = &text[k];
  }
  return read_plain_text(PlainText{given[0], given[1], given[2], given[3], given[4]}, index, j, teams);
}

bool read_plain_job(const config::ConfigNode& n, std::size_t index, JobSpec& j, TeamNames& teams) {
  if (!n.is_map()) return false;
  const auto entries = n.entries();
  if (entries.size() > 5) return false;
  std::string_view text[5];
  const std::string_view* given[5] = {};
  for (const config::ConfigNode::Entry& e : entries) {
    const std::string_view key = e.first;
    const config::ConfigNode& value = e.second;
    int k = -1;
    switch (key.size()) {
      case 4:
        if (key == "name") k = 0;
        else if (key == "gpus") k = 2;
        else if (key == "team") k = 4;
        break;
      case 6:
        if (key == "submit") k = 1;
        break;
      case 8:
        if (key == "duration") k = 3;
        break;
      default: break;
    }
    // Another key, a null (the default, or a missing gpus or duration) or a list or map
    // (wrong-type): read_job's to read or report. A quoted number is text (wrong-type); a
    // quoted name is a name.
    if (k < 0 || !value.is_scalar() || given[k] != nullptr) return false;
    if (value.quoted() && k != 0 && k != 4) return false;
    text[k] = value.scalar();
    given[k] = &text[k];
  }
  return read_plain_text(PlainText{given[0], given[1], given[2], given[3], given[4]}, index, j, teams);
}

}  // namespace gcsim::models::detail
