// The serving part (see serving_controller.hpp; docs/serving.md, "Batching", "Statistics").
#include "models/services/serving_controller.hpp"

#include <algorithm>
#include <cmath>

#include "models/accounting/cost_meter.hpp"
#include "models/cluster/cluster.hpp"
#include "models/config/cluster_spec.hpp"
#include "models/core/event_priorities.hpp"
#include "models/topology/topology_spec.hpp"
#include "sim/calendar.hpp"
#include "sim/errors.hpp"

namespace gcsim::models {

using serving::BatchingMode;
using serving::ServiceSpec;

namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

std::int32_t draw_tokens(const Distribution& d, sim::RngStream& rng) {
  const double v = std::round(d.sample(rng));
  return static_cast<std::int32_t>(std::clamp(v, 1.0, 1e9));
}

bool meets(double value, double target) { return std::isnan(target) || std::isnan(value) || value <= target; }

}  // namespace

void ServingController::Ring::grow() {
  if (size_ < buf_.size()) return;
  std::vector<Request> bigger(std::max<std::size_t>(64, buf_.size() * 2));
  for (std::size_t i = 0; i < size_; ++i) bigger[i] = buf_[(head_ + i) & (buf_.size() - 1)];
  buf_ = std::move(bigger);
  head_ = 0;
}

ServingController::ServingController(RunContext& ctx, serving::ServiceSink* sink, ReplicaCostProvider* provider)
    : Controller(ctx.engine, PRIORITY_CONTROL), cluster_(ctx.cluster), scenario_(ctx.scenario), costs_(ctx.costs),
      sink_(sink), provider_(provider), interval_(ctx.scenario.output.service_interval) {
  const auto& specs = scenario_.workload.services;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const std::string base = "service." + specs[i].name + ".";
    auto s = std::make_unique<Service>(ctx.stream(base + "arrivals"), ctx.stream(base + "tokens"), ctx.stream(base + "latency"),
                                       ctx.stream(base + "profile"));
    s->spec = &specs[i];
    s->index = static_cast<std::uint32_t>(i);
    s->costs.resize(scenario_.cluster.node_types.size());
    if (!specs[i].cold_start.image.empty()) s->image_on_node.assign(cluster_.nodes().size(), 0);
    services_.push_back(std::move(s));
  }
  cluster_.job_started.connect(ORDER_EXTENSIONS, [this](const Job& j) { replica_started(j); });
  cluster_.job_stopped.connect(ORDER_EXTENSIONS, [this](const Job& j) { replica_stopped(j); });
  if (std::any_of(specs.begin(), specs.end(), [](const ServiceSpec& x) { return !x.cold_start.image.empty(); }))
    cluster_.node_down.connect(ORDER_EXTENSIONS, [this](std::uint32_t node) { node_down(node); });
}

void ServingController::start() { act_at<&ServingController::on_start>(engine_.now(), this); }

void ServingController::on_start(std::uint64_t) {
  interval_start_ = engine_.now();
  for (auto& sp : services_) {
    Service& s = *sp;
    for (int k = 0; k < s.spec->replicas.count; ++k) add_replica(s);
    s.next_arrival = next_after(s, engine_.now());
    dispatch(s);
  }
  if (interval_ > sim::SimTime::zero()) act_at<&ServingController::on_interval>(engine_.now() + interval_, this);
}

void ServingController::add_replica(Service& s) {
  const ServiceSpec& spec = *s.spec;
  const auto k = static_cast<std::uint32_t>(s.replicas.size());
  JobRequest r;
  r.name = spec.name + "/r" + std::to_string(k);
  r.submit = engine_.now();
  r.gpus = spec.replicas.gpus;
  r.gpu_milli = spec.replicas.gpu_milli;
  r.has_duration = true;
  r.duration = std::max(sim::SimTime::from_ns(1), scenario_.horizon - engine_.now());
  r.open_ended = true;
  r.team = static_cast<std::int16_t>(spec.team_index);
  r.priority = spec.priority;
  r.eligible_types = eligible_node_types(scenario_.cluster, spec.replicas.gpus, nullptr) & spec.node_type_mask;
  Replica rep;
  rep.batch.reserve(static_cast<std::size_t>(std::min(spec.batching.max_batch, 4096)));
  s.replicas.push_back(std::move(rep));
  const std::uint32_t id = cluster_.submit(std::move(r));
  s.replicas.back().job = id;
  s.jobs.push_back(id);
  replica_of_job_[id] = key(s.index, k);
}

