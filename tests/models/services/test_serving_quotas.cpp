// Services under scheduler.quotas by the time of the week (docs/serving.md, "Sharing the
// fleet"): a serving team and a training team on one 4-GPU node, the day window giving
// serving a guaranteed 75% and the night window training 75% and serving a cap of 25%, with
// reclaim by preemption. Each run's starts and stops of every job are recorded and checked
// by hand against the quota rules (models/scheduler/quotas.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "models/cluster/cluster.hpp"
#include "models/register_builtins.hpp"
#include "models/serving_part.hpp"
#include "models/services/serving_controller.hpp"
#include "models/simulation.hpp"
#include "support/scenario_support.hpp"

using namespace gcsim;

namespace {

struct Event {
  double t_s;
  std::string job;
  bool start;  // a run started; else a run stopped
  models::StopReason stop = models::StopReason::None;
  models::PreemptReason reason = models::PreemptReason::Unspecified;
};

struct Captured {
  std::vector<Event> events;
  std::vector<models::serving::ServiceSample> samples;
  std::vector<models::serving::ServiceTotals> totals;
};

// Every run's start and stop, and the services' samples and totals.
class Capture final : public models::Component, public models::serving::ServiceSink {
 public:
  Capture(std::shared_ptr<Captured> out, models::Cluster& cluster) : out_(std::move(out)) {
    cluster.job_started.connect(0, [this](const models::Job& j) {
      out_->events.push_back({j.run_start.seconds(), j.name, true});
    });
    cluster.job_stopped.connect(0, [this, &cluster](const models::Job& j) {
      out_->events.push_back({cluster.now().seconds(), j.name, false, j.stop_reason, j.preempt_reason});
    });
  }
  void request(const models::serving::RequestRecord&) override {}
  void sample(const models::serving::ServiceSample& s) override { out_->samples.push_back(s); }
  void totals(const models::serving::ServiceTotals& t) override { out_->totals.push_back(t); }

 private:
  std::shared_ptr<Captured> out_;
};

std::shared_ptr<Captured> run(const models::Scenario& s) {
  auto out = std::make_shared<Captured>();
  models::Builtins b;
  models::register_builtins(b);
  b.components.add({"test-quota-sink", "captures runs and the services' samples", models::BUILD_EXTENSIONS,
                    [out](models::RunContext& ctx) -> std::unique_ptr<models::Component> {
                      return std::make_unique<Capture>(out, ctx.cluster);
                    }});
  models::RunOptions options;
  options.parts = &b.components;
  (void)models::run_simulation(s, b.schedulers, nullptr, options);
  return out;
}

constexpr double H = 3600;

}  // namespace

