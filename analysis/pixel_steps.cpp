// See pixel_steps.hpp.
#include "analysis/pixel_steps.hpp"

#include <algorithm>
#include <cmath>

namespace gcsim::analysis {

namespace {

// The equal-width columns of [start_s, end_s]; each boundary is computed once, so a column's
// to_s is exactly the next one's from_s.
std::vector<PixelColumn> empty_columns(double start_s, double end_s, std::size_t columns) {
  std::vector<PixelColumn> out;
  if (columns == 0 || !(end_s > start_s)) return out;
  out.resize(columns);
  const double width = (end_s - start_s) / static_cast<double>(columns);
  for (std::size_t k = 0; k < columns; ++k) out[k].from_s = start_s + static_cast<double>(k) * width;
  for (std::size_t k = 0; k + 1 < columns; ++k) out[k].to_s = out[k + 1].from_s;
  out.back().to_s = end_s;
  return out;
}

// The column with from_s <= t < to_s (the last column for t >= its from_s, the first for t
// before it). The division gives it up to rounding; the loops settle the edges.
std::size_t column_of(const std::vector<PixelColumn>& cols, double t) {
  const double width = cols.front().to_s - cols.front().from_s;
  const double guess = std::floor((t - cols.front().from_s) / width);
  std::size_t k = guess <= 0 ? 0 : std::min(static_cast<std::size_t>(guess), cols.size() - 1);
  while (k > 0 && cols[k].from_s > t) --k;
  while (k + 1 < cols.size() && cols[k].to_s <= t) ++k;
  return k;
}

}  // namespace

std::vector<PixelColumn> reduce_steps_to_pixels(const std::vector<StepPoint>& steps, double start_s, double end_s,
                                                std::size_t columns) {
  std::vector<PixelColumn> cols = empty_columns(start_s, end_s, columns);
  if (cols.empty()) return cols;
  std::vector<double> covered_s(cols.size(), 0.0);  // the time each column has a value, for the mean
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const double from = std::max(steps[i].time_s, start_s);
    const double to = i + 1 < steps.size() ? std::min(steps[i + 1].time_s, end_s) : end_s;
    if (!(to > from)) continue;  // held for no time inside the picture
    const std::size_t first = column_of(cols, from);
    std::size_t last = column_of(cols, to);
    if (last > first && cols[last].from_s >= to) --last;  // `to` is where the next step begins
    const double v = steps[i].value;
    for (std::size_t k = first; k <= last; ++k) {
      PixelColumn& c = cols[k];
      if (!c.has_value) {
        c.has_value = true;
        c.min = v;
        c.max = v;
      } else {
        c.min = std::min(c.min, v);
        c.max = std::max(c.max, v);
      }
      const double held_s = std::min(to, c.to_s) - std::max(from, c.from_s);
      if (held_s > 0) {
        c.mean += v * held_s;
        covered_s[k] += held_s;
      }
    }
  }
  // Rounding in the sums must not move a constant off its value, nor a mean out of [min, max].
  for (std::size_t k = 0; k < cols.size(); ++k) {
    PixelColumn& c = cols[k];
    c.mean = covered_s[k] > 0 && c.min < c.max ? std::clamp(c.mean / covered_s[k], c.min, c.max) : c.min;
  }
  return cols;
}

std::vector<PixelMark> marks_per_pixel(const std::vector<double>& times_s, double start_s, double end_s,
                                       std::size_t columns) {
  const std::vector<PixelColumn> cols = empty_columns(start_s, end_s, columns);
  std::vector<PixelMark> per_column(cols.size());
  for (const double t : times_s) {
    if (cols.empty() || !(t >= start_s && t <= end_s)) continue;
    ++per_column[column_of(cols, t)].count;
  }
  std::vector<PixelMark> out;
  for (std::size_t k = 0; k < cols.size(); ++k) {
    if (per_column[k].count == 0) continue;
    out.push_back(per_column[k]);
    out.back().from_s = cols[k].from_s;
    out.back().to_s = cols[k].to_s;
  }
  return out;
}

}  // namespace gcsim::analysis