const serving::ReplicaCost* ServingController::cost_for(Service& s, const Job& j) {
  if (!s.spec->model_spec) return nullptr;
  const auto t = static_cast<std::size_t>(j.node_type);
  if (!s.costs[t]) {
    const NodeTypeSpec& type = scenario_.cluster.node_types[t];
    serving::ReplicaHardware hw;
    hw.gpu = type.gpu;
    hw.gpus = s.spec->replicas.gpus;
    hw.share = s.spec->replicas.gpu_milli / 1000.0;
    const bool nvlink = type.gpu.nvlink_bytes_per_s > 0 && type.internals.nvlink != topology::NvlinkMode::None;
    const int gen = type.internals.pcie_gen > 0 ? type.internals.pcie_gen : (type.gpu.pcie_gen > 0 ? type.gpu.pcie_gen : 4);
    hw.link_bytes_per_s = nvlink ? type.gpu.nvlink_bytes_per_s : topology::pcie_bytes_per_s(gen, type.internals.pcie_lanes);
    hw.link_latency_s = 0;  // the step-time calibration's per-message latency (Calibration::comm_latency_s)
    s.costs[t] = provider_ ? provider_->replica_cost(*s.spec, hw)
                           : serving::make_replica_cost(*s.spec->model_spec, s.spec->precision, hw);
    GCSIM_CHECK(s.costs[t] != nullptr, "service '" + s.spec->name + "': no ReplicaCost");
    const auto* a = s.spec->replicas.autoscale ? &*s.spec->replicas.autoscale : nullptr;
    using Measure = serving::ReplicaAutoscaleSpec::Measure;
    GCSIM_CHECK(!a || (a->measure != Measure::Memory && a->measure != Measure::KvCache) ||
                    (s.costs[t]->memory_bytes() > 0 && s.costs[t]->kv_capacity_tokens() > 0),
                "service '" + s.spec->name + "': autoscaling on memory needs a ReplicaCost with a memory");
  }
  return s.costs[t].get();
}

void ServingController::replica_started(const Job& j) {
  const auto it = replica_of_job_.find(j.id);
  if (it == replica_of_job_.end()) return;
  Service& s = *services_[it->second >> 32];
  const auto k = static_cast<std::uint32_t>(it->second & 0xffffffffu);
  Replica& r = s.replicas[k];
  r.cost = cost_for(s, j);
  r.state = State::Cold;
  r.cold_since = engine_.now();
  ++s.cold_starts;
  // The image pull first (unless the node has the image), then the fixed part and the load.
  const serving::ColdStartSpec& cold = s.spec->cold_start;
  bool image_on_node = true;
  r.pulled_at = sim::SimTime::max();
  if (!s.image_on_node.empty()) {
    const auto nodes = cluster_.nodes_of(j);
    GCSIM_CHECK(!nodes.empty(), "replica job " + std::to_string(j.id) + " started on no node");
    r.node = nodes.front();
    if (r.node >= s.image_on_node.size()) s.image_on_node.resize(r.node + 1, 0);
    image_on_node = s.image_on_node[r.node] != 0;
    if (!image_on_node) r.pulled_at = engine_.now() + cold.image.time;
  }
  r.event = act_at<&ServingController::on_ready>(engine_.now() + cold.time(image_on_node), this, it->second);
}

void ServingController::note_pull(Service& s, Replica& r, sim::SimTime now) {
  if (r.pulled_at <= now) s.image_on_node[r.node] = 1;
  r.pulled_at = sim::SimTime::max();
}

void ServingController::node_down(std::uint32_t node) {
  for (auto& sp : services_)
    if (node < sp->image_on_node.size()) sp->image_on_node[node] = 0;
}