TEST_CASE("a service and training under quotas by the time of the week", "[model][serving][quotas]") {
  const std::string yaml = R"(name: qdn
seed: 5
horizon: 33h
cluster:
  node_types:
    - {name: t4, gpu: T4, gpus: 4, count: 1, price: {on_demand_per_hour: 2}}
scheduler:
  policy: fifo
  blocking: skip
  quotas:
    windows:
      - {name: day, hours: 08:00-20:00, teams: {serving: 75%, training: 25%}}
      - {name: night, hours: 20:00-08:00, teams: {serving: {min: 25%, max: 25%}, training: 75%}}
    reclaim: preempt
workload:
  jobs:
    - {name: train0, team: training, gpus: 1, duration: 100h}
    - {name: train1, team: training, gpus: 1, duration: 100h}
    - {name: train2, team: training, gpus: 1, duration: 100h}
    - {name: train3, team: training, gpus: 1, duration: 100h}
  services:
    - name: web
      team: serving
      latency: 1s
      requests:
        arrival: {dist: exponential, mean: 1s}
        profile:
          windows:
            - {hours: 08:00-20:00, rate: 2.5}
          otherwise: 0.5
      replicas: {min: 1, max: 3, autoscale: {when: queue_length > 10, for: 1m}}
)";
  const auto out = run(test::scenario_from_yaml(yaml));
  const auto& ev = out->events;
  const auto stops = [&](double from, double to, models::PreemptReason why) {
    std::vector<const Event*> v;
    for (const Event& e : ev)
      if (!e.start && e.t_s >= from && e.t_s < to && e.stop == models::StopReason::Preempted && e.reason == why)
        v.push_back(&e);
    return v;
  };
  const auto starts = [&](double from, double to) {
    std::vector<const Event*> v;
    for (const Event& e : ev)
      if (e.start && e.t_s >= from && e.t_s < to) v.push_back(&e);
    return v;
  };
  const auto is_replica = [](const Event* e) { return e->job.rfind("web/r", 0) == 0; };
  const auto is_training = [](const Event* e) { return e->job.rfind("train", 0) == 0; };
  INFO([&] {
    std::string all;
    for (const Event& e : ev) all += std::to_string(e.t_s) + " " + e.job + (e.start ? " start\n" : " stop\n");
    return all;
  }());
  std::size_t preemptions = 0;
  for (const Event& e : ev) preemptions += !e.start && e.stop == models::StopReason::Preempted;
  CHECK(preemptions == 6);

  // Monday 00:00, the night window: serving is guaranteed 1 GPU and capped at 1, training
  // guaranteed 3. r0 and three training jobs start; the fourth waits, the fourth GPU
  // reserved for serving's waiting replica (with lending, R = min(G - U, waiting) = 1).
  // It never finds a free GPU after: 3 training jobs run at most.
  const auto first = starts(0, 1);
  REQUIRE(first.size() == 4);
  CHECK(std::count_if(first.begin(), first.end(), is_training) == 3);
  CHECK(std::count_if(first.begin(), first.end(), [](const Event* e) { return e->job == "web/r0"; }) == 1);
  CHECK(std::none_of(ev.begin(), ev.end(), [](const Event& e) { return e.job == "train3"; }));

  // 08:00, the day window: serving is guaranteed 3 GPUs. The rate goes from 0.5 to 2.5 per
  // second against r0's 1 per second: the queue passes 10 within seconds, and after the
  // trigger's minute r1 is added; it waits, serving is below its guarantee, so reclaim
  // preempts the newest training job above training's guarantee (1) and r1 starts in its
  // GPU at that instant. The queue stays above 10 (two replicas serve 2/s < 2.5/s), so r2
  // follows exactly one `for` later, reclaiming a second training job. Nothing else
  // happens by day: 3 replicas is the max.
  const auto day = stops(8 * H, 20 * H, models::PreemptReason::Reclaim);
  REQUIRE(day.size() == 2);
  CHECK(std::all_of(day.begin(), day.end(), is_training));
  CHECK(day[0]->t_s > 8 * H + 60);  // after the trigger's minute ...
  CHECK(day[0]->t_s < 8 * H + 180);  // ... and soon after it
  CHECK(day[1]->t_s == Approx(day[0]->t_s + 60).margin(1e-6));
  const auto day_starts = starts(8 * H, 20 * H);
  REQUIRE(day_starts.size() == 2);
  CHECK(day_starts[0]->job == "web/r1");
  CHECK(day_starts[0]->t_s == day[0]->t_s);
  CHECK(day_starts[1]->job == "web/r2");
  CHECK(day_starts[1]->t_s == day[1]->t_s);
  CHECK(stops(0, 8 * H, models::PreemptReason::Reclaim).empty());

  // 20:00, the night window: serving is capped at 1 GPU and holds 3. Exactly at 20:00 the
  // cap preempts the two newest replicas (r2, r1), and the two training jobs waiting take
  // their GPUs at once (training is guaranteed 3). The replicas wait all night: the cap
  // admits none of them.
  const auto dusk = stops(20 * H, 20 * H + 1, models::PreemptReason::QuotaCap);
  REQUIRE(dusk.size() == 2);
  CHECK(dusk[0]->job == "web/r2");
  CHECK(dusk[1]->job == "web/r1");
  CHECK(dusk[0]->t_s == 20 * H);
  const auto night_starts = starts(20 * H, 32 * H);
  REQUIRE(night_starts.size() == 2);
  CHECK(std::all_of(night_starts.begin(), night_starts.end(), is_training));
  CHECK(night_starts[0]->t_s == 20 * H);
  CHECK(night_starts[1]->t_s == 20 * H);
  // Every sample from 20:01 to 08:00: one replica up, three wanted (two wait for GPUs).
  int night_samples = 0;
  for (const auto& x : out->samples)
    if (x.t_s >= 20 * H + 60 && x.t_s + x.interval_s <= 32 * H) {
      ++night_samples;
      CHECK(x.replicas_up == 1);
      CHECK(x.replicas_wanted == 3);
    }
  CHECK(night_samples == 12 * 60 - 1);

  // Tuesday 08:00, the day window again: the waiting replicas reclaim their GPUs at once,
  // at the window's start, from the two training jobs that started last.
  const auto dawn = stops(32 * H, 33 * H, models::PreemptReason::Reclaim);
  REQUIRE(dawn.size() == 2);
  CHECK(std::all_of(dawn.begin(), dawn.end(), is_training));
  CHECK(dawn[0]->t_s == 32 * H);
  CHECK(dawn[1]->t_s == 32 * H);
  const auto dawn_starts = starts(32 * H, 33 * H);
  REQUIRE(dawn_starts.size() == 2);
  CHECK(std::all_of(dawn_starts.begin(), dawn_starts.end(), is_replica));
  CHECK(dawn_starts[0]->t_s == 32 * H);

  // The replicas' GPU-time, by hand from the runs: r0 the whole 33 h, r1 and r2 from their
  // start to 20:00 and from 08:00 to the horizon.
  REQUIRE(out->totals.size() == 1);
  const double by_hand = 33 * H + (20 * H - day[0]->t_s) + (20 * H - day[1]->t_s) + 2 * H;
  CHECK(out->totals[0].replica_gpu_s == Approx(by_hand).epsilon(1e-12));
  CHECK(out->totals[0].replicas_max == 3);
}
