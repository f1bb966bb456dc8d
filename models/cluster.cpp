// The cluster model (see cluster.hpp). Event priorities at one instant: arrivals and
// finishes first (0), then one scheduling pass (10) that sees all of them, then the end of
// the run (20), so a job finishing exactly at the horizon counts as completed.
#include "models/cluster.hpp"

#include <algorithm>
#include <cassert>

#include "models/workload/job_speed.hpp"

namespace gcsim::models {

namespace {
constexpr int PRIORITY_STATE = 0;
constexpr int PRIORITY_SCHEDULE = 10;
constexpr int PRIORITY_END = 20;
}  // namespace

Cluster::Cluster(sim::Engine& engine, const Scenario& scenario, std::vector<Job> jobs,
                 std::unique_ptr<Scheduler> policy)
    : engine_(engine), scenario_(scenario), jobs_(std::move(jobs)), policy_(std::move(policy)) {
  for (std::size_t t = 0; t < scenario.cluster.node_types.size(); ++t) {
    const auto& nt = scenario.cluster.node_types[t];
    types_.push_back(NodeTypeView{nt.gpus, nt.count, static_cast<std::uint32_t>(nodes_.size()),
                                  nt.price.on_demand_usd_per_hour / nt.gpus});
    for (int i = 0; i < nt.count; ++i) {
      nodes_.push_back(NodeState{static_cast<std::uint16_t>(t), nt.gpus, 0});
      view_nodes_.push_back(NodeView{static_cast<std::uint16_t>(t), nt.gpus});
    }
    total_gpus_ += nt.gpus * nt.count;
  }
  queue_.reserve(1024);
  placed_.reserve(1024);
}

void Cluster::start() {
  if (!jobs_.empty()) engine_.schedule_at<&Cluster::on_arrival>(jobs_[0].submit, this, 0, PRIORITY_STATE);
  end_event_ = engine_.schedule_at<&Cluster::on_end>(scenario_.horizon, this, 0, PRIORITY_END);
}

void Cluster::on_arrival(std::uint64_t id) {
  Job& j = jobs_[id];
  j.status = JobStatus::Queued;
  queue_.push_back(QueuedJob{j.id, j.gpus, j.submit, j.eligible_types});
  job_submitted.emit(j);
  // One arrival event is pending at a time: the next job's is scheduled from this one, so
  // a million-job workload does not fill the event queue up front.
  next_arrival_ = id + 1;
  if (next_arrival_ < jobs_.size()) {
    const sim::SimTime t = jobs_[next_arrival_].submit;
    if (t <= scenario_.horizon) engine_.schedule_at<&Cluster::on_arrival>(t, this, next_arrival_, PRIORITY_STATE);
  }
  request_schedule();
}

void Cluster::request_schedule() {
  if (schedule_pending_) return;
  schedule_pending_ = true;
  engine_.schedule_at<&Cluster::on_schedule>(engine_.now(), this, 0, PRIORITY_SCHEDULE);
}

void Cluster::on_schedule(std::uint64_t) {
  schedule_pending_ = false;
  if (queue_.empty()) return;
  const ClusterView view{engine_.now(), types_, view_nodes_};
  decisions_.clear();
  policy_->schedule(view, queue_, decisions_);
  if (decisions_.placements.empty()) return;
  placed_.assign(queue_.size(), 0);
  for (const Placement& p : decisions_.placements) {
    assert(p.queue_index < queue_.size() && !placed_[p.queue_index]);
    placed_[p.queue_index] = 1;
    start_job(jobs_[queue_[p.queue_index].job], p, decisions_);
  }
  std::size_t w = 0;
  for (std::size_t r = 0; r < queue_.size(); ++r)
    if (!placed_[r]) queue_[w++] = queue_[r];
  queue_.resize(w);
}

double Cluster::nominal_rate(Job& j, int node_type) const {
  const NodeTypeSpec& type = scenario_.cluster.node_types[static_cast<std::size_t>(node_type)];
  if (j.training) {
    const StepEstimate e = estimate_step(*j.training, hardware_context(type, j.gpus, *j.training, scenario_.storage));
    j.samples_per_s = e.samples_per_s;
    j.step_s = e.step_s;
    j.bottleneck = static_cast<int>(e.bottleneck);
    return e.samples_per_s;
  }
  if (j.has_duration) return 1.0;
  return j.gpus * type.gpu.peak_flop_per_s(j.precision) * j.efficiency;
}

void Cluster::schedule_finish(Job& j) {
  const double remaining_s = std::max(0.0, j.work_total - j.work_done) / j.rate;
  // A duration job's remaining time is an exact number of nanoseconds: keep it exact.
  const sim::SimTime left = j.has_duration && j.work_done == 0 ? j.duration : sim::SimTime::from_seconds(remaining_s);
  // Progress starts at progress_at, which is in the future while a job stages its data.
  const sim::SimTime from = std::max(engine_.now(), j.progress_at);
  j.finish_event = engine_.schedule_at<&Cluster::on_finish>(from.saturating_add(std::max(left, sim::SimTime::zero())),
                                                            this, j.id, PRIORITY_STATE);
}

void Cluster::accrue(Job& j) {
  const sim::SimTime now = engine_.now();
  if (now <= j.progress_at) return;  // not progressing yet (staging) or already up to date
  j.work_done = std::min(j.work_total, j.work_done + j.rate * (now - j.progress_at).seconds());
  j.progress_at = now;
}

void Cluster::set_rate(std::uint32_t id, double units_per_s) {
  Job& j = jobs_[id];
  assert(j.status == JobStatus::Running && units_per_s > 0);
  accrue(j);
  j.rate = units_per_s;
  engine_.cancel(j.finish_event);
  schedule_finish(j);
}

void Cluster::set_model_speed(std::uint32_t id, double samples_per_s, double step_s, int bottleneck) {
  Job& j = jobs_[id];
  j.samples_per_s = samples_per_s;
  j.step_s = step_s;
  j.bottleneck = bottleneck;
  if (samples_per_s != j.rate) set_rate(id, samples_per_s);
}

void Cluster::delay_progress(std::uint32_t id, sim::SimTime delay) {
  Job& j = jobs_[id];
  assert(j.status == JobStatus::Running && !j.driven && delay >= sim::SimTime::zero());
  accrue(j);
  j.progress_at = std::max(engine_.now(), j.progress_at) + delay;
  engine_.cancel(j.finish_event);
  schedule_finish(j);
}

void Cluster::hold_progress_until(std::uint32_t id, sim::SimTime at) {
  Job& j = jobs_[id];
  assert(j.status == JobStatus::Running && !j.driven && at >= engine_.now());
  accrue(j);
  j.progress_at = at;
  engine_.cancel(j.finish_event);
  schedule_finish(j);
}

void Cluster::start_job(Job& j, const Placement& p, const Decisions& d) {
  j.status = JobStatus::Running;
  j.start = engine_.now();
  j.node_type = p.node_type;
  j.gpus_per_node_held = p.gpus_per_node;
  j.nodes_offset = static_cast<std::uint32_t>(held_nodes_.size());
  j.nodes_count = p.count;
  j.gpu_mask = 0;
  for (std::uint32_t i = 0; i < p.count; ++i) {
    const std::uint32_t n = d.nodes[p.first + i];
    NodeState& node = nodes_[n];
    assert(view_nodes_[n].gpus_free >= p.gpus_per_node);
    view_nodes_[n].gpus_free -= p.gpus_per_node;
    // The lowest free GPUs; whole-node jobs take them all, so the mask is the same on every node.
    std::uint64_t mask = 0;
    for (int g = 0, taken = 0; taken < p.gpus_per_node; ++g)
      if (!(node.busy_mask >> g & 1)) {
        mask |= std::uint64_t{1} << g;
        ++taken;
      }
    node.busy_mask |= mask;
    j.gpu_mask = mask;
    held_nodes_.push_back(n);
  }
  allocated_gpus_ += j.gpus_held();
  ++running_;
  j.work_total = j.training ? j.training->total_samples : j.has_duration ? j.duration.seconds() : j.work_flop;
  j.progress_at = j.start;
  j.rate = nominal_rate(j, p.node_type);
  j.driven = j.comm != nullptr;
  if (!j.driven) schedule_finish(j);
  job_started.emit(j);
}

void Cluster::finish_job(std::uint32_t id) {
  assert(jobs_[id].driven && jobs_[id].status == JobStatus::Running);
  on_finish(id);
}

void Cluster::on_finish(std::uint64_t id) {
  Job& j = jobs_[id];
  j.status = JobStatus::Completed;
  j.end = engine_.now();
  j.work_done = j.work_total;
  j.progress_at = j.end;
  for (std::uint32_t n : nodes_of(j)) {
    view_nodes_[n].gpus_free += j.gpus_per_node_held;
    nodes_[n].busy_mask &= ~j.gpu_mask;
  }
  allocated_gpus_ -= j.gpus_held();
  --running_;
  job_finished.emit(j);
  if (scenario_.run_until == RunUntil::Done && running_ == 0 && queue_.empty() && next_arrival_ >= jobs_.size()) {
    engine_.cancel(end_event_);
    end_event_ = engine_.schedule_at<&Cluster::on_end>(engine_.now(), this, 0, PRIORITY_END);
    return;
  }
  request_schedule();
}

void Cluster::on_end(std::uint64_t) {
  ended_ = true;
  end_time_ = engine_.now();
  for (Job& j : jobs_) {
    if (j.status == JobStatus::Queued || j.status == JobStatus::Future) j.status = JobStatus::NeverStarted;
  }
  run_ended.emit(end_time_);
  engine_.stop();
}

}  // namespace gcsim::models