void ServingController::replica_stopped(const Job& j) {
  const auto it = replica_of_job_.find(j.id);
  if (it == replica_of_job_.end()) return;
  Service& s = *services_[it->second >> 32];
  Replica& r = s.replicas[it->second & 0xffffffffu];
  engine_.cancel(r.event);
  if (r.state == State::Cold) {
    s.cold_start_s += (engine_.now() - r.cold_since).seconds();
    if (!s.image_on_node.empty()) note_pull(s, r, engine_.now());
  }
  set_busy(s, r, false);
  if (r.state == State::Idle || r.state == State::Busy) s.i_up_s += (engine_.now() - std::max(r.up_since, interval_start_)).seconds();
  // Its batch in progress goes back to the head of the queue, in arrival order, to start over.
  for (auto b = r.batch.rbegin(); b != r.batch.rend(); ++b) s.queue.push_front(b->r);
  r.batch.clear();
  r.kv_used = 0;
  r.state = State::Placing;
  r.draining = false;  // it comes back as any replica (the autoscaler may scale in again)
  if (!engine_.is_pending(s.wake) || s.wake_at != engine_.now()) {
    engine_.cancel(s.wake);
    s.wake_at = engine_.now();
    s.wake = act_at<&ServingController::on_wake>(engine_.now(), this, s.index);
  }
}

void ServingController::on_ready(std::uint64_t k) {
  Service& s = *services_[k >> 32];
  Replica& r = s.replicas[k & 0xffffffffu];
  if (!s.image_on_node.empty()) note_pull(s, r, engine_.now());
  s.cold_start_s += (engine_.now() - r.cold_since).seconds();
  r.state = State::Idle;
  r.up_since = engine_.now();
  s.replicas_max = std::max(s.replicas_max, replicas_up(s));
  dispatch(s);
}

void ServingController::on_wake(std::uint64_t i) {
  Service& s = *services_[i];
  s.wake_at = sim::SimTime::max();
  dispatch(s);
}

void ServingController::draw_one(Service& s) {
  const ServiceSpec& spec = *s.spec;
  Request q;
  q.id = s.next_id++;
  q.arrival = s.next_arrival;
  if (spec.trace) {
    const serving::TraceRequest& row = (*spec.trace)[s.trace_next++];
    q.prompt = row.prompt;
    q.output = row.output;
  }
  if (spec.prompt_tokens && !spec.trace_tokens) {
    q.prompt = draw_tokens(*spec.prompt_tokens, s.tokens);
    q.output = draw_tokens(*spec.output_tokens, s.tokens);
  }
  s.ahead.push_back(q);
  s.next_arrival = next_after(s, s.next_arrival);
}

sim::SimTime ServingController::next_after(Service& s, sim::SimTime t) {
  const ServiceSpec& spec = *s.spec;
  if (spec.trace) {  // the file's next request (t, the last one's arrival, is not needed)
    if (s.trace_next >= spec.trace->size()) return sim::SimTime::max();
    const sim::SimTime at = (*spec.trace)[s.trace_next].arrival;
    return at > scenario_.horizon ? sim::SimTime::max() : at;
  }
  if (spec.profile.empty()) {
    const sim::SimTime next = t + sim::SimTime::from_seconds(spec.arrival.sample(s.arrivals));
    return next > scenario_.horizon ? sim::SimTime::max() : next;
  }
  // Thinning (Lewis & Shedler, 1979): candidates at the rate times the largest multiplier
  // (the drawn gap over it), each kept with probability multiplier(t) / largest, the
  // multiplier at the candidate's time of the week (to the nanosecond: a window from 09:30
  // starts at 09:30). Exact for Poisson arrivals (`dist: exponential`): a Poisson process
  // of rate lambda m(t).
  for (;;) {
    t = t + sim::SimTime::from_seconds(spec.arrival.sample(s.arrivals) / spec.profile_max);
    if (t > scenario_.horizon) return sim::SimTime::max();
    if (s.profile.uniform01() * spec.profile_max < spec.profile_rate(t.ns() % sim::WEEK_NS)) return t;
  }
}

