// A sweep's results (see sweep_report.hpp).
#include "analysis/sweep_report.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

#include "analysis/report.hpp"
#include "analysis/strategy_comparison.hpp"
#include "sim/errors.hpp"
#include "sim/trace/trace_reader.hpp"

namespace gcsim::analysis {

namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

std::string pad(std::string s, std::size_t width) {
  // Width in characters, "±" counting once.
  std::size_t shown = 0;
  for (const unsigned char c : s) shown += (c & 0xC0) != 0x80 ? 1 : 0;
  if (shown < width) s.append(width - shown, ' ');
  return s;
}

}  // namespace

bool is_sweep_results(const std::string& path) {
  try {
    const auto reader = trace::TraceReader::open(path);
    return reader->has_attribute(SWEEP_FILE_KIND_ATTRIBUTE) &&
           reader->attribute_string(SWEEP_FILE_KIND_ATTRIBUTE) == "sweep";
  } catch (const Error&) {
    return false;
  }
}

SweepTable read_sweep_table(const std::string& path) {
  const auto reader = trace::TraceReader::open(path);
  if (!reader->has_attribute(SWEEP_FILE_KIND_ATTRIBUTE) || reader->attribute_string(SWEEP_FILE_KIND_ATTRIBUTE) != "sweep")
    throw Error("'" + path + "' is not the results of gcsim sweep");
  SweepTable t;
  t.sweep_file = reader->attribute_string("sweep_file");
  t.replications = reader->attribute_int("replications");
  t.keys = split_lines(reader->attribute_string("varied_keys"));
  t.metrics = split_lines(reader->attribute_string("metrics"));
  std::vector<std::string> columns{"runs_ok"};
  for (const std::string& k : t.keys) columns.push_back(k);
  for (const std::string& m : t.metrics)
    for (const char* suffix : {"_mean", "_sd", "_ci95"}) columns.push_back(m + suffix);
  const trace::Columns c = reader->read_columns("points", columns);
  const std::size_t n = c.ints.at("runs_ok").size();
  t.points.resize(n);
  for (std::size_t p = 0; p < n; ++p) {
    SweepTable::Point& point = t.points[p];
    point.runs_ok = c.ints.at("runs_ok")[p];
    for (const std::string& k : t.keys) point.values.push_back(c.str.at(k)[p]);
    for (const std::string& m : t.metrics) {
      point.mean.push_back(c.f64.at(m + "_mean")[p]);
      point.sd.push_back(c.f64.at(m + "_sd")[p]);
      point.ci95.push_back(c.f64.at(m + "_ci95")[p]);
    }
  }
  return t;
}

std::vector<MainEffect> main_effects(const SweepTable& table) {
  std::vector<MainEffect> out;
  for (std::size_t k = 0; k < table.keys.size(); ++k) {
    MainEffect e;
    e.key = table.keys[k];
    for (const auto& p : table.points)
      if (std::find(e.values.begin(), e.values.end(), p.values[k]) == e.values.end()) e.values.push_back(p.values[k]);
    e.means.assign(table.metrics.size(), std::vector<double>(e.values.size(), NaN));
    e.range.assign(table.metrics.size(), NaN);
    for (std::size_t m = 0; m < table.metrics.size(); ++m) {
      double lo = NaN, hi = NaN;
      for (std::size_t v = 0; v < e.values.size(); ++v) {
        double sum = 0;
        std::size_t n = 0;
        for (const auto& p : table.points)
          if (p.values[k] == e.values[v] && !std::isnan(p.mean[m])) {
            sum += p.mean[m];
            ++n;
          }
        if (n == 0) continue;
        const double mean = sum / static_cast<double>(n);
        e.means[m][v] = mean;
        lo = std::isnan(lo) ? mean : std::min(lo, mean);
        hi = std::isnan(hi) ? mean : std::max(hi, mean);
      }
      if (e.values.size() >= 2) e.range[m] = hi - lo;
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::string format_sweep_table(const SweepTable& table) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header{"point"};
  for (const std::string& k : table.keys) header.push_back(k);
  for (const std::string& m : table.metrics) header.push_back(m);
  if (table.replications > 1) header.push_back("runs");
  rows.push_back(header);
  for (std::size_t p = 0; p < table.points.size(); ++p) {
    const auto& point = table.points[p];
    std::vector<std::string> row{std::to_string(p)};
    for (const std::string& v : point.values) row.push_back(v);
    for (std::size_t m = 0; m < table.metrics.size(); ++m) {
      const FigureUnit unit = figure_unit(table.metrics[m]);
      std::string cell = std::isnan(point.mean[m]) ? "n/a" : format_figure(unit, point.mean[m], table.replications > 1);
      if (table.replications > 1 && !std::isnan(point.mean[m]))
        cell += " ± " + (std::isnan(point.ci95[m]) ? std::string("n/a") : format_figure(unit, point.ci95[m], true));
      row.push_back(cell);
    }
    if (table.replications > 1) row.push_back(std::to_string(point.runs_ok));
    rows.push_back(std::move(row));
  }
  std::vector<std::size_t> width(header.size(), 0);
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], pad(row[i], 0).size());
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) line += (i > 0 ? "  " : "") + pad(row[i], i + 1 < row.size() ? width[i] : 0);
    out += line + "\n";
  }
  return out;
}

