// Storage tiers: the parser's branches, IOPS-bound vs bandwidth-bound reads, contention on
// a shared tier computed by hand (through the engine), LRU staging and the cost functions.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "models/storage/shared_tier.hpp"
#include "models/storage/staging_cache.hpp"
#include "models/storage/storage_spec.hpp"
#include "sim/config/config_node.hpp"
#include "sim/engine.hpp"
#include "sim/errors.hpp"

using gcsim::ConfigError;
using gcsim::ErrorCode;
using gcsim::models::SharedTier;
using gcsim::models::StagingCache;
using gcsim::models::StorageSpec;
using gcsim::models::TierKind;
using gcsim::sim::Engine;
using gcsim::sim::SimTime;

namespace {

const std::string STORAGE = R"(
tiers:
  - {name: nvme, kind: local-nvme, read: 6GB/s, write: 3GB/s, iops: 800k, capacity: 7TB, price: 0.10/GB-month}
  - {name: nfs, kind: shared-fs, read: 2GB/s, write: 1GB/s, iops: 20k, latency: 1ms, capacity: 100TB, price: 0.30/GB-month}
  - {name: s3, kind: object-store, read: 100GB/s, stream: 100MB/s, latency: 20ms, price: 0.023/GB-month,
     request_price: 0.0004, transfer_price: 0.09/GB}
  - {name: glacier, kind: archive, read: 1GB/s, price: 4/TB-month, retrieval: {delay: 12h, price: 0.01/GB}}
)";

StorageSpec parse(const std::string& yaml) {
  return gcsim::models::parse_storage(gcsim::config::load_yaml_string(yaml, "storage.yaml").root);
}

ErrorCode storage_error(const std::string& yaml) {
  try {
    parse(yaml);
  } catch (const ConfigError& e) {
    return e.code();
  }
  FAIL("no ConfigError for:\n" << yaml);
  return ErrorCode::Syntax;
}

std::string one_tier(const std::string& fields) { return "tiers:\n  - {name: t, " + fields + "}\n"; }

// Records completion instants of transfers.
struct Recorder {
  Engine* engine;
  std::map<SharedTier::TransferId, double> done_at_s;
  SharedTier::Callback callback() {
    return [this](SharedTier::TransferId id) { done_at_s[id] = engine->now().seconds(); };
  }
};

}  // namespace

TEST_CASE("Storage section parses every tier kind", "[unit][storage]") {
  const StorageSpec s = parse(STORAGE);
  REQUIRE(s.tiers.size() == 4);
  const auto* nfs = s.find("nfs");
  REQUIRE(nfs);
  CHECK(nfs->kind == TierKind::SharedFs);
  CHECK(nfs->read_bytes_per_s == 2e9);
  CHECK(nfs->write_bytes_per_s == 1e9);
  CHECK(nfs->iops == 20e3);
  CHECK(nfs->latency_s == Approx(1e-3));
  CHECK(nfs->usd_per_gb_month == Approx(0.30));
  CHECK(s.find("nvme")->per_node());
  CHECK(s.find("s3")->stream_bytes_per_s == 100e6);
  CHECK(s.find("s3")->usd_per_1k_requests == Approx(0.0004));
  CHECK(s.find("glacier")->usd_per_gb_month == Approx(0.004));
  CHECK(s.find("glacier")->retrieval_delay_s == 12 * 3600);
}