sim::SimTime ServingController::arrival_ahead(Service& s, std::size_t k) {
  while (s.ahead.size() < k && s.next_arrival != sim::SimTime::max()) draw_one(s);
  return s.ahead.size() < k ? sim::SimTime::max() : s.ahead[k - 1].arrival;
}

void ServingController::pull(Service& s, sim::SimTime t, bool before) {
  for (;;) {
    if (s.ahead.empty()) {
      if (s.next_arrival < t || (!before && s.next_arrival == t)) draw_one(s);
      else break;
    }
    const Request& q = s.ahead.front();
    if (!(q.arrival < t || (!before && q.arrival == t))) break;
    s.queue.push_back(q);
    s.ahead.pop_front();
    ++s.arrived;
    ++s.i_arrived;
  }
}

void ServingController::set_busy(Service& s, Replica& r, bool busy) {
  const sim::SimTime now = engine_.now();
  if (busy && r.state != State::Busy) {
    r.state = State::Busy;
    r.busy_since = now;
  } else if (!busy && r.state == State::Busy) {
    r.state = State::Idle;
    s.i_busy_s += (now - std::max(r.busy_since, interval_start_)).seconds();
  }
}

void ServingController::retire(Service& s, std::uint32_t k) {
  Replica& r = s.replicas[k];
  GCSIM_CHECK(r.state == State::Idle, "a replica ends idle");
  s.i_up_s += (engine_.now() - std::max(r.up_since, interval_start_)).seconds();
  r.state = State::Retired;
  r.draining = false;
  cluster_.finish_job(r.job);
}

double ServingController::load(const Service& s, const Replica& r) const {
  if (r.state != State::Busy) return 0;
  if (s.spec->batching.mode != BatchingMode::Continuous) return 1;
  double l = static_cast<double>(r.batch.size()) / s.spec->batching.max_batch;
  const std::int64_t kv_cap = r.cost ? r.cost->kv_capacity_tokens() : 0;
  if (kv_cap > 0) l = std::max(l, static_cast<double>(r.kv_used) / static_cast<double>(kv_cap));
  return std::min(l, 1.0);
}

void ServingController::dispatch(Service& s) {
  const sim::SimTime now = engine_.now();
  const ServiceSpec& spec = *s.spec;
  pull(s, now);
  const bool llm = spec.model_tokens;
  for (std::uint32_t k = 0; k < s.replicas.size(); ++k) {
    Replica& r = s.replicas[k];
    if (r.state != State::Idle) continue;
    if (s.queue.empty()) break;
    if (spec.batching.mode == BatchingMode::Continuous) {
      start_iteration(s, k, true);
    } else if (s.queue.size() >= static_cast<std::size_t>(spec.batching.max_batch) ||
               now - s.queue.front().arrival >= spec.batching.max_wait) {
      if (llm) start_iteration(s, k, true);
      else start_batch(s, k);
    }
  }
  autoscale(s);
  // What wakes the service next while a replica is idle: the next arrival, the oldest
  // request's max_wait, or an autoscaling decision.
  sim::SimTime next = sim::SimTime::max();
  const bool idle = std::any_of(s.replicas.begin(), s.replicas.end(), [](const Replica& r) { return r.state == State::Idle; });
  if (idle) {
    if (spec.batching.mode == BatchingMode::Continuous) {
      next = arrival_ahead(s, 1);
    } else {
      // The arrival that fills max_batch, or the oldest request's max_wait.
      const std::size_t need = static_cast<std::size_t>(spec.batching.max_batch) - s.queue.size();
      const sim::SimTime oldest = s.queue.empty() ? arrival_ahead(s, 1) : s.queue.front().arrival;
      next = std::min(arrival_ahead(s, need), oldest.saturating_add(spec.batching.max_wait));
    }
  }
  if (spec.replicas.autoscale) {
    const sim::SimTime hold = spec.replicas.autoscale->hold;
    if (s.out_since != sim::SimTime::max()) next = std::min(next, std::max(now, s.out_since + hold));
    if (s.in_since != sim::SimTime::max()) next = std::min(next, std::max(now, s.in_since + hold));
    if (next == now) next = sim::SimTime::max();  // decided above, at this instant
  }
  if (next > scenario_.horizon) next = sim::SimTime::max();
  if (next != s.wake_at) {
    engine_.cancel(s.wake);
    s.wake_at = next;
    if (next != sim::SimTime::max()) s.wake = act_at<&ServingController::on_wake>(next, this, s.index);
  }
}

