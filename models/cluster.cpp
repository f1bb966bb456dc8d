// The cluster model (see cluster.hpp). Event priorities at one instant (event_priorities.hpp):
// arrivals and finishes first, then controllers, then one scheduling pass that sees all of
// them, then the end of the run, so a job finishing exactly at the horizon counts as
// completed. Every transition checks the state it starts from, in every build
// (sim/check.hpp): an invalid decision or a second stop of a run is an InternalError, not
// a corrupted count.
#include "models/cluster.hpp"

#include <algorithm>
#include <bit>

#include "models/event_priorities.hpp"
#include "models/scheduler/placement.hpp"
#include "models/workload/checkpoint_interval.hpp"
#include "models/workload/job_speed.hpp"
#include "sim/check.hpp"

namespace gcsim::models {

namespace {
constexpr std::uint32_t NO_JOB = 0xffffffffu;
// Work within this of the total counts as done (float noise of rate x time).
constexpr double DONE_TOLERANCE = 1e-9;
}  // namespace

Cluster::Cluster(sim::Engine& engine, const Scenario& scenario, std::vector<Job> jobs,
                 std::unique_ptr<Scheduler> policy)
    : engine_(engine), scenario_(scenario), jobs_(std::move(jobs)), policy_(std::move(policy)),
      types_(node_type_views(scenario.cluster)) {
  for (std::size_t t = 0; t < scenario.cluster.node_types.size(); ++t) {
    const auto& nt = scenario.cluster.node_types[t];
    for (int i = 0; i < nt.count; ++i) {
      NodeState node;
      node.type = static_cast<std::uint16_t>(t);
      node.gpus = nt.gpus;
      node.first_gpu = static_cast<std::uint32_t>(total_gpus_ + nt.gpus * i);
      nodes_.push_back(node);
      view_nodes_.push_back(NodeView{static_cast<std::uint16_t>(t), nt.gpus});
    }
    total_gpus_ += nt.gpus * nt.count;
  }
  up_gpus_ = total_gpus_;
  gpu_job_.assign(static_cast<std::size_t>(total_gpus_), NO_JOB);
  held_teams_.assign(scenario.workload.teams.size(), 0);
  queue_.reserve(1024);
  placed_.reserve(1024);
  scratch_jobs_.reserve(64);
}

void Cluster::start() {
  if (!jobs_.empty()) engine_.schedule_at<&Cluster::on_arrival>(jobs_[0].submit, this, 0, PRIORITY_STATE);
  end_event_ = engine_.schedule_at<&Cluster::on_end>(scenario_.horizon, this, 0, PRIORITY_END);
}

void Cluster::on_arrival(std::uint64_t id) {
  Job& j = jobs_[id];
  j.status = JobStatus::Queued;
  if (team_held(j.team)) held_.push_back(QueuedJob{j.id, j.gpus, j.submit, j.eligible_types});
  else queue_.push_back(QueuedJob{j.id, j.gpus, j.submit, j.eligible_types});
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
    GCSIM_CHECK(p.queue_index < queue_.size(), "the policy placed queue entry " + std::to_string(p.queue_index) +
                                                   " of a queue of " + std::to_string(queue_.size()));
    GCSIM_CHECK(!placed_[p.queue_index],
                "the policy placed job '" + jobs_[queue_[p.queue_index].job].name + "' twice in one pass");
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
  const double dt = (now - j.progress_at).seconds();
  j.work_done = std::min(j.work_total, j.work_done + j.rate * dt);
  j.progress_s += dt;
  j.progress_at = now;
}

void Cluster::check_running(const Job& j, const char* what) const {
  GCSIM_CHECK(j.status == JobStatus::Running, std::string(what) + ": job '" + j.name + "' is not running (status " +
                                                  std::to_string(static_cast<int>(j.status)) + ")");
}

void Cluster::set_rate(std::uint32_t id, double units_per_s) {
  GCSIM_CHECK(id < jobs_.size(), "set_rate: no job " + std::to_string(id));
  Job& j = jobs_[id];
  check_running(j, "set_rate");
  GCSIM_CHECK(units_per_s > 0, "set_rate: job '" + j.name + "' given a rate of " + std::to_string(units_per_s));
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
  GCSIM_CHECK(id < jobs_.size(), "delay_progress: no job " + std::to_string(id));
  Job& j = jobs_[id];
  check_running(j, "delay_progress");
  GCSIM_CHECK(!j.driven && delay >= sim::SimTime::zero(),
              "delay_progress: job '" + j.name + "' is driven or the delay is negative");
  accrue(j);
  j.progress_at = std::max(engine_.now(), j.progress_at) + delay;
  engine_.cancel(j.finish_event);
  schedule_finish(j);
}

void Cluster::hold_progress_until(std::uint32_t id, sim::SimTime at) {
  GCSIM_CHECK(id < jobs_.size(), "hold_progress_until: no job " + std::to_string(id));
  Job& j = jobs_[id];
  check_running(j, "hold_progress_until");
  GCSIM_CHECK(!j.driven && at >= engine_.now(),
              "hold_progress_until: job '" + j.name + "' is driven or the time is past");
  accrue(j);
  j.progress_at = at;
  engine_.cancel(j.finish_event);
  schedule_finish(j);
}

void Cluster::check_placement(const Job& j, const Placement& p, const Decisions& d) const {
  // Messages are built only when a check fails: this runs at every start.
  auto who = [&] { return "the policy's placement of job '" + j.name + "'"; };
  GCSIM_CHECK(j.status == JobStatus::Queued, who() + ": the job is not queued");
  GCSIM_CHECK(p.node_type >= 0 && p.node_type < 64 && static_cast<std::size_t>(p.node_type) < types_.size(),
              who() + ": no node type " + std::to_string(p.node_type));
  GCSIM_CHECK(j.eligible_types >> p.node_type & 1,
              who() + ": the job cannot run on node type " + std::to_string(p.node_type));
  GCSIM_CHECK(p.count >= 1 && p.first <= d.nodes.size() && p.count <= d.nodes.size() - p.first,
              who() + ": nodes [" + std::to_string(p.first) + ", +" + std::to_string(p.count) + ") of a list of " +
                  std::to_string(d.nodes.size()));
  GCSIM_CHECK(p.gpus_per_node >= 1 && static_cast<long>(p.gpus_per_node) * p.count >= j.gpus,
              who() + ": " + std::to_string(p.count) + " x " + std::to_string(p.gpus_per_node) +
                  " GPUs for a job of " + std::to_string(j.gpus));
  for (std::uint32_t i = 0; i < p.count; ++i) {
    const std::uint32_t n = d.nodes[p.first + i];
    GCSIM_CHECK(n < nodes_.size(), who() + ": no node " + std::to_string(n));
    GCSIM_CHECK(nodes_[n].type == p.node_type, who() + ": node " + std::to_string(n) + " is not of the type it names");
    GCSIM_CHECK(view_nodes_[n].gpus_free >= p.gpus_per_node,
                who() + ": node " + std::to_string(n) + " has " + std::to_string(view_nodes_[n].gpus_free) +
                    " GPUs free (down and noticed nodes have none), not " + std::to_string(p.gpus_per_node));
  }
}

void Cluster::start_job(Job& j, const Placement& p, const Decisions& d) {
  check_placement(j, p, d);
  const bool restart = j.started_once;
  j.status = JobStatus::Running;
  j.run_start = engine_.now();
  if (!restart) j.start = j.run_start;
  j.started_once = true;
  ++j.incarnation;
  j.noticed = false;
  j.stopping = false;
  j.node_type = p.node_type;
  j.gpus_per_node_held = p.gpus_per_node;
  j.nodes_offset = static_cast<std::uint32_t>(held_nodes_.size());
  j.nodes_count = p.count;
  j.gpu_mask = 0;
  for (std::uint32_t i = 0; i < p.count; ++i) {
    const std::uint32_t n = d.nodes[p.first + i];
    NodeState& node = nodes_[n];
    // Checked again here: the same node listed twice in one placement passes check_placement.
    GCSIM_CHECK(view_nodes_[n].gpus_free >= p.gpus_per_node,
                "the policy's placement of job '" + j.name + "' takes node " + std::to_string(n) + " twice");
    // The lowest free GPUs; whole-node jobs take them all, so the mask is the same on every node.
    std::uint64_t mask = 0;
    for (int g = 0, taken = 0; taken < p.gpus_per_node; ++g)
      if (!(node.busy_mask >> g & 1)) {
        mask |= std::uint64_t{1} << g;
        ++taken;
      }
    node.busy_mask |= mask;
    for (int g = 0; g < node.gpus; ++g)
      if (mask >> g & 1) gpu_job_[node.first_gpu + static_cast<std::uint32_t>(g)] = j.id;
    refresh_view(n);
    j.gpu_mask = mask;
    held_nodes_.push_back(n);
  }
  allocated_gpus_ += j.gpus_held();
  ++running_;
  j.work_total = j.training ? j.training->total_samples : j.has_duration ? j.duration.seconds() : j.work_flop;
  // A restart resumes from its last checkpoint, after restoring it; every start pulls the
  // container image first.
  j.work_done = j.ckpt_work;
  j.run_start_work = j.work_done;
  j.progress_s = 0;
  sim::SimTime overhead = j.image_pull;
  if (restart && j.checkpoint && j.ckpt_work > 0) overhead += j.checkpoint->restore_time;
  j.restart_gpu_s += overhead.seconds() * j.gpus_held();
  j.overhead_until = j.run_start + overhead;
  j.write_until = sim::SimTime::zero();
  j.progress_at = j.run_start + overhead;
  j.rate = nominal_rate(j, p.node_type);
  j.driven = j.comm != nullptr;
  if (!j.driven) {
    schedule_finish(j);
    schedule_checkpoint(j);
  }
  job_started.emit(j);
  if (restart && j.checkpoint && j.ckpt_work > 0) restore_started.emit(j);
}

void Cluster::refresh_view(std::uint32_t n) {
  const NodeState& node = nodes_[n];
  view_nodes_[n].gpus_free = node.up && !node.noticed ? node.gpus - std::popcount(node.busy_mask) : 0;
}

void Cluster::release_nodes(Job& j) {
  const double run_s = (engine_.now() - j.run_start).seconds();
  for (std::uint32_t n : nodes_of(j)) {
    NodeState& node = nodes_[n];
    // A run releases its GPUs once: a second release would count them free twice.
    const std::uint32_t lowest = node.first_gpu + static_cast<std::uint32_t>(std::countr_zero(j.gpu_mask));
    GCSIM_CHECK((node.busy_mask & j.gpu_mask) == j.gpu_mask && gpu_job_[lowest] == j.id,
                "job '" + j.name + "' releases GPUs of node " + std::to_string(n) + " it does not hold");
    node.busy_gpu_s += run_s * j.gpus_per_node_held;
    node.busy_mask &= ~j.gpu_mask;
    for (int g = 0; g < node.gpus; ++g)
      if (j.gpu_mask >> g & 1) gpu_job_[node.first_gpu + static_cast<std::uint32_t>(g)] = NO_JOB;
    refresh_view(n);
  }
  allocated_gpus_ -= j.gpus_held();
  GCSIM_CHECK(allocated_gpus_ >= 0 && running_ > 0, "job '" + j.name + "': more GPUs or runs released than taken");
  --running_;
  j.held_gpu_s += run_s * j.gpus_held();
}

template <class F>
void Cluster::for_each_job_on(std::uint32_t n, F&& f) {
  // The jobs on a node, each once, in GPU order; collected first because f may release them.
  // The list is taken out of scratch_jobs_ while f runs, so that a call made from inside f
  // (through a signal) gets a list of its own instead of overwriting this one.
  const NodeState& node = nodes_[n];
  std::vector<std::uint32_t> ids = std::move(scratch_jobs_);
  ids.clear();
  for (int g = 0; g < node.gpus; ++g) {
    const std::uint32_t id = gpu_job_[node.first_gpu + static_cast<std::uint32_t>(g)];
    if (id != NO_JOB && std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  for (std::uint32_t id : ids) f(jobs_[id]);
  scratch_jobs_ = std::move(ids);
}

// ---- Checkpoints ----

void Cluster::schedule_checkpoint(Job& j) {
  if (!j.checkpoint) return;
  const CheckpointSpec& c = *j.checkpoint;
  if (c.optimal) {
    // Young/Daly for the pool it runs on: its nodes' interruption rates add up.
    const double rate = scenario_.cluster.node_types[static_cast<std::size_t>(j.node_type)].interruption_rate_per_s *
                        static_cast<double>(j.nodes_count);
    // At least a second: a free (zero-time) write would otherwise ask for checkpoints
    // without end at one instant.
    j.ckpt_every = rate > 0 ? std::max(sim::seconds(1), sim::SimTime::from_seconds(
                                                           daly_interval_s(c.write_time.seconds(), 1.0 / rate)))
                            : sim::SimTime::max();
  } else {
    j.ckpt_every = c.every;
  }
  if (j.ckpt_every.is_max()) return;
  j.ckpt_due_s = j.progress_s + j.ckpt_every.seconds();
  engine_.schedule_at<&Cluster::on_checkpoint>(std::max(engine_.now(), j.progress_at).saturating_add(j.ckpt_every),
                                               this, event_arg(j), PRIORITY_STATE);
}

Job* Cluster::live(std::uint64_t arg) {
  Job& j = jobs_[arg >> 32];
  if (j.status != JobStatus::Running || j.incarnation != static_cast<std::uint32_t>(arg)) return nullptr;
  return &j;
}

void Cluster::on_checkpoint(std::uint64_t arg) {
  Job* jp = live(arg);
  if (!jp || jp->stopping) return;
  Job& j = *jp;
  accrue(j);
  if (j.work_done >= j.work_total * (1 - DONE_TOLERANCE)) return;  // finishing now: nothing to save
  // Progress was delayed (staging, contention, an earlier pause): come back when due.
  const double short_s = j.ckpt_due_s - j.progress_s;
  if (short_s > 1e-9) {
    engine_.schedule_at<&Cluster::on_checkpoint>(
        std::max(engine_.now(), j.progress_at) + sim::SimTime::from_seconds(short_s), this, arg, PRIORITY_STATE);
    return;
  }
  const CheckpointSpec& c = *j.checkpoint;
  j.pending_ckpt_work = j.work_done;
  j.ckpt_due_s = j.progress_s + j.ckpt_every.seconds();
  if (c.pause) {
    delay_progress(j.id, c.write_time);
    j.checkpoint_gpu_s += c.write_time.seconds() * j.gpus_held();
    j.write_until = engine_.now() + c.write_time;
  }
  j.ckpt_done_at = engine_.now() + c.write_time;
  j.ckpt_event = engine_.schedule_at<&Cluster::on_checkpoint_done>(j.ckpt_done_at, this, arg, PRIORITY_STATE);
  if (!c.tier.empty()) checkpoint_started.emit(j);
}

void Cluster::move_checkpoint_write(std::uint32_t id, sim::SimTime done_at) {
  GCSIM_CHECK(id < jobs_.size(), "move_checkpoint_write: no job " + std::to_string(id));
  Job& j = jobs_[id];
  check_running(j, "move_checkpoint_write");
  GCSIM_CHECK(j.checkpoint && done_at >= engine_.now(),
              "move_checkpoint_write: job '" + j.name + "' has no checkpoints or the time is past");
  if (done_at == j.ckpt_done_at) return;
  const double gpus = j.gpus_held();
  if (j.stopping) {
    // A last checkpoint: progress stays stopped until the run ends either way.
    j.checkpoint_gpu_s += (done_at - j.last_ckpt_done_at).seconds() * gpus;
    j.last_ckpt_done_at = done_at;
    j.write_until = done_at;
    engine_.cancel(j.ckpt_event);
    j.ckpt_event = engine_.schedule_at<&Cluster::on_last_checkpoint_done>(done_at, this, event_arg(j), PRIORITY_STATE);
  } else {
    if (j.checkpoint->pause) {
      j.checkpoint_gpu_s += (done_at - j.ckpt_done_at).seconds() * gpus;
      j.write_until = done_at;
      hold_progress_until(id, done_at);
    }
    engine_.cancel(j.ckpt_event);
    j.ckpt_event = engine_.schedule_at<&Cluster::on_checkpoint_done>(done_at, this, event_arg(j), PRIORITY_STATE);
  }
  j.ckpt_done_at = done_at;
}

void Cluster::on_checkpoint_done(std::uint64_t arg) {
  Job* jp = live(arg);
  if (!jp || jp->stopping) return;
  Job& j = *jp;
  j.ckpt_work = j.pending_ckpt_work;
  ++j.checkpoints;
  checkpoint_written.emit(j);
  accrue(j);
  const double wait_s = std::max(0.0, j.ckpt_due_s - j.progress_s);
  engine_.schedule_at<&Cluster::on_checkpoint>(std::max(engine_.now(), j.progress_at) + sim::SimTime::from_seconds(wait_s),
                                               this, arg, PRIORITY_STATE);
}

// Writes a checkpoint of the work done now and stops progress; at stop_at (the node goes,
// or a budget stop) the job's run ends. The write must fit before stop_at.
void Cluster::begin_last_checkpoint(Job& j, sim::SimTime stop_at) {
  accrue(j);
  j.stopping = true;
  j.pending_ckpt_work = j.work_done;
  const sim::SimTime now = engine_.now();
  // No progress from now on: the run ends at stop_at.
  j.progress_at = std::max(now, j.progress_at);
  delay_progress(j.id, std::max(stop_at, j.progress_at) - j.progress_at + sim::SimTime::from_ns(1));
  // The write, and the wait after it until the run ends, are checkpoint time (stop_job
  // adds the wait); a regular write this one cuts short counts only to now.
  if (j.write_until > now) j.checkpoint_gpu_s -= (j.write_until - now).seconds() * j.gpus_held();
  j.checkpoint_gpu_s += j.checkpoint->write_time.seconds() * j.gpus_held();
  j.last_ckpt_done_at = now + j.checkpoint->write_time;
  j.write_until = j.last_ckpt_done_at;
  j.ckpt_done_at = j.last_ckpt_done_at;
  engine_.cancel(j.ckpt_event);  // a regular write in progress is abandoned
  j.ckpt_event = engine_.schedule_at<&Cluster::on_last_checkpoint_done>(j.last_ckpt_done_at, this, event_arg(j),
                                                                        PRIORITY_STATE);
  if (!j.checkpoint->tier.empty()) checkpoint_started.emit(j);
}

void Cluster::on_last_checkpoint_done(std::uint64_t arg) {
  if (Job* j = live(arg)) commit_last_checkpoint(*j);
}

void Cluster::commit_last_checkpoint(Job& j) {
  if (!j.stopping || j.ckpt_work == j.pending_ckpt_work) return;
  j.ckpt_work = j.pending_ckpt_work;
  ++j.checkpoints;
  checkpoint_written.emit(j);
}

// ---- Interruptions ----

void Cluster::stop_job(Job& j) {
  // A run ends once: stopping a job that is not running would release its GPUs, count an
  // interruption and bill the run a second time (a budget reacting inside a signal did).
  check_running(j, "stop_job");
  accrue(j);
  // A last checkpoint that completes at this very instant counts.
  if (j.stopping && engine_.now() >= j.last_ckpt_done_at) commit_last_checkpoint(j);
  // Overheads were counted whole when they began: a run that ends during one counts only
  // the part it spent; after a last checkpoint, the wait for the node to go counts as
  // checkpoint time (the GPUs are held, making no progress, because of the interruption).
  const sim::SimTime now = engine_.now();
  if (j.overhead_until > now) j.restart_gpu_s -= (j.overhead_until - now).seconds() * j.gpus_held();
  if (j.write_until > now) j.checkpoint_gpu_s -= (j.write_until - now).seconds() * j.gpus_held();
  if (j.stopping && now > j.last_ckpt_done_at) j.checkpoint_gpu_s += (now - j.last_ckpt_done_at).seconds() * j.gpus_held();
  if (!j.driven) engine_.cancel(j.finish_event);
  // Work past the last committed checkpoint is lost; a job without checkpoints loses all.
  double saved = j.checkpoint ? std::min(j.ckpt_work, j.work_done) : 0.0;
  // A checkpoint on the node's own NVMe does not outlive the run: the next one starts
  // elsewhere (or on a replacement) without it.
  if (j.checkpoint && !j.checkpoint->tier.empty() && scenario_.storage &&
      scenario_.storage->find(j.checkpoint->tier)->kind == TierKind::LocalNvme)
    saved = 0;
  j.stopped_work = j.work_done;
  if (j.driven) {
    // Network-driven steps are not checkpointed: the whole run is redone.
    const double run_s = (engine_.now() - j.run_start).seconds();
    j.lost_work += run_s;
    j.lost_gpu_s += run_s * j.gpus_held();
  } else {
    const double lost = j.work_done - saved;
    j.lost_work += lost;
    if (j.rate > 0) j.lost_gpu_s += lost / j.rate * j.gpus_held();
  }
  j.work_done = saved;
  j.ckpt_work = saved;
  release_nodes(j);
  j.status = JobStatus::Queued;
  ++j.incarnation;
  ++j.interruptions;
  j.noticed = false;
  j.stopping = false;
  job_stopped.emit(j);
  enqueue(j);
  request_schedule();
}

void Cluster::enqueue(const Job& j) {
  std::vector<QueuedJob>& q = team_held(j.team) ? held_ : queue_;
  const QueuedJob entry{j.id, j.gpus, j.submit, j.eligible_types};
  // Back in its submit-order place: a requeued job keeps its priority.
  auto at = std::upper_bound(q.begin(), q.end(), entry, [](const QueuedJob& a, const QueuedJob& b) {
    return a.submit < b.submit || (a.submit == b.submit && a.job < b.job);
  });
  q.insert(at, entry);
}

void Cluster::notice(std::uint32_t n, sim::SimTime down_at) {
  NodeState& node = nodes_[n];
  if (!node.up || node.noticed) return;
  node.noticed = true;
  node.down_at = down_at;
  refresh_view(n);
  node_noticed.emit(n, down_at);
  const sim::SimTime now = engine_.now();
  for_each_job_on(n, [&](Job& j) {
    if (j.noticed) return;
    j.noticed = true;
    if (!j.checkpoint || j.driven || j.stopping) return;
    accrue(j);
    // A job that finishes before the node goes just finishes.
    const double left_s = std::max(0.0, j.work_total - j.work_done) / j.rate;
    if (std::max(now, j.progress_at) + sim::SimTime::from_seconds(left_s) <= down_at) return;
    // Still restoring or pulling: there is nothing new to save yet.
    if (j.progress_at > now && j.work_done <= j.ckpt_work) return;
    if (now + j.checkpoint->write_time <= down_at) begin_last_checkpoint(j, down_at);
  });
}

void Cluster::down(std::uint32_t n) {
  NodeState& node = nodes_[n];
  if (!node.up) return;
  // Re-checked for each job: an observer of an earlier job's stop may have stopped (or,
  // through a controller misusing a signal, otherwise moved) a later one already.
  for_each_job_on(n, [&](Job& j) {
    if (j.status == JobStatus::Running) stop_job(j);
  });
  node.up = false;
  node.noticed = false;
  up_gpus_ -= node.gpus;
  refresh_view(n);
  node_down.emit(n);
}

void Cluster::up(std::uint32_t n) {
  NodeState& node = nodes_[n];
  if (node.up) return;
  node.up = true;
  node.noticed = false;
  node.up_since = engine_.now();
  up_gpus_ += node.gpus;
  refresh_view(n);
  node_up.emit(n);
  request_schedule();
}

// ---- Budgets ----

void Cluster::hold_team(int team, bool stop_running) {
  if (team < 0) return;
  GCSIM_CHECK(static_cast<std::size_t>(team) < held_teams_.size(), "hold_team: no team " + std::to_string(team));
  held_teams_[static_cast<std::size_t>(team)] = 1;
  std::size_t w = 0;
  for (std::size_t r = 0; r < queue_.size(); ++r) {
    if (jobs_[queue_[r].job].team == team) held_.push_back(queue_[r]);
    else queue_[w++] = queue_[r];
  }
  queue_.resize(w);
  if (!stop_running) return;
  for (Job& j : jobs_) {
    if (j.team != team || j.status != JobStatus::Running || j.stopping) continue;
    // Stop after a checkpoint: write one now and end the run when it is done.
    if (j.checkpoint && !j.driven) {
      const sim::SimTime at = engine_.now() + j.checkpoint->write_time;
      begin_last_checkpoint(j, at);
      engine_.schedule_at<&Cluster::on_budget_stop>(at, this, event_arg(j), PRIORITY_BUDGET_STOP);
    } else {
      stop_job(j);
    }
  }
}

void Cluster::on_budget_stop(std::uint64_t arg) {
  Job* j = live(arg);
  if (!j) return;
  // The last checkpoint may take longer than alone when its tier is shared: wait for it.
  if (j->stopping && engine_.now() < j->last_ckpt_done_at) {
    engine_.schedule_at<&Cluster::on_budget_stop>(j->last_ckpt_done_at, this, arg, PRIORITY_BUDGET_STOP);
    return;
  }
  stop_job(*j);
}

void Cluster::release_team(int team) {
  if (team < 0 || !team_held(team)) return;
  held_teams_[static_cast<std::size_t>(team)] = 0;
  std::size_t w = 0;
  for (std::size_t r = 0; r < held_.size(); ++r) {
    if (jobs_[held_[r].job].team == team) enqueue(jobs_[held_[r].job]);
    else held_[w++] = held_[r];
  }
  held_.resize(w);
  request_schedule();
}

void Cluster::finish_job(std::uint32_t id) {
  GCSIM_CHECK(id < jobs_.size(), "finish_job: no job " + std::to_string(id));
  check_running(jobs_[id], "finish_job");
  GCSIM_CHECK(jobs_[id].driven, "finish_job: job '" + jobs_[id].name + "' is not driven; its own finish event ends it");
  on_finish(id);
}

void Cluster::on_finish(std::uint64_t id) {
  Job& j = jobs_[id];
  check_running(j, "finish");
  accrue(j);
  j.status = JobStatus::Completed;
  j.end = engine_.now();
  j.work_done = j.work_total;
  j.progress_at = j.end;
  ++j.incarnation;  // pending checkpoint events of this run are void
  release_nodes(j);
  job_finished.emit(j);
  if (scenario_.run_until == RunUntil::Done && running_ == 0 && queue_.empty() && held_.empty() &&
      next_arrival_ >= jobs_.size()) {
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
    if (j.status == JobStatus::Queued || j.status == JobStatus::Future)
      j.status = j.started_once ? JobStatus::Interrupted : JobStatus::NeverStarted;
  }
  run_ended.emit(end_time_);
  engine_.stop();
}

}  // namespace gcsim::models