TEST_CASE("Storage parser refuses bad tiers", "[unit][storage]") {
  SECTION("no tiers") { CHECK(storage_error("tiers: []\n") == ErrorCode::WrongType); }
  SECTION("unknown kind") { CHECK(storage_error(one_tier("kind: tape, read: 1GB/s")) == ErrorCode::UnknownName); }
  SECTION("unknown key") { CHECK(storage_error(one_tier("kind: shared-fs, read: 1GB/s, reed: 2GB/s")) == ErrorCode::UnknownKey); }
  SECTION("bandwidth without a unit") { CHECK(storage_error(one_tier("kind: shared-fs, read: 1000")) == ErrorCode::BadUnit); }
  SECTION("missing read") { CHECK(storage_error(one_tier("kind: shared-fs")) == ErrorCode::MissingKey); }
  SECTION("local NVMe without capacity") { CHECK(storage_error(one_tier("kind: local-nvme, read: 1GB/s")) == ErrorCode::MissingKey); }
  SECTION("archive without retrieval") { CHECK(storage_error(one_tier("kind: archive, read: 1GB/s")) == ErrorCode::MissingKey); }
  SECTION("retrieval on a file system") {
    CHECK(storage_error(one_tier("kind: shared-fs, read: 1GB/s, retrieval: {delay: 1h}")) == ErrorCode::Conflict);
  }
  SECTION("stream cap on a file system") { CHECK(storage_error(one_tier("kind: shared-fs, read: 1GB/s, stream: 1GB/s")) == ErrorCode::Conflict); }
  SECTION("request price on a file system") {
    CHECK(storage_error(one_tier("kind: shared-fs, read: 1GB/s, request_price: 0.01")) == ErrorCode::Conflict);
  }
  SECTION("price per the wrong unit") { CHECK(storage_error(one_tier("kind: shared-fs, read: 1GB/s, price: 0.3/GB-hour")) == ErrorCode::BadUnit); }
  SECTION("price not a number") { CHECK(storage_error(one_tier("kind: shared-fs, read: 1GB/s, price: cheap")) == ErrorCode::WrongType); }
  SECTION("zero iops") { CHECK(storage_error(one_tier("kind: shared-fs, read: 1GB/s, iops: 0")) == ErrorCode::OutOfRange); }
  SECTION("duplicate names") {
    CHECK(storage_error("tiers:\n  - {name: a, kind: shared-fs, read: 1GB/s}\n  - {name: a, kind: shared-fs, read: 1GB/s}\n") ==
          ErrorCode::Duplicate);
  }
}

TEST_CASE("Small files are IOPS-bound, large files bandwidth-bound", "[unit][storage]") {
  const StorageSpec s = parse(STORAGE);
  const auto& nfs = *s.find("nfs");
  // 20k IOPS x 16 KB = 320 MB/s < 2 GB/s; 16 concurrent requests with 1 ms latency allow 256 MB/s.
  CHECK(gcsim::models::read_throughput_bytes_per_s(nfs, 16e3, 64) == Approx(320e6));
  CHECK(gcsim::models::read_throughput_bytes_per_s(nfs, 16e3, 16) == Approx(16 * 16e3 / 1e-3));
  // 100 MB files: bandwidth-bound.
  CHECK(gcsim::models::read_throughput_bytes_per_s(nfs, 100e6, 16) == Approx(2e9));
  // The seeds' case: a 16k-IOPS volume reads 110 KB images 5x faster than a 3k-IOPS one.
  auto slow = nfs;
  slow.iops = 3e3;
  slow.latency_s = 0;
  auto fast = slow;
  fast.iops = 16e3;
  CHECK(gcsim::models::read_throughput_bytes_per_s(fast, 110e3) /
            gcsim::models::read_throughput_bytes_per_s(slow, 110e3) ==
        Approx(16.0 / 3.0));
  // Object store: one stream of 1 MB objects = 1 MB / (20 ms + 10 ms) = 33 MB/s.
  CHECK(gcsim::models::read_throughput_bytes_per_s(*s.find("s3"), 1e6, 1) == Approx(1e6 / 0.03));
}

