// Storage tiers: the parser's branches, IOPS-bound vs bandwidth-bound reads, contention on
// a device computed by hand (StorageTiers through the engine), LRU staging and the cost
// functions.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "models/storage/staging_cache.hpp"
#include "models/storage/storage_spec.hpp"
#include "models/storage/storage_tiers.hpp"
#include "sim/config/config_node.hpp"
#include "sim/engine.hpp"
#include "sim/errors.hpp"

using gcsim::ConfigError;
using gcsim::ErrorCode;
using gcsim::models::StagingCache;
using gcsim::models::StorageSpec;
using gcsim::models::StorageTiers;
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

// One device of a tier (read 100 MB/s, write 50 MB/s) in an engine, with its transfers
// started at engine instants; records when each copy ends and ends it there, as the
// storage coupling does.
struct Tier {
  static constexpr double READ = 100e6, WRITE = 50e6;
  Engine engine;
  StorageTiers tiers{engine};
  std::uint32_t device = tiers.device(0, -1);
  std::map<StorageTiers::TransferId, double> done_at_s;
  Tier() {
    engine.add_resource_model(&tiers);
    tiers.copy_done.connect([this](StorageTiers::TransferId id) {
      done_at_s[id] = engine.now().seconds();
      tiers.end(id);
      tiers.reshare(device);
    });
  }
  // A copy of `bytes` out of the tier (bandwidth READ), capped at `cap` bytes/s.
  StorageTiers::TransferId copy(double bytes, double cap = READ, std::uint32_t job = 0) {
    const auto id = tiers.start(device, StorageTiers::Kind::Copy, job, READ, cap, bytes);
    tiers.reshare(device);
    return id;
  }
  double rate(StorageTiers::TransferId id) const { return tiers.transfer(id).work.rate; }
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

TEST_CASE("Transfers on one storage device share its time (max-min)", "[model][storage]") {
  Tier t;

  SECTION("together from the start: 100 MB each at 50 MB/s, both done at 2 s") {
    const auto a = t.copy(100e6);
    const auto b = t.copy(100e6, Tier::READ, 1);
    CHECK(t.rate(a) == Approx(50e6));
    t.engine.run();
    CHECK(t.done_at_s.at(a) == Approx(2.0));
    CHECK(t.done_at_s.at(b) == Approx(2.0));
    CHECK(t.tiers.transfers_on(t.device).empty());
  }
  SECTION("staggered: A 150 MB at 0 s, B 50 MB at 0.5 s") {
    // A alone for 0.5 s (50 MB), then 50 MB/s each: B done at 1.5 s with A at 50 MB left,
    // then A alone at 100 MB/s: done at 2.0 s.
    const auto a = t.copy(150e6);
    StorageTiers::TransferId b = StorageTiers::NONE;
    struct Start {
      Tier* t;
      StorageTiers::TransferId* id;
      static void fire(void* self, std::uint64_t) {
        auto* s = static_cast<Start*>(self);
        *s->id = s->t->copy(50e6, Tier::READ, 1);
      }
    } start{&t, &b};
    t.engine.schedule_at(SimTime::from_seconds(0.5), &Start::fire, &start);
    t.engine.run();
    CHECK(t.done_at_s.at(b) == Approx(1.5));
    CHECK(t.done_at_s.at(a) == Approx(2.0));
  }
  SECTION("a capped transfer leaves the rest to the other") {
    const auto capped = t.copy(20e6, 20e6);
    const auto free = t.copy(80e6, Tier::READ, 1);
    CHECK(t.rate(capped) == Approx(20e6));
    CHECK(t.rate(free) == Approx(80e6));
    t.engine.run();
    CHECK(t.done_at_s.at(capped) == Approx(1.0));
    CHECK(t.done_at_s.at(free) == Approx(1.0));
  }
  SECTION("a reader's demand caps it like a per-stream limit") {
    // A read demanding 30 MB/s and a copy: the read takes 0.3 of the device time, the copy
    // the 0.7 left (70 MB/s). When the demand rises to 80 MB/s, both get half.
    const auto r = t.tiers.start(t.device, StorageTiers::Kind::Read, 0, Tier::READ, Tier::READ, 0);
    t.tiers.set_demand(r, 30e6);
    const auto c = t.copy(70e6, Tier::READ, 1);
    CHECK(t.rate(r) == Approx(30e6));
    CHECK(t.rate(c) == Approx(70e6));
    t.tiers.set_demand(r, 80e6);
    t.tiers.reshare(t.device);
    CHECK(t.rate(r) == Approx(50e6));
    CHECK(t.rate(c) == Approx(50e6));
    CHECK(t.tiers.transfer(r).demand == 80e6);
  }
  SECTION("a checkpoint writer slows a reader: half the device time each") {
    // Reads use the device at 100 MB/s, writes at 50 MB/s: with half the time each, the
    // copy reads 50 MB/s (done at 1 s) and the write writes 25 MB/s; then alone at 50 MB/s
    // it writes its last 25 MB by 1.5 s.
    const auto r = t.copy(50e6);
    const auto w = t.tiers.start(t.device, StorageTiers::Kind::Write, 1, Tier::WRITE, Tier::WRITE, 50e6);
    t.tiers.reshare(t.device);
    CHECK(t.rate(r) == Approx(50e6));
    CHECK(t.rate(w) == Approx(25e6));
    CHECK(t.tiers.transfer(w).work.finish == SimTime::from_seconds(2.0));  // predicted at 25 MB/s
    t.engine.run();
    CHECK(t.done_at_s.at(r) == Approx(1.0));
    CHECK(t.tiers.transfer(w).work.finish == SimTime::from_seconds(1.5));
    CHECK(t.done_at_s.count(w) == 0);  // a write's end is its owner's event
  }
  SECTION("ending a transfer frees the device") {
    const auto a = t.copy(100e6);
    const auto b = t.copy(100e6, Tier::READ, 1);
    t.tiers.end(b);
    t.tiers.reshare(t.device);
    CHECK(t.rate(a) == Approx(100e6));
    t.engine.run();
    CHECK(t.done_at_s.at(a) == Approx(1.0));
    CHECK(t.done_at_s.count(b) == 0);
  }
  SECTION("a job's transfers are listed by job, its write after its read") {
    const auto w0 = t.tiers.start(t.device, StorageTiers::Kind::Write, 0, Tier::WRITE, Tier::WRITE, 1e6);
    const auto r1 = t.tiers.start(t.device, StorageTiers::Kind::Read, 1, Tier::READ, Tier::READ, 0);
    const auto r0 = t.tiers.start(t.device, StorageTiers::Kind::Read, 0, Tier::READ, Tier::READ, 0);
    const auto on = t.tiers.reshare(t.device);
    REQUIRE(on.size() == 3);
    CHECK(on[0] == r0);
    CHECK(on[1] == w0);
    CHECK(on[2] == r1);
  }
  SECTION("devices are separate resources") {
    const std::uint32_t nvme0 = t.tiers.device(1, 0), nvme1 = t.tiers.device(1, 1);
    CHECK(nvme0 != nvme1);
    CHECK(t.tiers.device(1, 0) == nvme0);
    // Ids in order of first use, whatever the order of tiers and nodes asked.
    CHECK(t.tiers.device(3, 7) == nvme1 + 1);
    CHECK(t.tiers.device(2, -1) == nvme1 + 2);
    CHECK(t.tiers.device(3, 7) == nvme1 + 1);
    CHECK(t.tiers.device(0, -1) == t.device);
    const auto a = t.tiers.start(nvme0, StorageTiers::Kind::Read, 0, 10e6, 10e6, 0);
    const auto b = t.tiers.start(nvme1, StorageTiers::Kind::Read, 1, 10e6, 10e6, 0);
    t.tiers.reshare(nvme0);
    t.tiers.reshare(nvme1);
    CHECK(t.rate(a) == Approx(10e6));
    CHECK(t.rate(b) == Approx(10e6));
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