void ServingController::start_batch(Service& s, std::uint32_t k) {
  const ServiceSpec& spec = *s.spec;
  Replica& r = s.replicas[k];
  const sim::SimTime now = engine_.now();
  while (!s.queue.empty() && r.batch.size() < static_cast<std::size_t>(spec.batching.max_batch)) {
    r.batch.push_back(Running{s.queue.front(), now, now, 0});
    s.queue.pop_front();
  }
  // A latency is drawn once per batch, whatever its size; a model's batch_s at its size.
  const double dt = spec.latency ? std::max(0.0, spec.latency->sample(s.latency))
                                 : r.cost->batch_s(static_cast<int>(r.batch.size()));
  set_busy(s, r, true);
  r.event = act_at<&ServingController::on_step_end>(now + sim::SimTime::from_seconds(dt), this, key(s.index, k));
}

void ServingController::start_iteration(Service& s, std::uint32_t k, bool admit) {
  const ServiceSpec& spec = *s.spec;
  Replica& r = s.replicas[k];
  const sim::SimTime now = engine_.now();
  const std::int64_t kv_cap = r.cost->kv_capacity_tokens();
  const std::int64_t max_tokens = spec.batching.max_tokens;
  if (admit) {
    // First come, first served: requests join while the batch has room, the iteration's
    // tokens stay within max_tokens and the KV cache holds every running request's prompt
    // and full output (reserved at admission); the first that does not fit waits. One
    // that could never fit (beyond the KV cache, max_tokens or the model's context) is refused.
    std::int64_t tokens = static_cast<std::int64_t>(r.batch.size());  // one per running request
    // The model's context (its position table: max_seq_len) bounds prompt + output, as
    // vLLM's max_model_len refuses a longer request.
    const std::int64_t context =
        spec.model_spec && spec.model_spec->transformer ? spec.model_spec->transformer->max_seq_len : 0;
    while (!s.queue.empty() && r.batch.size() < static_cast<std::size_t>(spec.batching.max_batch)) {
      const Request& q = s.queue.front();
      const std::int64_t need = std::int64_t{q.prompt} + q.output;
      if ((kv_cap > 0 && need > kv_cap) || (max_tokens > 0 && q.prompt > max_tokens) || (context > 0 && need > context)) {
        ++s.refused;
        s.queue.pop_front();
        continue;
      }
      if (kv_cap > 0 && r.kv_used + need > kv_cap) break;
      if (max_tokens > 0 && tokens + q.prompt > max_tokens) break;
      r.batch.push_back(Running{q, now, now, 0});
      r.kv_used += need;
      tokens += q.prompt;
      s.queue.pop_front();
    }
  }
  if (r.batch.empty()) {
    set_busy(s, r, false);
    return;
  }
  serving::Iteration it;
  for (const Running& x : r.batch) {
    if (x.generated == 0) {
      it.prefill_tokens += x.r.prompt;
      ++it.prefill_seqs;
    } else {
      ++it.decode_seqs;
      it.context_tokens += x.r.prompt + x.generated;
    }
  }
  const double dt = r.cost->iteration_s(it);
  set_busy(s, r, true);
  r.event = act_at<&ServingController::on_step_end>(now + sim::SimTime::from_seconds(dt), this, key(s.index, k));
}

