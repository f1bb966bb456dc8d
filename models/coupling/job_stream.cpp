// A scenario's jobs taken one at a time (see job_stream.hpp).
#include "models/coupling/job_stream.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/check.hpp"

namespace gcsim::models {

namespace {
// "-" and n zero-padded to `width` digits, as std::snprintf's "-%0*lld" writes it for
// n >= 0 (width at most 20, the digits of an int64 count), without parsing a format a
// million times (a tenth of the generation's time at a million jobs). Returns its length.
std::size_t index_suffix(char (&out)[32], int width, std::uint64_t n) {
  char digits[20];
  int count = 0;
  do {
    digits[count++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n > 0);
  std::size_t k = 0;
  out[k++] = '-';
  for (int pad = count; pad < width; ++pad) out[k++] = '0';
  while (count > 0) out[k++] = digits[--count];
  return k;
}
}  // namespace

// One generator: its random streams, its clock, and its next job, made ahead so that its
// submit time can be compared with the other sources' (`has_head`).
struct JobStream::Generator {
  Generator(const Scenario& s, const GeneratorSpec& spec, std::uint64_t seed, std::uint64_t replication)
      : g(spec),
        arrival(seed, replication, "workload.generators." + spec.name + ".arrival"),
        gpus(seed, replication, "workload.generators." + spec.name + ".gpus"),
        size(seed, replication, "workload.generators." + spec.name + (spec.duration ? ".duration" : ".work")),
        efficiency(seed, replication, "workload.generators." + spec.name + ".efficiency"),
        estimate(seed, replication, "workload.generators." + spec.name + ".estimate"),
        gpu_milli(seed, replication, "workload.generators." + spec.name + ".gpu_milli"),
        team(seed, replication, "workload.generators." + spec.name + ".team"),  // drawn from only for a team choice
        width(static_cast<int>(std::to_string(spec.count).size())),
        t(spec.start),
        inside(spec.active ? spec.active->inside_before(spec.start) : sim::SimTime::zero()) {
    for (const std::string& name : spec.team_choice) team_choice.push_back(static_cast<std::int16_t>(s.workload.team_index(name)));
    fixed_team = static_cast<std::int16_t>(s.workload.team_index(spec.team));
  }

  // The next arrival: false when the generator has made its count, or its next arrival
  // would be at or after its end (`count` is then a cap). Draws from the arrival stream only.
  bool advance() {
    if (made >= g.count) return false;
    if (g.rate) {
      // One Exp(1) draw a job, mapped through the inverse of the cumulative rate.
      t = t.is_max() ? t : g.rate->advance(t, arrival.exponential(1.0));
    } else if (const sim::SimTime gap = sim::SimTime::from_seconds(g.arrival.sample(arrival)); g.active) {
      // With active hours, the arrivals' clock runs only inside them.
      inside = inside.saturating_add(gap);
      t = inside.is_max() ? sim::SimTime::max() : g.active->at_inside(inside);
    } else {
      t = t.saturating_add(gap);
    }
    if (g.end && t >= *g.end) {
      made = g.count;
      return false;
    }
    ++made;
    return true;
  }

