// The serving part (docs/serving.md, "Batching" and "Statistics"): each service of
// `workload.services` as a stream of requests, a queue, and replicas that are jobs on the
// cluster (JobRequest::open_ended, named `<service>/r<k>`), placed, preempted and billed as
// any job. A replica serves after its cold start; stopped, the requests of its batch go back
// to the head of the queue.
//
// No event per request. Arrivals are drawn lazily: the next arrival's time is kept, and every
// arrival up to now is pulled into the queue whenever the part acts (a batch or iteration
// ends, the batching timer fires, an interval closes). An event is scheduled only for the
// next arrival while a replica is idle (or the batching timer), for each batch's (dynamic)
// or iteration's (an LLM) end, for each replica's cold start and for each statistics
// interval. The queue is a ring of 24-byte PODs that grows only to its high-water mark.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/config/scenario.hpp"
#include "models/run/component.hpp"
#include "models/serving/latency_histogram.hpp"
#include "models/serving/replica_cost.hpp"
#include "models/serving/replica_cost_factory.hpp"
#include "models/serving/service_records.hpp"
#include "models/serving/service_spec.hpp"
#include "sim/rng.hpp"

namespace gcsim::models {

class Cluster;
class CostMeter;
struct Job;

// A part that supplies the ReplicaCost of a model's replica in place of
// serving::make_replica_cost (a test's, with a cost computable by hand). Found at build.
class ReplicaCostProvider {
 public:
  virtual ~ReplicaCostProvider() = default;
  virtual std::unique_ptr<serving::ReplicaCost> replica_cost(const serving::ServiceSpec& service,
                                                             const serving::ReplicaHardware& hw) = 0;
};

class ServingController final : public Controller {
 public:
  // sink, costs, provider: may be null (no records; no costs; make_replica_cost).
  ServingController(RunContext& ctx, serving::ServiceSink* sink, ReplicaCostProvider* provider);
  void start() override;
  // Closes the last interval and reports every service's totals (also kept: totals()).
  void finish(RunSummary& summary) override;
  const std::vector<serving::ServiceTotals>& totals() const { return totals_; }
  // Requests refused because they can never be served (beyond the model's context, a replica's
  // KV cache or max_tokens), by service.
  std::vector<std::uint64_t> refused() const;

 private:
  struct Request {
    std::uint64_t id = 0;
    sim::SimTime arrival;
    std::int32_t prompt = 0;
    std::int32_t output = 0;
  };
  // A ring of requests: push at the back (arrivals), pop at the front (batches), and push
  // back at the front (a stopped replica's batch).
  class Ring {
   public:
    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }
    const Request& front() const { return buf_[head_]; }
    const Request& operator[](std::size_t i) const { return buf_[(head_ + i) & (buf_.size() - 1)]; }
    void pop_front() {
      head_ = (head_ + 1) & (buf_.size() - 1);
      --size_;
    }
    void push_back(const Request& r) {
      grow();
      buf_[(head_ + size_) & (buf_.size() - 1)] = r;
      ++size_;
    }
    void push_front(const Request& r) {
      grow();
      head_ = (head_ + buf_.size() - 1) & (buf_.size() - 1);
      buf_[head_] = r;
      ++size_;
    }