void ServingController::on_step_end(std::uint64_t kk) {
  Service& s = *services_[kk >> 32];
  const auto k = static_cast<std::uint32_t>(kk & 0xffffffffu);
  Replica& r = s.replicas[k];
  const sim::SimTime now = engine_.now();
  if (!s.spec->model_tokens) {
    for (const Running& x : r.batch) complete(s, k, x, now);
    r.batch.clear();
    set_busy(s, r, false);
    if (r.draining) retire(s, k);
    dispatch(s);
    return;
  }
  // An iteration: each request gets one token (its first at the end of its prefill) and
  // leaves after its last.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < r.batch.size(); ++i) {
    Running x = r.batch[i];
    if (x.generated++ == 0) x.first_token = now;
    if (x.generated >= x.r.output) {
      r.kv_used -= std::int64_t{x.r.prompt} + x.r.output;
      complete(s, k, x, now);
    } else {
      r.batch[kept++] = x;
    }
  }
  r.batch.resize(kept);
  if (s.spec->batching.mode == BatchingMode::Continuous) {
    pull(s, now);
    start_iteration(s, k, !r.draining);
  } else if (!r.batch.empty()) {
    start_iteration(s, k, false);  // a dynamic batch runs to its longest output
  } else {
    set_busy(s, r, false);
  }
  if (r.draining && r.batch.empty()) retire(s, k);
  dispatch(s);
}

void ServingController::complete(Service& s, std::uint32_t k, const Running& x, sim::SimTime end) {
  const ServiceSpec& spec = *s.spec;
  serving::RequestRecord rec;
  rec.service = s.index;
  rec.replica = k;
  rec.request = x.r.id;
  rec.arrival_s = x.r.arrival.seconds();
  rec.start_s = x.start.seconds();
  const sim::SimTime first = spec.model_tokens ? x.first_token : end;  // without tokens: the whole answer at the end
  rec.first_token_s = first.seconds();
  rec.end_s = end.seconds();
  rec.prompt_tokens = x.r.prompt;
  rec.output_tokens = x.r.output;
  const double e2e = (end - x.r.arrival).seconds();
  const double ttft = (first - x.r.arrival).seconds();
  const double tpot = x.r.output > 1 ? (end - first).seconds() / (x.r.output - 1) : NaN;
  s.e2e.add(e2e);
  s.i_e2e.add(e2e);
  s.wait_sum_s += (x.start - x.r.arrival).seconds();
  if (spec.model_tokens) {
    s.ttft.add(ttft);
    s.i_ttft.add(ttft);
    if (!std::isnan(tpot)) {
      s.tpot.add(tpot);
      s.i_tpot.add(tpot);
    }
  }
  const bool met = meets(e2e, spec.slo.p99_s) && meets(ttft, spec.slo.ttft_p99_s) && meets(tpot, spec.slo.tpot_p99_s);
  s.slo_met += met;
  s.i_slo_met += met;
  ++s.completed;
  ++s.i_completed;
  s.prompt_tokens += static_cast<std::uint64_t>(x.r.prompt);
  s.output_tokens += static_cast<std::uint64_t>(x.r.output);
  if (sink_) sink_->request(rec);
}

int ServingController::replicas_up(const Service& s) const {
  return static_cast<int>(std::count_if(s.replicas.begin(), s.replicas.end(),
                                        [](const Replica& r) { return r.state == State::Idle || r.state == State::Busy; }));
}

int ServingController::replicas_wanted(const Service& s) const {
  return static_cast<int>(std::count_if(s.replicas.begin(), s.replicas.end(),
                                        [](const Replica& r) { return r.state != State::Retired && !r.draining; }));
}