  // Makes the head: the job of the arrival advance() just drew.
  void make_head(const Scenario& s) {
    const sim::SimTime last = head.submit;
    head = Job{};
    Job& j = head;
    char suffix[32];
    const std::size_t suffix_size = index_suffix(suffix, width, static_cast<std::uint64_t>(made));
    j.name.reserve(g.name.size() + suffix_size);
    j.name.assign(g.name).append(suffix, suffix_size);
    j.submit = t;
    // The stream's order is the sorted order only while each source keeps its own (the
    // readers keep times between arrivals >= 0: models/config/distribution_reader.cpp).
    GCSIM_CHECK(made == 1 || j.submit >= last, "generator '" + g.name + "': job " + std::to_string(made) +
                                                   " arrives before the one made before it");
    if (g.checkpoint) j.extras_mut().checkpoint = &*g.checkpoint;
    if (g.image_pull != sim::SimTime::zero()) j.extras_mut().image_pull = g.image_pull;
    j.team = team_choice.empty() ? fixed_team : team_choice[team.weighted_index(g.team_weights)];
    j.priority = static_cast<std::int16_t>(g.priority);
    if (g.deadline) j.extras_mut().deadline = j.submit.saturating_add(*g.deadline);
    j.gpus = static_cast<int>(std::max(1.0, std::round(g.gpus.sample(gpus))));
    // A share only for one-GPU jobs; the draw is made for every job, so that the shares of
    // the one-GPU jobs do not depend on the sizes drawn before them.
    if (g.gpu_milli) {
      const double m = std::clamp(std::round(g.gpu_milli->sample(gpu_milli)), 1.0, 1000.0);
      if (j.gpus == 1) j.gpu_milli = static_cast<std::int16_t>(m);
    }
    if (g.duration) {
      j.has_duration = true;
      j.duration = std::max(sim::SimTime::from_ns(1), sim::SimTime::from_seconds(g.duration->sample(size)));
      j.eligible_types = eligible_node_types(s.cluster, j.gpus, nullptr) & g.node_type_mask;
    } else {
      j.has_duration = false;
      j.work_flop = g.work->sample(size);
      j.precision = g.precision;
      j.efficiency = g.efficiency.sample(efficiency);
      j.eligible_types = eligible_node_types(s.cluster, j.gpus, &g.precision) & g.node_type_mask;
    }
    if (g.estimate) j.extras_mut().estimate_factor = std::exp(g.estimate->sigma * estimate.normal(0, 1));
  }

  // Makes the next head if none is waiting; false when the generator is done.
  bool fill(const Scenario& s) {
    if (has_head) return true;
    if (!advance()) return false;
    make_head(s);
    has_head = true;
    return true;
  }

  const GeneratorSpec& g;
  sim::RngStream arrival, gpus, size, efficiency, estimate, gpu_milli, team;
  std::vector<std::int16_t> team_choice;
  std::int16_t fixed_team = -1;
  int width;
  sim::SimTime t;
  sim::SimTime inside;  // the arrivals' clock inside the active hours
  std::int64_t made = 0;  // arrivals drawn (jobs made or counted)
  Job head;
  bool has_head = false;
};

JobStream::JobStream(const Scenario& s, std::uint64_t seed, std::uint64_t replication) : scenario_(s) {
  const std::vector<JobSpec>& jobs = s.workload.jobs;
  // Estimates drawn with an error: jobs written out draw from one stream, in workload order.
  sim::RngStream job_estimates(seed, replication, "workload.jobs.estimate");
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const EstimateSpec* e = jobs[i].estimate.get();
    if (e == nullptr || e->given) continue;
    if (written_factor_.empty()) written_factor_.assign(jobs.size(), std::nan(""));
    written_factor_[i] = std::exp(e->sigma * job_estimates.normal(0, 1));
  }
  // Submit order, stable: traces and CSV tables are usually written in it already.
  const bool in_order = std::is_sorted(jobs.begin(), jobs.end(), [](const JobSpec& a, const JobSpec& b) { return a.submit < b.submit; });
  if (!in_order) {
    written_order_.resize(jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) written_order_[i] = static_cast<std::uint32_t>(i);
    std::stable_sort(written_order_.begin(), written_order_.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return jobs[a].submit < jobs[b].submit; });
  }
  for (const GeneratorSpec& g : s.workload.generators) generators_.push_back(std::make_unique<Generator>(s, g, seed, replication));
}

JobStream::~JobStream() = default;