TEST_CASE("Two readers of a shared tier halve each other's rate", "[model][storage]") {
  Engine engine;
  SharedTier tier(engine, 100e6, 50e6);  // 100 MB/s read, 50 MB/s write
  engine.add_resource_model(&tier);
  Recorder rec{&engine, {}};

  SECTION("together from the start: 100 MB each at 50 MB/s, both done at 2 s") {
    const auto a = tier.start_transfer(100e6, 0, rec.callback());
    const auto b = tier.start_transfer(100e6, 0, rec.callback());
    CHECK(tier.rate_bytes_per_s(a) == Approx(50e6));
    engine.run();
    CHECK(rec.done_at_s.at(a) == Approx(2.0));
    CHECK(rec.done_at_s.at(b) == Approx(2.0));
    CHECK(tier.active() == 0);
  }
  SECTION("staggered: A 150 MB at 0 s, B 50 MB at 0.5 s") {
    // A alone for 0.5 s (50 MB), then 50 MB/s each: B done at 1.5 s with A at 50 MB left,
    // then A alone at 100 MB/s: done at 2.0 s.
    SharedTier::TransferId a = tier.start_transfer(150e6, 0, rec.callback());
    SharedTier::TransferId b = 0;
    struct Start {
      SharedTier* tier;
      Recorder* rec;
      SharedTier::TransferId* id;
      static void fire(void* self, std::uint64_t) {
        auto* s = static_cast<Start*>(self);
        *s->id = s->tier->start_transfer(50e6, 0, s->rec->callback());
      }
    } start{&tier, &rec, &b};
    engine.schedule_at(SimTime::from_seconds(0.5), &Start::fire, &start);
    engine.run();
    CHECK(rec.done_at_s.at(b) == Approx(1.5));
    CHECK(rec.done_at_s.at(a) == Approx(2.0));
  }
  SECTION("a capped reader leaves the rest to the other (max-min)") {
    const auto capped = tier.start_transfer(20e6, 20e6, rec.callback());
    const auto free = tier.start_transfer(80e6, 0, rec.callback());
    CHECK(tier.rate_bytes_per_s(capped) == Approx(20e6));
    CHECK(tier.rate_bytes_per_s(free) == Approx(80e6));
    engine.run();
    CHECK(rec.done_at_s.at(capped) == Approx(1.0));
    CHECK(rec.done_at_s.at(free) == Approx(1.0));
  }
  SECTION("a checkpoint writer slows a reader: half the device time each") {
    const auto r = tier.start_transfer(50e6, 0, SharedTier::Direction::Read, rec.callback());
    const auto w = tier.start_transfer(50e6, 0, SharedTier::Direction::Write, rec.callback());
    CHECK(tier.rate_bytes_per_s(r) == Approx(50e6));
    CHECK(tier.rate_bytes_per_s(w) == Approx(25e6));
    engine.run();
    // The reader finishes at 1 s; the writer has 25 MB left and then writes alone at 50 MB/s.
    CHECK(rec.done_at_s.at(r) == Approx(1.0));
    CHECK(rec.done_at_s.at(w) == Approx(1.5));
  }
  SECTION("cancel frees the bandwidth") {
    const auto a = tier.start_transfer(100e6, 0, rec.callback());
    const auto b = tier.start_transfer(100e6, 0, rec.callback());
    CHECK(tier.cancel(b));
    CHECK_FALSE(tier.cancel(b));
    CHECK(tier.rate_bytes_per_s(a) == Approx(100e6));
    engine.run();
    CHECK(rec.done_at_s.at(a) == Approx(1.0));
    CHECK(rec.done_at_s.count(b) == 0);
  }
}

TEST_CASE("Staging keeps datasets per node, evicting the least recently used", "[unit][storage]") {
  StagingCache cache(100);
  CHECK(cache.insert("a", 40).empty());
  CHECK(cache.insert("b", 40).empty());
  CHECK(cache.touch("a"));
  CHECK(cache.insert("c", 40) == std::vector<std::string>{"b"});
  CHECK(cache.names() == std::vector<std::string>{"c", "a"});
  CHECK(cache.used_bytes() == 80);
  CHECK(cache.insert("a", 40).empty());  // already staged: a touch
  CHECK(cache.names().front() == "a");
  cache.pin("a");
  cache.pin("c");
  CHECK_FALSE(cache.can_fit(30));
  CHECK_THROWS_AS(cache.insert("d", 30), std::length_error);
  cache.unpin("c");
  CHECK(cache.insert("d", 30) == std::vector<std::string>{"c"});
  CHECK(cache.contains("a"));
  CHECK_FALSE(cache.contains("c"));
  CHECK_THROWS_AS(cache.pin("zzz"), std::invalid_argument);
  CHECK(cache.erase("d"));
  CHECK(cache.used_bytes() == 40);
}

TEST_CASE("Storage costs and staging time", "[unit][storage]") {
  const StorageSpec s = parse(STORAGE);
  // 1 TB for a 730-hour month at $0.023/GB-month.
  CHECK(gcsim::models::storage_cost_usd(*s.find("s3"), 1e12, 730 * 3600.0) == Approx(23.0));
  // 1 GB in 1 MB objects: 1000 GETs at $0.0004/1k + $0.09 transfer.
  CHECK(gcsim::models::read_cost_usd(*s.find("s3"), 1e9, 1e6) == Approx(0.0004 + 0.09));
  CHECK(gcsim::models::read_cost_usd(*s.find("glacier"), 1e9, 1e6) == Approx(0.01));
  // ImageNet (140 GB of 109 KB files) from NFS to NVMe: 20k IOPS x 109 KB = 2.18 GB/s is
  // above 2 GB/s, so NFS bandwidth bounds it; NVMe writes at 3 GB/s: 70 s.
  CHECK(gcsim::models::staging_time_s(*s.find("nfs"), *s.find("nvme"), 140e9, 109e3, 64) == Approx(70.0));
  // From the archive: 12 h before the first byte.
  CHECK(gcsim::models::staging_time_s(*s.find("glacier"), *s.find("nvme"), 1e9, 1e6) == Approx(12 * 3600 + 1.0));
}