std::string format_main_effects(const SweepTable& table, const std::vector<MainEffect>& effects) {
  if (effects.empty() || table.points.size() < 2) return "";
  std::string out = "main effects (each key's values, the other keys averaged out; the key that moves a figure most first):\n";
  for (std::size_t m = 0; m < table.metrics.size(); ++m) {
    const FigureUnit unit = figure_unit(table.metrics[m]);
    std::vector<std::size_t> order(effects.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const double ra = std::isnan(effects[a].range[m]) ? -1 : effects[a].range[m];
      const double rb = std::isnan(effects[b].range[m]) ? -1 : effects[b].range[m];
      return ra > rb;
    });
    out += "  " + table.metrics[m] + ":\n";
    for (const std::size_t k : order) {
      const MainEffect& e = effects[k];
      out += "    " + e.key + " moves it by " +
             (std::isnan(e.range[m]) ? std::string("n/a") : format_figure(unit, e.range[m], true)) + " (";
      for (std::size_t v = 0; v < e.values.size(); ++v)
        out += (v > 0 ? ", " : "") + e.values[v] + ": " +
               (std::isnan(e.means[m][v]) ? std::string("n/a") : format_figure(unit, e.means[m][v], true));
      out += ")\n";
    }
  }
  return out;
}

std::string format_sweep_json(const SweepTable& table, const std::vector<MainEffect>& effects) {
  const auto quoted = [](const std::string& s) {
    JsonObject o(0);
    o.string("x", s);
    const std::string text = o.finish();  // "{\n  \"x\": \"...\"\n}"
    const auto colon = text.find(": ");
    return text.substr(colon + 2, text.rfind('\n') - colon - 2);
  };
  JsonObject top(0);
  top.string("sweep_file", table.sweep_file);
  top.integer("replications", table.replications);
  std::vector<std::string> keys, metrics, points, main;
  for (const std::string& k : table.keys) keys.push_back(quoted(k));
  for (const std::string& m : table.metrics) metrics.push_back(quoted(m));
  top.raw("keys", json_array(keys, 1));
  top.raw("metrics", json_array(metrics, 1));
  for (std::size_t p = 0; p < table.points.size(); ++p) {
    const auto& point = table.points[p];
    JsonObject o(2);
    o.integer("point", static_cast<std::int64_t>(p));
    JsonObject values(3);
    for (std::size_t k = 0; k < table.keys.size(); ++k) values.string(table.keys[k], point.values[k]);
    o.raw("values", values.finish());
    o.integer("runs_ok", point.runs_ok);
    JsonObject figures(3);
    for (std::size_t m = 0; m < table.metrics.size(); ++m) {
      JsonObject f(4);
      f.number("mean", point.mean[m]);
      f.number("sd", point.sd[m]);
      f.number("ci95", point.ci95[m]);
      figures.raw(table.metrics[m], f.finish());
    }
    o.raw("figures", figures.finish());
    points.push_back(o.finish());
  }
  top.raw("points", json_array(points, 1));
  for (const MainEffect& e : effects)
    for (std::size_t m = 0; m < table.metrics.size(); ++m) {
      JsonObject o(2);
      o.string("key", e.key);
      o.string("metric", table.metrics[m]);
      o.number("range", e.range[m]);
      JsonObject means(3);
      for (std::size_t v = 0; v < e.values.size(); ++v) means.number(e.values[v], e.means[m][v]);
      o.raw("means", means.finish());
      main.push_back(o.finish());
    }
  top.raw("main_effects", json_array(main, 1));
  return top.finish() + "\n";
}

}  // namespace gcsim::analysis