void JobStream::make_written(std::size_t i, Job& j) {
  const Scenario& s = scenario_;
  const JobSpec& spec = s.workload.jobs[i];
  j = Job{};
  if (i < s.workload.recorded.size()) {
    j.extras_mut().recorded_wait_s = s.workload.recorded[i].wait_s;
    j.extras_mut().recorded_node = s.workload.recorded[i].node;
  }
  j.name = spec.name;
  j.submit = spec.submit;
  j.gpus = spec.gpus;
  j.gpu_milli = spec.gpu_milli;
  // What few jobs have goes out of line only when given (a plain job makes no record).
  if (spec.checkpoint) j.extras_mut().checkpoint = &*spec.checkpoint;
  if (spec.image_pull != sim::SimTime::zero()) j.extras_mut().image_pull = spec.image_pull;
  j.team = spec.team;
  j.priority = spec.priority;
  j.recorded_status = spec.recorded_status;
  if (spec.deadline) j.extras_mut().deadline = j.submit.saturating_add(*spec.deadline);
  j.has_duration = spec.duration.has_value();
  if (spec.training) {
    j.extras_mut().training = &*spec.training;
    j.precision = spec.training->precision;
    j.eligible_types = eligible_node_types(s.cluster, j.gpus, &spec.training->precision, j.training()) & spec.node_type_mask;
  } else if (j.has_duration) {
    j.duration = *spec.duration;
    if (spec.comm) j.extras_mut().comm = &*spec.comm;
    j.eligible_types = eligible_node_types(s.cluster, j.gpus, nullptr) & spec.node_type_mask;
  } else {
    j.work_flop = *spec.work_flop;
    j.precision = spec.precision;
    j.efficiency = spec.efficiency;
    j.eligible_types = eligible_node_types(s.cluster, j.gpus, &spec.precision) & spec.node_type_mask;
  }
  if (const EstimateSpec* e = spec.estimate.get()) {
    if (e->given) j.extras_mut().estimate_s = e->given->seconds();
    else j.extras_mut().estimate_factor = written_factor_[i];
  }
}

int JobStream::first_source() {
  int best = -1;
  sim::SimTime at = sim::SimTime::max();
  const std::vector<JobSpec>& jobs = scenario_.workload.jobs;
  if (written_next_ < jobs.size()) {
    best = 0;
    at = jobs[written_order_.empty() ? written_next_ : written_order_[written_next_]].submit;
  }
  for (std::size_t g = 0; g < generators_.size(); ++g) {
    Generator& gen = *generators_[g];
    if (!gen.fill(scenario_)) continue;
    if (best < 0 || gen.head.submit < at) {  // a tie keeps the earlier source
      best = static_cast<int>(g) + 1;
      at = gen.head.submit;
    }
  }
  return best;
}

bool JobStream::next(Job& out) {
  const int source = first_source();
  if (source < 0) return false;
  if (source == 0) {
    const std::size_t k = written_next_++;
    make_written(written_order_.empty() ? k : written_order_[k], out);
    return true;
  }
  Generator& gen = *generators_[static_cast<std::size_t>(source - 1)];
  out = std::move(gen.head);
  gen.has_head = false;
  return true;
}

std::size_t JobStream::bound() const {
  std::size_t n = scenario_.workload.jobs.size() - written_next_;
  for (const auto& g : generators_) n += static_cast<std::size_t>(g->g.count - g->made) + (g->has_head ? 1 : 0);
  return n;
}

std::size_t JobStream::count_rest() {
  std::size_t n = scenario_.workload.jobs.size() - written_next_;
  written_next_ = scenario_.workload.jobs.size();
  for (const auto& g : generators_) {
    n += g->has_head ? 1 : 0;
    g->has_head = false;
    if (!g->g.end) {
      // Without an end every draw left is a job: the count, without drawing.
      n += static_cast<std::size_t>(g->g.count - g->made);
      g->made = g->g.count;
      continue;
    }
    while (g->advance()) ++n;  // the arrivals before the end: drawn, the jobs not made
  }
  return n;
}

}  // namespace gcsim::models
