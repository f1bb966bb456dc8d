// The autoscaling tables (see autoscale_tables.hpp).
#include "models/trace/autoscale_tables.hpp"

#include "models/trace/schema_tables.hpp"

namespace gcsim::models {

static_assert(static_cast<std::size_t>(ScaleDirection::In) + 1 == trace::schema::SCALE_DIRECTIONS.size());
static_assert(static_cast<std::size_t>(TriggerKind::Budget) + 1 == trace::schema::SCALE_TRIGGERS.size());

AutoscaleRecorder::AutoscaleRecorder(trace::TraceFile& file, const Scenario& scenario, Autoscaler& scaler)
    : scaler_(scaler), pools_(scaler.pools()), last_(pools_.size()),
      sizes_(add_table(file, trace::schema::POOL_SIZES, 4096)),
      decisions_(add_table(file, trace::schema::SCALE_DECISIONS, 1024)) {
  for (int t : pools_) slots_.push_back(scenario.cluster.node_types[static_cast<std::size_t>(t)].slots());
  scaler.evaluated.connect([this](sim::SimTime t) { sample(t); });
  scaler.decided.connect([this](const ScaleDecision& d) {
    decisions_.begin_row()
        .f64(0, d.time.seconds())
        .i32(1, d.pool)
        .enum8(2, static_cast<std::uint8_t>(d.direction))
        .enum8(3, static_cast<std::uint8_t>(d.trigger))
        .f64(4, d.value)
        .i32(5, d.nodes)
        .i32(6, d.size_before)
        .i32(7, d.size_after);
  });
}

void AutoscaleRecorder::sample(sim::SimTime t) {
  for (std::size_t i = 0; i < pools_.size(); ++i) {
    const PoolGauges::Pool& g = scaler_.gauges().pool(pools_[i]);
    Last& last = last_[i];
    if (last.written && g.provisioning == last.figures.provisioning && g.up == last.figures.up &&
        g.draining == last.figures.draining && g.held_gpus == last.figures.held_gpus && g.busy_gpus == last.figures.busy_gpus &&
        g.waiting_gpus == last.figures.waiting_gpus && g.memory_used_bytes == last.figures.memory_used_bytes)
      continue;
    last.figures = g;
    last.written = true;
    sizes_.begin_row()
        .f64(0, t.seconds())
        .i32(1, pools_[i])
        .i32(2, slots_[i])
        .i32(3, g.provisioning)
        .i32(4, g.up)
        .i32(5, g.draining)
        .f64(6, g.held_gpus)
        .f64(7, g.busy_gpus)
        .f64(8, g.waiting_gpus)
        .f64(9, g.memory_used_bytes);
  }
}

}  // namespace gcsim::models