void ServingController::autoscale(Service& s) {
  if (!s.spec->replicas.autoscale) return;
  const serving::ReplicaAutoscaleSpec& a = *s.spec->replicas.autoscale;
  const sim::SimTime now = engine_.now();
  const int up = replicas_up(s);
  using Measure = serving::ReplicaAutoscaleSpec::Measure;
  bool out = false, in = false;
  if (a.measure == Measure::QueueLength || a.measure == Measure::Utilization) {
    double used = 0;
    for (const Replica& r : s.replicas) used += load(s, r);
    // No replica up yet (all placing or cold): no utilization, so no decision on it.
    const double utilization = up > 0 ? used / up : NaN;
    const bool by_queue = a.measure == Measure::QueueLength;
    out = by_queue ? static_cast<double>(s.queue.size()) > a.threshold : utilization > a.threshold;
    // In when the load spread over one replica fewer stays below 90% of the threshold (as
    // Kubernetes' HPA: desired = ceil(up x utilization / target), with its 10% tolerance),
    // or below 50% with the queue trigger; a last replica only when idle (min 0).
    const double projected = up > 1 ? utilization * up / (up - 1) : (utilization > 0 ? INFINITY : 0.0);
    in = s.queue.empty() && projected < (by_queue ? 0.5 : 0.9 * a.threshold);
  } else if (up > 0) {
    // The mean over the replicas up of their memory (or KV cache) in use: a fixed part
    // (weights and working memory; none for kv_cache) and the cache's part. Scale in when the
    // queue is empty and the cache spread over one replica fewer would stay below 90% of the
    // threshold (Kubernetes HPA's 10% tolerance).
    double fixed = 0, cache = 0;
    for (const Replica& r : s.replicas) {
      if (r.state != State::Idle && r.state != State::Busy) continue;
      const double kv = static_cast<double>(r.kv_used);
      if (a.measure == Measure::Memory) {
        fixed += r.cost->fixed_memory_bytes() / r.cost->memory_bytes();
        cache += kv * r.cost->kv_bytes_per_token() / r.cost->memory_bytes();
      } else {
        cache += kv / static_cast<double>(r.cost->kv_capacity_tokens());
      }
    }
    fixed /= up;
    cache /= up;
    out = fixed + cache > a.threshold;
    in = s.queue.empty() && up > 1 && fixed + cache * up / (up - 1) < 0.9 * a.threshold;
  }
  const int wanted = replicas_wanted(s);
  s.out_since = out && wanted < s.spec->replicas.max ? (s.out_since == sim::SimTime::max() ? now : s.out_since) : sim::SimTime::max();
  s.in_since = in && wanted > s.spec->replicas.min ? (s.in_since == sim::SimTime::max() ? now : s.in_since) : sim::SimTime::max();
  if (s.out_since != sim::SimTime::max() && now - s.out_since >= a.hold) {
    add_replica(s);
    s.out_since = sim::SimTime::max();
  } else if (s.in_since != sim::SimTime::max() && now - s.in_since >= a.hold) {
    // The newest idle replica leaves; with none idle, the newest serving one drains (admits
    // nothing more, ends when its batch is done). One not yet up stays.
    std::size_t pick = s.replicas.size();
    for (std::size_t k = s.replicas.size(); k-- > 0;)
      if (s.replicas[k].state == State::Idle) {
        pick = k;
        break;
      }
    if (pick == s.replicas.size())
      for (std::size_t k = s.replicas.size(); k-- > 0;)
        if (s.replicas[k].state == State::Busy && !s.replicas[k].draining) {
          pick = k;
          break;
        }
    if (pick < s.replicas.size()) {
      if (s.replicas[pick].state == State::Idle) retire(s, static_cast<std::uint32_t>(pick));
      else s.replicas[pick].draining = true;
    }
    s.in_since = sim::SimTime::max();
  }
}

void ServingController::close_interval(Service& s, sim::SimTime t0, sim::SimTime t1) {
  for (Replica& r : s.replicas) {
    if (r.state == State::Busy) s.i_busy_s += (t1 - std::max(r.busy_since, t0)).seconds();
    if (r.state == State::Idle || r.state == State::Busy) s.i_up_s += (t1 - std::max(r.up_since, t0)).seconds();
  }
  serving::ServiceSample x;
  x.service = s.index;
  x.t_s = t0.seconds();
  x.interval_s = (t1 - t0).seconds();
  x.arrived = s.i_arrived;
  x.completed = s.i_completed;
  x.e2e_p50_s = s.i_e2e.quantile(0.5);
  x.e2e_p99_s = s.i_e2e.quantile(0.99);
  x.ttft_p99_s = s.i_ttft.quantile(0.99);
  x.tpot_p99_s = s.i_tpot.quantile(0.99);
  x.slo_attained = s.i_completed > 0 ? static_cast<double>(s.i_slo_met) / static_cast<double>(s.i_completed) : NaN;
  x.queue_length = static_cast<std::int64_t>(s.queue.size());
  x.replicas_up = replicas_up(s);
  x.replicas_wanted = replicas_wanted(s);
  x.busy_fraction = s.i_up_s > 0 ? s.i_busy_s / s.i_up_s : 0.0;
  if (sink_) sink_->sample(x);
  s.i_e2e.clear();
  s.i_ttft.clear();
  s.i_tpot.clear();
  s.i_arrived = s.i_completed = s.i_slo_met = 0;
  s.i_busy_s = s.i_up_s = 0;
}