   private:
    void grow();
    std::vector<Request> buf_;  // a power of two
    std::size_t head_ = 0;
    std::size_t size_ = 0;
  };
  struct Running {
    Request r;
    sim::SimTime start;
    sim::SimTime first_token;
    std::int32_t generated = 0;  // tokens out so far (0: its prefill is to come)
  };
  enum class State : std::uint8_t { Placing, Cold, Idle, Busy, Retired };
  struct Replica {
    std::uint32_t job = 0;
    State state = State::Placing;
    std::vector<Running> batch;
    std::int64_t kv_used = 0;
    sim::EventId event;                      // cold start's or batch's / iteration's end
    const serving::ReplicaCost* cost = nullptr;  // a model's, on its current placement
    sim::SimTime busy_since;
    sim::SimTime up_since;
    // Scaled in while serving: admits no request, and ends when its batch is done.
    bool draining = false;
    // Its cold start's image pull (the first part of it), on `node`, ends at `pulled_at`;
    // max(): this start pulls nothing (no image, or the node has it).
    std::uint32_t node = 0;
    sim::SimTime pulled_at = sim::SimTime::max();
    sim::SimTime cold_since;  // its current (or last) cold start began
  };
  struct Service {
    const serving::ServiceSpec* spec = nullptr;
    std::uint32_t index = 0;
    sim::RngStream arrivals, tokens, latency, profile;
    sim::SimTime next_arrival = sim::SimTime::max();  // of the next request to draw
    std::uint64_t next_id = 0;
    std::size_t trace_next = 0;  // requests.trace: the file's next row to draw
    Ring queue;
    // Requests drawn ahead of their arrival (after now), in arrival order: to know when the
    // queue will fill a batch, without an event per arrival.
    Ring ahead;
    std::vector<Replica> replicas;
    std::vector<std::uint32_t> jobs;  // every replica job it submitted
    // cold_start.image: whether node n holds the image (a pull there completed; cleared when
    // the node goes down). Empty without an image.
    std::vector<std::uint8_t> image_on_node;
    sim::EventId wake;
    sim::SimTime wake_at = sim::SimTime::max();
    // ReplicaCost per node type (a model), built at the first placement there.
    std::vector<std::unique_ptr<serving::ReplicaCost>> costs;
    // Totals.
    serving::LatencyHistogram e2e, ttft, tpot;
    double wait_sum_s = 0;
    std::uint64_t arrived = 0, completed = 0, refused = 0, slo_met = 0;
    std::uint64_t prompt_tokens = 0, output_tokens = 0;
    std::int32_t replicas_max = 0;
    std::uint64_t cold_starts = 0;
    double cold_start_s = 0;
    // The interval being gathered.
    serving::LatencyHistogram i_e2e, i_ttft, i_tpot;
    std::uint64_t i_arrived = 0, i_completed = 0, i_slo_met = 0;
    double i_busy_s = 0, i_up_s = 0;
    // Autoscaling: since when the trigger (or the scale-in condition) has held; max(): not.
    sim::SimTime out_since = sim::SimTime::max(), in_since = sim::SimTime::max();
    Service(sim::RngStream a, sim::RngStream t, sim::RngStream l, sim::RngStream p)
        : arrivals(a), tokens(t), latency(l), profile(p) {}
  };

  // Events.
  void on_start(std::uint64_t);
  void on_wake(std::uint64_t service);
  void on_ready(std::uint64_t key);
  void on_step_end(std::uint64_t key);
  void on_interval(std::uint64_t);
  // Signals.
  void replica_started(const Job& j);
  void replica_stopped(const Job& j);
  void node_down(std::uint32_t node);
  // A replica's image pull on its node completed by now: the node holds the image.
  static void note_pull(Service& s, Replica& r, sim::SimTime now);

  static std::uint64_t key(std::uint32_t service, std::uint32_t replica) { return std::uint64_t{service} << 32 | replica; }
  void add_replica(Service& s);
  // Pulls every arrival at or before t (strictly before, with `before`) into the queue.
  void pull(Service& s, sim::SimTime t, bool before = false);
  void draw_one(Service& s);  // the next request of the stream, into `ahead`
  // The arrival after `t`: one draw of `arrival`, thinned by the profile (max(): past the horizon).
  sim::SimTime next_after(Service& s, sim::SimTime t);
  // The arrival time of the k-th request (from 1) still to arrive; max() when none.
  sim::SimTime arrival_ahead(Service& s, std::size_t k);
  // Starts what the idle and between-iteration replicas can start now; sets the wake event.
  void dispatch(Service& s);
  void start_batch(Service& s, std::uint32_t k);      // dynamic, without tokens
  void start_iteration(Service& s, std::uint32_t k, bool admit);  // an LLM
  void complete(Service& s, std::uint32_t k, const Running& r, sim::SimTime end);
  void set_busy(Service& s, Replica& r, bool busy);
  // Ends replica k (scaled in): its GPUs go back at once.
  void retire(Service& s, std::uint32_t k);
  // What replica r uses of what it can serve at once, 0..1 (the `utilization` measure):
  // busy or not (dynamic batching); the larger of its batch's share of max_batch and its
  // KV cache's share in use (continuous batching).
  double load(const Service& s, const Replica& r) const;
  void close_interval(Service& s, sim::SimTime t0, sim::SimTime t1);
  void autoscale(Service& s);
  int replicas_up(const Service& s) const;
  int replicas_wanted(const Service& s) const;
  const serving::ReplicaCost* cost_for(Service& s, const Job& j);

  Cluster& cluster_;
  const Scenario& scenario_;
  CostMeter* costs_;
  serving::ServiceSink* sink_;
  ReplicaCostProvider* provider_;
  std::vector<std::unique_ptr<Service>> services_;
  std::unordered_map<std::uint32_t, std::uint64_t> replica_of_job_;  // job id -> key(service, replica)
  sim::SimTime interval_;
  sim::SimTime interval_start_;
  std::vector<serving::ServiceTotals> totals_;
};

}  // namespace gcsim::models
