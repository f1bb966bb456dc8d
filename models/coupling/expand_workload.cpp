// Workload expansion (see workload.hpp).
#include "models/coupling/expand_workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "sim/allocator.hpp"
#include "sim/rng.hpp"

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

std::vector<Job> expand_workload(const Scenario& s, std::uint64_t seed, std::uint64_t replication) {
  std::vector<Job> jobs;
  std::size_t total = s.workload.jobs.size();
  for (const auto& g : s.workload.generators) total += static_cast<std::size_t>(g.count);
  jobs.reserve(total);
  // The reserved jobs' pages faulted in beside the expansion (sim/allocator.hpp).
  const sim::PrefaultPages prefault(jobs.data(), jobs.capacity() * sizeof(Job));

  // Estimates drawn with an error: jobs written out draw from one stream, in workload order.
  sim::RngStream job_estimates(seed, replication, "workload.jobs.estimate");
  const auto set_estimate = [](Job& j, const EstimateSpec* e, sim::RngStream& rng) {
    if (!e) return;
    if (e->given) j.extras_mut().estimate_s = e->given->seconds();
    else j.extras_mut().estimate_factor = std::exp(e->sigma * rng.normal(0, 1));
  };
  for (std::size_t i = 0; i < s.workload.jobs.size(); ++i) {
    const JobSpec& spec = s.workload.jobs[i];
    Job j;
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
    set_estimate(j, spec.estimate.get(), job_estimates);
    jobs.push_back(std::move(j));
  }

  for (const auto& g : s.workload.generators) {
    const std::string prefix = "workload.generators." + g.name + ".";
    sim::RngStream arrival(seed, replication, prefix + "arrival");
    sim::RngStream gpus(seed, replication, prefix + "gpus");
    sim::RngStream size(seed, replication, prefix + (g.duration ? "duration" : "work"));
    sim::RngStream efficiency(seed, replication, prefix + "efficiency");
    sim::RngStream estimate(seed, replication, prefix + "estimate");
    sim::RngStream gpu_milli(seed, replication, prefix + "gpu_milli");
    sim::RngStream team(seed, replication, prefix + "team");  // drawn from only for a team choice
    std::vector<std::int16_t> team_choice;
    for (const std::string& name : g.team_choice) team_choice.push_back(static_cast<std::int16_t>(s.workload.team_index(name)));
    const int width = static_cast<int>(std::to_string(g.count).size());
    sim::SimTime t = g.start;
    // With active hours, the arrivals' clock runs only inside them.
    sim::SimTime inside = g.active ? g.active->inside_before(g.start) : sim::SimTime::zero();
    for (std::int64_t i = 0; i < g.count; ++i) {
      if (g.rate) {
        // One Exp(1) draw a job, mapped through the inverse of the cumulative rate.
        t = t.is_max() ? t : g.rate->advance(t, arrival.exponential(1.0));
      } else if (const sim::SimTime gap = sim::SimTime::from_seconds(g.arrival.sample(arrival)); g.active) {
        inside = inside.saturating_add(gap);
        t = inside.is_max() ? sim::SimTime::max() : g.active->at_inside(inside);
      } else {
        t = t.saturating_add(gap);
      }
      if (g.end && t >= *g.end) break;  // `count` is then a cap
      Job j;
      char suffix[32];
      const std::size_t suffix_size = index_suffix(suffix, width, static_cast<std::uint64_t>(i + 1));
      j.name.reserve(g.name.size() + suffix_size);
      j.name.assign(g.name).append(suffix, suffix_size);
      j.submit = t;
      if (g.checkpoint) j.extras_mut().checkpoint = &*g.checkpoint;
      if (g.image_pull != sim::SimTime::zero()) j.extras_mut().image_pull = g.image_pull;
      j.team = team_choice.empty() ? static_cast<std::int16_t>(s.workload.team_index(g.team))
                                   : team_choice[team.weighted_index(g.team_weights)];
      j.priority = static_cast<std::int16_t>(g.priority);
      if (g.deadline) j.extras_mut().deadline = j.submit.saturating_add(*g.deadline);
      j.gpus = static_cast<int>(std::max(1.0, std::round(g.gpus.sample(gpus))));
      // A share only for one-GPU jobs; the draw is made for every job, so that the shares
      // of the one-GPU jobs do not depend on the sizes drawn before them.
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
      set_estimate(j, g.estimate ? &*g.estimate : nullptr, estimate);
      jobs.push_back(std::move(j));
    }
  }

  // Submit order, stable: sort indices, then move each job about once (a Job is a few
  // hundred bytes; sorting the jobs themselves moves each O(log n) times). Already in order
  // (one generator, or written jobs listed by submit time, as traces and CSV tables are):
  // nothing to move.
  const bool in_order =
      std::is_sorted(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.submit < b.submit; });
  std::vector<std::uint32_t> order(in_order ? 0 : jobs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return jobs[a].submit < jobs[b].submit; });
  // Apply the permutation in place, cycle by cycle: position i takes jobs[order[i]].
  for (std::size_t start = 0; start < order.size(); ++start) {
    if (order[start] == start) continue;
    Job held = std::move(jobs[start]);
    std::size_t i = start;
    while (order[i] != start) {
      const std::size_t from = order[i];
      jobs[i] = std::move(jobs[from]);
      order[i] = static_cast<std::uint32_t>(i);
      i = from;
    }
    jobs[i] = std::move(held);
    order[i] = static_cast<std::uint32_t>(i);
  }
  for (std::size_t i = 0; i < jobs.size(); ++i) jobs[i].id = static_cast<std::uint32_t>(i);
  return jobs;
}

TakenWorkload take_workload(Scenario& s, std::uint64_t seed, std::uint64_t replication) {
  TakenWorkload taken;
  taken.jobs = expand_workload(s, seed, replication);
  std::vector<JobSpec>& specs = s.workload.jobs;
  std::size_t pointed = 0;
  for (const JobSpec& j : specs) pointed += j.training || j.comm || j.checkpoint;
  taken.kept.reserve(pointed);
  // A box's value keeps its address when the box moves: the jobs' pointers stay good.
  for (JobSpec& j : specs)
    if (j.training || j.comm || j.checkpoint) taken.kept.push_back(std::move(j));
  std::vector<JobSpec>().swap(specs);
  return taken;
}

}  // namespace gcsim::models