void ServingController::on_interval(std::uint64_t) {
  const sim::SimTime now = engine_.now();
  for (auto& sp : services_) {
    pull(*sp, now, true);
    close_interval(*sp, interval_start_, now);
  }
  interval_start_ = now;
  // Arrivals that came exactly now may start a batch (pulled above only up to before now).
  for (auto& sp : services_) dispatch(*sp);
  if (now + interval_ < scenario_.horizon) act_at<&ServingController::on_interval>(now + interval_, this);
}

std::vector<std::uint64_t> ServingController::refused() const {
  std::vector<std::uint64_t> out;
  for (const auto& s : services_) out.push_back(s->refused);
  return out;
}

void ServingController::finish(RunSummary&) {
  const sim::SimTime end = cluster_.end_time();
  totals_.clear();
  for (auto& sp : services_) {
    Service& s = *sp;
    pull(s, end);
    if (end > interval_start_ && interval_ > sim::SimTime::zero()) close_interval(s, interval_start_, end);
    serving::ServiceTotals t;
    t.service = s.index;
    t.name = s.spec->name;
    t.team = s.spec->team;
    t.model = s.spec->model;
    t.arrived = s.arrived;
    t.completed = s.completed;
    t.unfinished = s.queue.size();
    for (const Replica& r : s.replicas) t.unfinished += r.batch.size();
    t.refused = s.refused;
    t.e2e_mean_s = s.e2e.mean();
    t.e2e_p50_s = s.e2e.quantile(0.5);
    t.e2e_p95_s = s.e2e.quantile(0.95);
    t.e2e_p99_s = s.e2e.quantile(0.99);
    t.wait_mean_s = s.completed > 0 ? s.wait_sum_s / static_cast<double>(s.completed) : NaN;
    t.ttft_p50_s = s.ttft.quantile(0.5);
    t.ttft_p95_s = s.ttft.quantile(0.95);
    t.ttft_p99_s = s.ttft.quantile(0.99);
    t.tpot_p50_s = s.tpot.quantile(0.5);
    t.tpot_p95_s = s.tpot.quantile(0.95);
    t.tpot_p99_s = s.tpot.quantile(0.99);
    t.slo_p99_s = s.spec->slo.p99_s;
    t.slo_ttft_p99_s = s.spec->slo.ttft_p99_s;
    t.slo_tpot_p99_s = s.spec->slo.tpot_p99_s;
    t.slo_attained = s.completed > 0 ? static_cast<double>(s.slo_met) / static_cast<double>(s.completed) : NaN;
    t.prompt_tokens = s.prompt_tokens;
    t.output_tokens = s.output_tokens;
    for (std::uint32_t id : s.jobs) {
      const Job& j = cluster_.jobs()[id];
      double held = j.held_gpu_s;
      if (j.status == JobStatus::Running) held += (end - j.run_start).seconds() * j.gpu_share_held();
      t.replica_gpu_s += held;
      if (costs_) t.cost_usd += costs_->job_cost_usd(id);
    }
    t.replicas_max = s.replicas_max;
    t.cold_starts = s.cold_starts;
    t.cold_start_s = s.cold_start_s;
    for (const Replica& r : s.replicas)
      if (r.state == State::Cold) t.cold_start_s += (end - r.cold_since).seconds();
    if (sink_) sink_->totals(t);
    totals_.push_back(std::move(t));
  }
}

}  // namespace gcsim::models
