// The cluster façade and the job lifecycle (see cluster.hpp): arrivals, starts, progress,
// stops, finishes and the end of the run; scheduling passes are in scheduling.cpp, a
// market's node events in interruptions.cpp. Event priorities at one instant
// (core/event_priorities.hpp): arrivals and finishes first, then controllers, then one
// scheduling pass that sees all of them, then the end of the run, so a job finishing
// exactly at the horizon counts as completed. Every transition checks the state it starts
// from, in every build (sim/check.hpp): an invalid decision or a second stop of a run is
// an InternalError, not a corrupted count.
#include "models/cluster/cluster.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "models/core/event_priorities.hpp"
#include "models/scheduler/placement.hpp"
#include "sim/address_space.hpp"
#include "sim/check.hpp"

namespace gcsim::models {

namespace {

// Room for the waiting queue is reserved up front (address space only) where the address
// space is not limited: under `ulimit -v` a run the memory check let through must not
// fail on room it may never use, so the queue grows as it fills instead.
void reserve_queue(JobQueue& queue, std::size_t jobs) {
  if (sim::address_space_limit_bytes() == 0) queue.reserve(jobs);
}

}  // namespace

std::vector<NodeTypeView> node_type_views(const ClusterSpec& cluster) {
  std::vector<NodeTypeView> types;
  std::uint32_t first = 0, first_gpu = 0;
  for (const NodeTypeSpec& nt : cluster.node_types) {
    types.push_back(NodeTypeView{nt.gpus, nt.slots(), first, nt.price.on_demand_usd_per_hour / nt.gpus, nt.price.market,
                                 nt.price.usd_per_hour_at(sim::SimTime::zero()) / nt.gpus, first_gpu});
    first += static_cast<std::uint32_t>(nt.slots());
    first_gpu += static_cast<std::uint32_t>(nt.slots() * nt.gpus);
  }
  return types;
}

std::vector<std::uint32_t> node_groups(const ClusterSpec& cluster, const topology::NetworkSpec& network) {
  std::vector<std::uint32_t> group;
  if (network.fabric == topology::Fabric::Explicit) return group;
  std::uint32_t node = 0, port = 0;
  for (const NodeTypeSpec& nt : cluster.node_types)
    for (int i = 0; i < nt.slots(); ++i, ++node) {
      switch (network.fabric) {
        case topology::Fabric::LeafSpine:
          group.push_back(node / static_cast<std::uint32_t>(network.nodes_per_leaf));
          break;
        case topology::Fabric::FatTree:
          group.push_back(port / static_cast<std::uint32_t>(network.k / 2));
          port += static_cast<std::uint32_t>(nt.internals.nic_count);
          break;
        default:
          group.push_back(0);
          break;
      }
    }
  return group;
}

Cluster::Cluster(sim::Engine& engine, const Scenario& scenario, std::vector<Job> jobs,
                 std::unique_ptr<Scheduler> policy)
    : engine_(engine), scenario_(scenario), jobs_(std::move(jobs)), policy_(std::move(policy)),
      alloc_(scenario.cluster), queue_(scenario.workload.teams.size(), *policy_), checkpoints_(engine, scenario, *this),
      types_(node_type_views(scenario.cluster)) {
  if (scenario.network) node_group_ = node_groups(scenario.cluster, *scenario.network);
  shares_gpus_ = std::any_of(jobs_.begin(), jobs_.end(), [](const Job& j) { return j.shares_gpu(); });
  upfront_jobs_ = jobs_.size();
  running_pos_.assign(jobs_.size(), -1);
  reserve_queue(queue_, jobs_.size());  // under a saturated load most of them wait at once
  node_event_.resize(alloc_.nodes().size());
  // The market owns a spot type's slots; those beyond its count (an elastic pool's) start
  // released, as its market's do. The network gives every slot its NICs
  // (network::cluster_topology), so slots beyond the count work with it.
  placed_.reserve(1024);
  scratch_jobs_.reserve(64);
}

Cluster::Cluster(sim::Engine& engine, const Scenario& scenario, std::unique_ptr<JobSource> source,
                 std::unique_ptr<Scheduler> policy)
    : Cluster(engine, scenario, std::vector<Job>{}, std::move(policy)) {
  GCSIM_CHECK(source != nullptr, "a streamed cluster needs a job source");
  source_ = std::move(source);
  // Room for every job up front, so that taking one never moves the others (pages are
  // touched only as jobs are made); a workload too large for that grows as submit() does.
  constexpr std::size_t MOST_RESERVED = std::size_t{1} << 24;
  const std::size_t bound = std::min(source_->bound(), MOST_RESERVED);
  jobs_.reserve(bound);
  running_pos_.reserve(bound);
  reserve_queue(queue_, bound);  // under a saturated load most of them wait at once
}

bool Cluster::take_from_source() {
  if (source_ == nullptr) return false;
  Job j;
  if (!source_->next(j)) {
    source_.reset();
    return false;
  }
  if (j.submit > scenario_.horizon) {  // the cluster submits nothing after it: nor are the rest made
    jobs_not_made_ += 1 + source_->count_rest();
    source_.reset();
    return false;
  }
  GCSIM_CHECK(!j.training() && !j.comm() && !j.shares_gpu(),
              "job '" + j.name + "' is model-described, has comm or shares a GPU: it cannot be streamed");
  GCSIM_CHECK(jobs_.size() < std::size_t{0xffffffff}, "more than 4,294,967,294 jobs");
  const auto id = static_cast<std::uint32_t>(jobs_.size());
  j.id = id;
  const sim::SimTime at = j.submit;
  jobs_.push_back(std::move(j));
  jobs_ahead_.advance(jobs_.data(), jobs_.size() * sizeof(Job), jobs_.capacity() * sizeof(Job));
  running_pos_.push_back(-1);
  engine_.schedule_at<&Cluster::on_streamed_arrival>(at, this, id, PRIORITY_STATE);
  return true;
}

void Cluster::on_streamed_arrival(std::uint64_t id) {
  arrive(jobs_[id]);
  lost_preemptions_ = 0;
  progress_at_ = engine_.now();
  // One arrival pending at a time, as for jobs given up front: the next is taken now.
  take_from_source();
  request_schedule();
}

void Cluster::start() {
  if (!jobs_.empty()) engine_.schedule_at<&Cluster::on_arrival>(jobs_[0].submit, this, 0, PRIORITY_STATE);
  take_from_source();
  end_event_ = engine_.schedule_at<&Cluster::on_end>(scenario_.horizon, this, 0, PRIORITY_END);
}

QueuedJob Cluster::queue_entry(const Job& j) const {
  QueuedJob q{j.id, j.gpus, j.submit, j.eligible_types, j.gpu_milli};
  q.team = j.team;
  q.priority = j.priority;
  q.waiting_since = engine_.now();
  q.restarts = j.interruptions();
  q.attained_gpu_s = j.held_gpu_s;
  // A waiting duration job resumes from its last committed checkpoint (driven jobs redo
  // the whole run: their ckpt_work stays 0).
  if (j.has_duration && !j.training()) q.remaining_s = std::max(0.0, j.duration.seconds() - j.ckpt().ckpt_work);
  const double total = j.total_work();
  const double left = total > 0 ? std::clamp(1.0 - j.ckpt().ckpt_work / total, 0.0, 1.0) : 0.0;
  q.length_s = std::isnan(q.remaining_s) ? job_alone_s(j) * left : q.remaining_s;
  if (!std::isnan(j.estimate_s())) q.estimated_remaining_s = j.estimate_s() * left;
  q.can_checkpoint = j.checkpoint() != nullptr && j.comm() == nullptr;
  q.deadline = j.deadline();
  if (j.recorded_wait_s() >= 0) q.recorded_start = j.submit + sim::seconds(j.recorded_wait_s());
  q.recorded_node = j.recorded_node();
  return q;
}

void Cluster::arrive(Job& j) {
  j.status = JobStatus::Queued;
  // A model-described job's speed alone is the step-time model's: evaluated once, at its
  // first arrival (another job's is its duration, or its FLOP at its best rate: Job keeps no
  // field for it, docs/engine.md, "A million jobs").
  if (j.training() && j.extras().alone_s == 0) j.extras_mut().alone_s = alone_s(j);
  if (!std::isnan(j.estimate_factor()) && std::isnan(j.estimate_s()))
    j.extras_mut().estimate_s = j.estimate_factor() * job_alone_s(j);
  queue_.add(queue_entry(j));
  job_submitted.emit(j);
}

void Cluster::on_arrival(std::uint64_t id) {
  arrive(jobs_[id]);
  lost_preemptions_ = 0;
  progress_at_ = engine_.now();
  // One arrival event is pending at a time: the next job's is scheduled from this one, so
  // a million-job workload does not fill the event queue up front.
  next_arrival_ = id + 1;
  if (next_arrival_ < upfront_jobs_) {
    const sim::SimTime t = jobs_[next_arrival_].submit;
    if (t <= scenario_.horizon) engine_.schedule_at<&Cluster::on_arrival>(t, this, next_arrival_, PRIORITY_STATE);
  }
  request_schedule();
}

void Cluster::on_submitted_arrival(std::uint64_t id) {
  --pending_submits_;
  arrive(jobs_[id]);
  lost_preemptions_ = 0;
  progress_at_ = engine_.now();
  request_schedule();
}

std::uint32_t Cluster::submit(JobRequest r) {
  GCSIM_CHECK(!ended_, "submit: job '" + r.name + "' submitted after the end of the run");
  GCSIM_CHECK(r.submit >= engine_.now(), "submit: job '" + r.name + "' submitted for " + std::to_string(r.submit.seconds()) +
                                              " s, before now (" + std::to_string(engine_.now().seconds()) + " s)");
  GCSIM_CHECK(r.training() == nullptr && r.comm() == nullptr,
              "submit: job '" + r.name + "' is model-described or has comm, which submit does not take yet");
  GCSIM_CHECK(r.gpus >= 1 && r.gpu_milli >= 1 && r.gpu_milli <= 1000 && (r.gpu_milli == 1000 || r.gpus == 1),
              "submit: job '" + r.name + "' asks for " + std::to_string(r.gpus) + " GPUs at gpu_milli " +
                  std::to_string(r.gpu_milli));
  GCSIM_CHECK(r.has_duration ? r.duration > sim::SimTime::zero() : r.work_flop > 0 && r.efficiency > 0,
              "submit: job '" + r.name + "' has no work");
  GCSIM_CHECK(jobs_.size() < std::size_t{0xffffffff}, "submit: more than 4,294,967,294 jobs");
  const auto id = static_cast<std::uint32_t>(jobs_.size());
  Job& j = jobs_.emplace_back();
  static_cast<JobRequest&>(j) = std::move(r);
  j.id = id;
  if (j.has_extras()) j.extras_mut().alone_s = 0;
  running_pos_.push_back(-1);
  if (!model_rate_.empty()) model_rate_.resize(jobs_.size() * types_.size(), std::numeric_limits<double>::quiet_NaN());
  shares_gpus_ = shares_gpus_ || j.shares_gpu();
  if (j.submit == engine_.now()) {
    arrive(j);
    request_schedule();
  } else if (j.submit <= scenario_.horizon) {
    ++pending_submits_;
    engine_.schedule_at<&Cluster::on_submitted_arrival>(j.submit, this, id, PRIORITY_STATE);
  }
  return id;
}

double Cluster::alone_rate(const Job& j, std::size_t t) const {
  if (j.training()) {
    GCSIM_CHECK(rates_ != nullptr, "job '" + j.name + "' is model-described but the cluster has no rate provider");
    return rates_->alone_samples_per_s(j, static_cast<int>(t));
  }
  // A job sharing a GPU computes at its share of the GPU's rate.
  return j.gpus * (j.gpu_milli / 1000.0) * scenario_.cluster.node_types[t].gpu.peak_flop_per_s(j.precision) * j.efficiency;
}

double Cluster::job_alone_s(const Job& j) const {
  if (j.has_duration && !j.training()) return j.duration.seconds();
  if (j.training()) return j.extras().alone_s;
  return alone_s(j);
}

double Cluster::alone_s(const Job& j) const {
  if (j.has_duration && !j.training()) return j.duration.seconds();
  double best = 0;
  for (std::size_t t = 0; t < types_.size(); ++t)
    if (j.eligible_types >> t & 1) best = std::max(best, alone_rate(j, t));
  return best > 0 ? j.total_work() / best : 0.0;
}

double Cluster::time_left_alone_s(std::uint32_t id, int type) const {
  GCSIM_CHECK(id < jobs_.size() && type >= 0 && static_cast<std::size_t>(type) < types_.size(),
              "time_left_alone_s: no job " + std::to_string(id) + " or node type " + std::to_string(type));
  const Job& j = jobs_[id];
  if (!(j.eligible_types >> type & 1)) return std::numeric_limits<double>::quiet_NaN();
  if (j.has_duration && !j.training()) return std::max(0.0, j.duration.seconds() - j.ckpt().ckpt_work);
  const double total = j.total_work();
  const double left = total > 0 ? std::clamp(1.0 - j.ckpt().ckpt_work / total, 0.0, 1.0) : 0.0;
  double rate = 0;
  if (j.training()) {
    // The step-time model's speed alone is fixed per job and type: evaluated once, since a
    // policy that chooses types asks again at every pass a job waits.
    const std::size_t k = static_cast<std::size_t>(id) * types_.size() + static_cast<std::size_t>(type);
    if (model_rate_.empty()) model_rate_.assign(jobs_.size() * types_.size(), std::numeric_limits<double>::quiet_NaN());
    if (std::isnan(model_rate_[k])) model_rate_[k] = alone_rate(j, static_cast<std::size_t>(type));
    rate = model_rate_[k];
  } else {
    rate = alone_rate(j, static_cast<std::size_t>(type));
  }
  return rate > 0 ? total * left / rate : std::numeric_limits<double>::infinity();
}

RunningPlace Cluster::where(std::uint32_t id) const {
  GCSIM_CHECK(id < jobs_.size() && jobs_[id].status == JobStatus::Running,
              "where: job " + std::to_string(id) + " is not running");
  const Job& j = jobs_[id];
  return RunningPlace{j.node_type, alloc_.nodes_of(j), j.gpus_per_node_held, j.stopping,
                      j.shares_gpu() && j.gpu_mask != 0 ? std::countr_zero(j.gpu_mask) : -1, j.gpu_milli, j.gpu_mask,
                      j.run_start};
}

// ---- Progress ----

double Cluster::start_rate(Job& j) {
  if (j.training()) {
    const ModelSpeed s = rates_->start_speed(j);
    j.extras_mut().samples_per_s = s.samples_per_s;
    j.extras_mut().step_s = s.step_s;
    j.extras_mut().bottleneck = s.bottleneck;
    return s.samples_per_s;
  }
  if (j.has_duration) return 1.0;
  return alone_rate(j, static_cast<std::size_t>(j.node_type));  // a work job: FLOP/s on its type
}

void Cluster::schedule_finish(Job& j) {
  sim::Activity& a = j.progress;
  // Compute ends at the nearest nanosecond (a run's work is seconds or samples, not bytes
  // whose last one must have arrived), and a duration job's first run ends at its exact
  // duration, a whole number of nanoseconds.
  const double remaining_s = std::max(0.0, a.remaining) / a.rate;
  const sim::SimTime left =
      j.has_duration && a.remaining == j.work_total() ? j.duration : sim::SimTime::from_seconds(remaining_s);
  // Progress starts at progress.updated, which is in the future while a job stages its data.
  const sim::SimTime from = std::max(engine_.now(), a.updated);
  a.finish = from.saturating_add(std::max(left, sim::SimTime::zero()));
  a.completion = engine_.schedule_at<&Cluster::on_finish>(a.finish, this, j.id, PRIORITY_STATE);
}

void Cluster::accrue(Job& j) {
  const sim::SimTime now = engine_.now();
  if (now <= j.progress.updated) return;  // not progressing yet (staging) or already up to date
  // Seconds of progress, which only the checkpoint controller reads (a job that checkpoints
  // makes its record when it starts: JobCheckpoint::progress_s).
  if (j.has_ckpt()) j.ckpt_mut().progress_s += (now - j.progress.updated).seconds();
  j.progress.settle(now);
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
  j.progress.rate = units_per_s;
  j.progress.cancel(engine_);
  schedule_finish(j);
}

void Cluster::set_model_speed(std::uint32_t id, const ModelSpeed& s) {
  GCSIM_CHECK(id < jobs_.size(), "set_model_speed: no job " + std::to_string(id));
  Job& j = jobs_[id];
  j.extras_mut().samples_per_s = s.samples_per_s;
  j.extras_mut().step_s = s.step_s;
  j.extras_mut().bottleneck = s.bottleneck;
  if (s.samples_per_s != j.progress.rate) set_rate(id, s.samples_per_s);
}

void Cluster::delay_progress(std::uint32_t id, sim::SimTime delay) {
  GCSIM_CHECK(id < jobs_.size(), "delay_progress: no job " + std::to_string(id));
  Job& j = jobs_[id];
  check_running(j, "delay_progress");
  GCSIM_CHECK(!j.driven && delay >= sim::SimTime::zero(),
              "delay_progress: job '" + j.name + "' is driven or the delay is negative");
  // Progress resumes `delay` after it would have: after now, or after a hold already set.
  hold_progress_until(id, std::max(engine_.now(), j.progress.updated) + delay);
}

void Cluster::hold_progress_until(std::uint32_t id, sim::SimTime at) {
  GCSIM_CHECK(id < jobs_.size(), "hold_progress_until: no job " + std::to_string(id));
  Job& j = jobs_[id];
  check_running(j, "hold_progress_until");
  GCSIM_CHECK(!j.driven && at >= engine_.now(),
              "hold_progress_until: job '" + j.name + "' is driven or the time is past");
  accrue(j);
  j.progress.updated = at;
  j.progress.cancel(engine_);
  schedule_finish(j);
}

void Cluster::move_checkpoint_write(std::uint32_t id, sim::SimTime done_at) {
  GCSIM_CHECK(id < jobs_.size(), "move_checkpoint_write: no job " + std::to_string(id));
  Job& j = jobs_[id];
  check_running(j, "move_checkpoint_write");
  checkpoints_.move_write(j, done_at);
}

// ---- Starts, stops, finishes ----

void Cluster::start_job(Job& j, const Placement& p, const Decisions& d) {
  auto who = [&] { return "policy '" + scheduler_->policy + "', placement of job '" + j.name + "'"; };
  GCSIM_CHECK(j.status == JobStatus::Queued, who() + ": the job is not queued");
  GCSIM_CHECK(p.node_type >= 0 && p.node_type < 64 && static_cast<std::size_t>(p.node_type) < types_.size(),
              who() + ": no node type " + std::to_string(p.node_type));
  GCSIM_CHECK(j.eligible_types >> p.node_type & 1,
              who() + ": the job cannot run on node type " + std::to_string(p.node_type));
  GCSIM_CHECK(!j.training() || rates_ != nullptr,
              "job '" + j.name + "' is model-described but the cluster has no rate provider (construct ModelSpeeds on it)");
  alloc_.allocate(j, p, d, scheduler_->policy);
  const bool restart = j.started_once;
  j.status = JobStatus::Running;
  j.run_start = engine_.now();
  if (!restart) j.start = j.run_start;
  j.started_once = true;
  ++j.incarnation;
  j.noticed = false;
  j.stopping = false;
  add_running(j);
  // A restart resumes from its last checkpoint, after restoring it; every start pulls the
  // container image first.
  const double saved = j.ckpt().ckpt_work;
  j.progress.remaining = j.work_total() - saved;
  j.preempted = false;
  if (j.has_ckpt()) {  // else all zero, as JobCheckpoint::NONE reads
    JobCheckpoint& k = j.ckpt_mut();
    k.run_start_work = saved;
    k.run_restore = restart && saved > 0 ? k.restore_time : sim::SimTime::zero();
    k.write_until = sim::SimTime::zero();
    k.progress_s = 0;
  }
  const sim::SimTime overhead = j.image_pull() + j.ckpt().run_restore;
  if (overhead != sim::SimTime::zero() || j.has_extras()) {
    // A plain job has no overhead and makes no extras record: its restart_gpu_s reads 0,
    // its overhead_until zero (never after now, as run_start is not).
    JobExtras& x = j.extras_mut();
    x.restart_gpu_s += overhead.seconds() * j.gpu_share_held();
    x.overhead_until = j.run_start + overhead;
  }
  j.progress.updated = j.run_start + overhead;
  j.progress.rate = start_rate(j);
  j.driven = j.comm() != nullptr || j.open_ended;
  if (!j.driven) {
    schedule_finish(j);
    checkpoints_.on_run_started(j);
  }
  job_started.emit(j);
  if (restart && saved > 0) restore_started.emit(j);
}

void Cluster::stop_job(Job& j, StopReason why) {
  // A run ends once: stopping a job that is not running would release its GPUs, count an
  // interruption and bill the run a second time (a budget reacting inside a signal did).
  check_running(j, "stop_job");
  accrue(j);
  // Overheads were counted whole when they began: a run that ends during one counts only
  // the part it spent (the checkpoint controller does the same for its writes).
  const sim::SimTime now = engine_.now();
  const double saved = checkpoints_.on_run_stopped(j);
  if (j.overhead_until() > now) j.extras_mut().restart_gpu_s -= (j.overhead_until() - now).seconds() * j.gpu_share_held();
  if (!j.driven) j.progress.cancel(engine_);
  j.extras_mut().stopped_work = j.work_done();
  const double run_s = (now - j.run_start).seconds();
  const double lost_before_gpu_s = j.lost_gpu_s();
  if (j.driven) {
    // Network-driven steps are not checkpointed: the whole run is redone.
    j.extras_mut().lost_work += run_s;
    j.extras_mut().lost_gpu_s += run_s * j.gpu_share_held();
  } else {
    const double lost = j.work_done() - saved;
    j.extras_mut().lost_work += lost;
    if (j.progress.rate > 0) j.extras_mut().lost_gpu_s += lost / j.progress.rate * j.gpu_share_held();
  }
  j.extras_mut().stop_lost_gpu_s = j.lost_gpu_s() - lost_before_gpu_s;
  j.progress.remaining = j.work_total() - saved;
  // The next start restores what this stop kept: a preemption's save in the scenario's
  // `restore` (default: the checkpoint's restore_time, else as long as the save took).
  sim::SimTime restore = j.checkpoint() ? j.checkpoint()->restore_time : sim::SimTime::zero();
  if (why == StopReason::Preempted && j.stopping) {
    const PreemptionSpec& how = scheduler_->preemption;
    restore = how.restore.value_or(j.checkpoint() ? restore : now - j.preempted_at());
  }
  if (j.has_ckpt() || saved != 0 || restore != sim::SimTime::zero()) {
    JobCheckpoint& k = j.ckpt_mut();
    k.ckpt_work = saved;
    k.restore_time = restore;
  }
  alloc_.release(j, run_s);
  remove_running(j);
  j.held_gpu_s += run_s * j.gpu_share_held();
  j.status = JobStatus::Queued;
  ++j.incarnation;
  ++j.extras_mut().interruptions;
  if (why == StopReason::Preempted) ++j.extras_mut().preemptions;
  j.stop_reason = why;
  j.noticed = false;
  j.stopping = false;
  policy_->run_ended(j.id, engine_.now());
  job_stopped.emit(j);
  requeue(j);
  release_drained_nodes_of(j);
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
  j.progress.remaining = 0;
  j.progress.updated = j.end;
  j.progress.finish = j.end;
  ++j.incarnation;  // pending checkpoint events of this run are void
  const double run_s = (engine_.now() - j.run_start).seconds();
  alloc_.release(j, run_s);
  remove_running(j);
  j.held_gpu_s += run_s * j.gpu_share_held();
  policy_->run_ended(j.id, engine_.now());
  job_finished.emit(j);
  lost_preemptions_ = 0;
  progress_at_ = engine_.now();
  release_drained_nodes_of(j);
  if (scenario_.run_until == RunUntil::Done && running_.empty() && queue_.empty() && no_more_arrivals()) {
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

void Cluster::add_running(const Job& j) {
  running_pos_[j.id] = static_cast<std::int32_t>(running_.size());
  running_.push_back(j.id);
}

void Cluster::remove_running(const Job& j) {
  GCSIM_CHECK(running_pos_[j.id] >= 0, "job '" + j.name + "': a run ended that never started");
  const auto at = static_cast<std::size_t>(running_pos_[j.id]);
  running_[at] = running_.back();
  running_pos_[running_[at]] = static_cast<std::int32_t>(at);
  running_.pop_back();
  running_pos_[j.id] = -1;
}

Job* Cluster::live(std::uint64_t arg) {
  Job& j = jobs_[arg >> 32];
  if (j.status != JobStatus::Running || j.incarnation != static_cast<std::uint32_t>(arg)) return nullptr;
  return &j;
}

// ---- Planned stops: budgets and saving preemptions ----

void Cluster::plan_stop_after_checkpoint(Job& j, StopReason why, sim::SimTime write, bool is_save) {
  // Write one now and end the run when it is done.
  const sim::SimTime at = engine_.now() + write;
  checkpoints_.begin_last(j, at, write, is_save);
  j.stop_reason = why;
  engine_.schedule_at<&Cluster::on_planned_stop>(
      at, this, event_arg(j), why == StopReason::Preempted ? PRIORITY_PREEMPT_STOP : PRIORITY_BUDGET_STOP);
}

void Cluster::on_planned_stop(std::uint64_t arg) {
  Job* j = live(arg);
  if (!j) return;
  // The last checkpoint may take longer than alone when its tier is shared: wait for it.
  if (j->stopping && engine_.now() < j->ckpt().last_ckpt_done_at) {
    engine_.schedule_at<&Cluster::on_planned_stop>(
        j->ckpt().last_ckpt_done_at, this, arg,
        j->stop_reason == StopReason::Preempted ? PRIORITY_PREEMPT_STOP : PRIORITY_BUDGET_STOP);
    return;
  }
  stop_job(*j, j->stop_reason);
}

void Cluster::hold_team(int team, bool stop_running) {
  if (team < 0) return;
  const bool was_held = team_held(team);
  queue_.hold_team(team);
  if (!was_held) team_hold_changed.emit(team, true);
  if (!stop_running) return;
  for (Job& j : jobs_) {
    if (j.team != team || j.status != JobStatus::Running || j.stopping) continue;
    if (j.checkpoint() && !j.driven) plan_stop_after_checkpoint(j, StopReason::Budget, j.checkpoint()->write_time, false);
    else stop_job(j, StopReason::Budget);
  }
}

void Cluster::release_team(int team) {
  if (team < 0 || !team_held(team)) return;
  queue_.release_team(team);
  team_hold_changed.emit(team, false);
  request_schedule();
}

}  // namespace gcsim::models
