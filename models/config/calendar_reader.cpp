// `days` and `hours` (see calendar_reader.hpp).
#include "models/config/calendar_reader.hpp"

#include <array>
#include <cctype>
#include <string>
#include <vector>

#include "sim/errors.hpp"

namespace gcsim::models {

namespace {

constexpr std::array<std::string_view, 7> SHORT = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};
constexpr std::array<std::string_view, 7> LONG = {"monday", "tuesday", "wednesday", "thursday",
                                                  "friday", "saturday", "sunday"};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The day `word` names (0 = Monday), or -1.
int day_index(const std::string& word) {
  for (int d = 0; d < 7; ++d)
    if (word == SHORT[static_cast<std::size_t>(d)] || word == LONG[static_cast<std::size_t>(d)]) return d;
  return -1;
}

std::vector<std::string> day_words() {
  std::vector<std::string> words{"weekdays", "weekend", "daily"};
  for (int d = 0; d < 7; ++d) {
    words.emplace_back(SHORT[static_cast<std::size_t>(d)]);
    words.emplace_back(LONG[static_cast<std::size_t>(d)]);
  }
  return words;
}

[[noreturn]] void unknown_day(const config::ConfigNode& n, const std::string& word) {
  const std::string near = did_you_mean(word, day_words());
  n.fail(ErrorCode::UnknownName, "unknown day '" + word + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?") +
                                     " (mon..sun or monday..sunday, a range mon-fri, weekdays, weekend, daily)");
}

// One entry of `days`, setting its days in `on` (a day already set is duplicate).
void read_day_entry(const config::ConfigNode& n, std::array<bool, 7>& on) {
  const std::string text = lower(config::read_string(n));
  std::vector<int> days;
  if (text == "weekdays") {
    days = {0, 1, 2, 3, 4};
  } else if (text == "weekend") {
    days = {5, 6};
  } else if (text == "daily") {
    days = {0, 1, 2, 3, 4, 5, 6};
  } else if (const std::size_t dash = text.find('-'); dash != std::string::npos) {
    const std::string a = text.substr(0, dash), b = text.substr(dash + 1);
    const int from = day_index(a), to = day_index(b);
    if (from < 0) unknown_day(n, a);
    if (to < 0) unknown_day(n, b);
    for (int d = from;; d = (d + 1) % 7) {
      days.push_back(d);
      if (d == to) break;
    }
  } else {
    const int d = day_index(text);
    if (d < 0) unknown_day(n, text);
    days = {d};
  }
  for (const int d : days) {
    if (on[static_cast<std::size_t>(d)])
      n.fail(ErrorCode::Duplicate, std::string(LONG[static_cast<std::size_t>(d)]) + " is listed twice in `days`");
    on[static_cast<std::size_t>(d)] = true;
  }
}

// "HH" or "HH:MM" as minutes of the day, 0..1440.
int read_clock(const config::ConfigNode& n, const std::string& text, const std::string& part) {
  const auto bad = [&] {
    n.fail(ErrorCode::WrongType, "hours are written HH:MM-HH:MM (09:00-18:00), not '" + text + "'");
  };
  const std::size_t colon = part.find(':');
  const std::string h = part.substr(0, colon);
  const std::string m = colon == std::string::npos ? "00" : part.substr(colon + 1);
  const auto digits = [](const std::string& s) {
    if (s.empty() || s.size() > 2) return false;
    for (const char c : s)
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
  };
  if (!digits(h) || !digits(m) || (colon != std::string::npos && m.size() != 2)) bad();
  const int hh = std::stoi(h), mm = std::stoi(m);
  if (mm > 59) n.fail(ErrorCode::OutOfRange, "minutes run 00..59 in '" + text + "'");
  if (hh * 60 + mm > 24 * 60) n.fail(ErrorCode::OutOfRange, "a time of day runs 00:00..24:00, not '" + part + "'");
  return hh * 60 + mm;
}

}  // namespace

namespace {

std::array<bool, 7> read_days(config::MapReader& map) {
  std::array<bool, 7> on{};
  if (const config::ConfigNode* days = map.optional("days")) {
    if (days->is_sequence()) {
      if (days->size() == 0) days->fail(ErrorCode::OutOfRange, "`days` lists at least one day");
      for (const config::ConfigNode& item : days->items()) read_day_entry(item, on);
    } else {
      read_day_entry(*days, on);
    }
  } else {
    on.fill(true);
  }
  return on;
}

// The days' windows from from_min to to_min (minutes of the day); an end at or before the
// start is the next day's (22:00-06:00; 00:00-00:00 a whole day).
sim::WeekCalendar build_calendar(const std::array<bool, 7>& on, int from_min, int to_min) {
  const int length_min = to_min > from_min ? to_min - from_min : to_min + 24 * 60 - from_min;
  sim::WeekCalendar calendar;
  const std::int64_t minute_ns = 60 * sim::NS_PER_S;
  for (int d = 0; d < 7; ++d) {
    if (!on[static_cast<std::size_t>(d)]) continue;
    const std::int64_t start = d * sim::DAY_NS + from_min * minute_ns;
    calendar.add(start, start + length_min * minute_ns);
  }
  return calendar;
}

}  // namespace

sim::WeekCalendar read_week_window(config::MapReader& map) {
  const std::array<bool, 7> on = read_days(map);
  int from_min = 0, to_min = 24 * 60;
  for (const char* key : {"from", "to"}) {
    const config::ConfigNode* n = map.optional(key);
    if (!n) continue;
    const std::string text = config::read_string(*n);
    std::string squeezed;
    for (const char c : text)
      if (c != ' ') squeezed += c;
    const int m = read_clock(*n, text, squeezed);
    if (key[0] == 'f') {
      if (m == 24 * 60) n->fail(ErrorCode::OutOfRange, "a window starts before 24:00, not at it");
      from_min = m;
    } else {
      to_min = m;
    }
  }
  return build_calendar(on, from_min, to_min);
}

sim::WeekCalendar read_week_calendar(config::MapReader& map) {
  const std::array<bool, 7> on = read_days(map);
  int from_min = 0, to_min = 24 * 60;
  if (const config::ConfigNode* hours = map.optional("hours")) {
    std::string text = config::read_string(*hours);
    std::string squeezed;
    for (const char c : text)
      if (c != ' ') squeezed += c;
    const std::size_t dash = squeezed.find('-');
    if (dash == std::string::npos)
      hours->fail(ErrorCode::WrongType, "hours are written HH:MM-HH:MM (09:00-18:00), not '" + text + "'");
    from_min = read_clock(*hours, text, squeezed.substr(0, dash));
    to_min = read_clock(*hours, text, squeezed.substr(dash + 1));
    if (from_min == 24 * 60) hours->fail(ErrorCode::OutOfRange, "a window starts before 24:00, not at it");
  }
  return build_calendar(on, from_min, to_min);
}

}  // namespace gcsim::models
