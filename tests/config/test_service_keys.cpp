// `workload.services` (docs/serving.md, "Keys"): the issue's example reads as written, and
// every validation branch of models/config/service_reader.cpp is an error at the key's
// line and column, with its code and key path.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "support/scenario_support.hpp"

using namespace gcsim;
using gcsim::test::config_error;

namespace {

const std::string HEAD = R"(name: svc
horizon: 1h
cluster:
  node_types:
    - {name: n, gpu: A100-80GB-SXM, gpus: 8, count: 2, price: {on_demand_per_hour: 16}}
workload:
  services:
)";

models::Scenario load(const std::string& services) { return test::scenario_from_yaml(HEAD + services); }

// The error of a scenario with these services: its code and key path.
ConfigError error_of(const std::string& services) {
  return config_error([&] { (void)load(services); });
}

const std::string CLASSIFY = "    - {name: classify, requests: {arrival: {dist: exponential, mean: 25ms}}, latency: 20ms}\n";

}  // namespace

TEST_CASE("The issue's two services read as written", "[unit][config][serving]") {
  const models::Scenario s = load(R"(    - name: classify
      requests: {arrival: {dist: exponential, mean: 25ms}}
      latency: 20ms
      batching: {max_batch: 1}
      replicas: {count: 1, gpus: 1}
      slo: {p99: 200ms}
    - name: chat
      model: gpt2-xl
      precision: fp16
      team: web
      requests:
        arrival: {dist: exponential, mean: 200ms}
        prompt_tokens: {dist: lognormal, median: 512, sigma: 0.8}
        output_tokens: {dist: lognormal, median: 128, sigma: 0.7}
      batching: {mode: continuous, max_batch: 64, max_tokens: 8192}
      replicas: {min: 1, max: 8, gpus: 1, autoscale: {when: queue_length > 32, for: 1m}}
      slo: {ttft_p99: 2s, tpot_p99: 100ms}
      cold_start: 90s
      priority: 10
)");
  REQUIRE(s.workload.services.size() == 2);
  const auto& c = s.workload.services[0];
  CHECK(c.name == "classify");
  REQUIRE(c.latency);
  CHECK(c.latency->p1 == Approx(0.020));
  CHECK(c.arrival.kind == models::Distribution::Kind::Exponential);
  CHECK(c.arrival.p1 == Approx(0.025));
  CHECK(c.batching.max_batch == 1);
  CHECK(c.replicas.count == 1);
  CHECK(c.slo.p99_s == Approx(0.2));
  CHECK(std::isnan(c.slo.ttft_p99_s));
  CHECK(!c.model_tokens);
  const auto& chat = s.workload.services[1];
  CHECK(chat.model == "gpt2-xl");
  CHECK(chat.model_tokens);
  REQUIRE(chat.model_spec);
  CHECK(chat.batching.mode == models::serving::BatchingMode::Continuous);
  CHECK(chat.batching.max_tokens == 8192);
  CHECK(chat.replicas.min == 1);
  CHECK(chat.replicas.max == 8);
  CHECK(chat.replicas.count == 1);
  REQUIRE(chat.replicas.autoscale);
  CHECK(chat.replicas.autoscale->threshold == 32);
  CHECK(chat.replicas.autoscale->hold == sim::seconds(60));
  CHECK(chat.slo.ttft_p99_s == Approx(2.0));
  CHECK(chat.slo.tpot_p99_s == Approx(0.1));
  CHECK(chat.cold_start.fixed == sim::seconds(90));
  CHECK(chat.priority == 10);
  CHECK(chat.team_index == s.workload.team_index("web"));
  CHECK(s.output.service_interval == sim::seconds(60));
}

TEST_CASE("Bad services are refused at their key", "[unit][config][serving]") {
  const std::string ARR = "requests: {arrival: {dist: exponential, mean: 25ms}}";
  const std::string LLM_REQ =
      "requests: {arrival: {dist: exponential, mean: 25ms}, prompt_tokens: 100, output_tokens: 10}";
  auto one = [&](const std::string& body) { return "    - {name: s, " + body + "}\n"; };

  SECTION("unknown key: did-you-mean") {
    const ConfigError e = error_of(one(ARR + ", latency: 20ms, latncy: 3ms"));
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK(std::string(e.what()).find("latency") != std::string::npos);
  }
  SECTION("unknown key under batching") {
    CHECK(error_of(one(ARR + ", latency: 20ms, batching: {max_bach: 4}")).code() == ErrorCode::UnknownKey);
  }
  SECTION("both model and latency") {
    const ConfigError e = error_of(one(ARR + ", latency: 20ms, model: resnet50"));
    CHECK(e.code() == ErrorCode::Conflict);
    CHECK(e.key_path() == "workload.services[0].latency");
    CHECK(e.mark().line == 8);
  }
  SECTION("neither model nor latency") { CHECK(error_of(one(ARR)).code() == ErrorCode::MissingKey); }
  SECTION("no requests") { CHECK(error_of(one("latency: 20ms")).code() == ErrorCode::MissingKey); }
  SECTION("unknown model") {
    const ConfigError e = error_of(one(ARR + ", model: gpt2-xxl"));
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(std::string(e.what()).find("did you mean") != std::string::npos);
  }
  SECTION("a latency without a unit") { CHECK(error_of(one(ARR + ", latency: 20")).code() == ErrorCode::BadUnit); }
  SECTION("precision with latency") { CHECK(error_of(one(ARR + ", latency: 20ms, precision: fp16")).code() == ErrorCode::Conflict); }
  SECTION("arrival always 0") {
    CHECK(error_of(one("requests: {arrival: 0s}, latency: 20ms")).code() == ErrorCode::OutOfRange);
  }
  SECTION("an LLM without tokens") { CHECK(error_of(one(ARR + ", model: gpt2-xl")).code() == ErrorCode::MissingKey); }
  SECTION("tokens with latency") {
    const ConfigError e = error_of(one(LLM_REQ + ", latency: 20ms"));
    CHECK(e.code() == ErrorCode::Conflict);
    CHECK(e.key_path() == "workload.services[0].requests.prompt_tokens");
  }
  SECTION("tokens with a model without tokens") {
    CHECK(error_of(one(LLM_REQ + ", model: resnet50")).code() == ErrorCode::Conflict);
  }
  SECTION("tokens below 1") {
    CHECK(error_of(one("requests: {arrival: 1s, prompt_tokens: 0, output_tokens: 1}, model: gpt2-xl")).code() ==
          ErrorCode::OutOfRange);
  }
  SECTION("continuous batching with latency") {
    CHECK(error_of(one(ARR + ", latency: 20ms, batching: {mode: continuous}")).code() == ErrorCode::Conflict);
  }
  SECTION("continuous batching of a model without tokens") {
    CHECK(error_of(one(ARR + ", model: resnet50, batching: {mode: continuous}")).code() == ErrorCode::Conflict);
  }
  SECTION("an unknown mode") {
    CHECK(error_of(one(ARR + ", latency: 20ms, batching: {mode: continous}")).code() == ErrorCode::UnknownName);
  }
  SECTION("max_batch 0") { CHECK(error_of(one(ARR + ", latency: 20ms, batching: {max_batch: 0}")).code() == ErrorCode::OutOfRange); }
  SECTION("max_wait with continuous") {
    CHECK(error_of(one(LLM_REQ + ", model: gpt2-xl, batching: {mode: continuous, max_wait: 5ms}")).code() == ErrorCode::Conflict);
  }
  SECTION("max_tokens with dynamic") {
    CHECK(error_of(one(ARR + ", latency: 20ms, batching: {max_tokens: 100}")).code() == ErrorCode::Conflict);
  }
  SECTION("count with min") {
    const ConfigError e = error_of(one(ARR + ", latency: 20ms, replicas: {count: 2, min: 1, max: 3}"));
    CHECK(e.code() == ErrorCode::Conflict);
    CHECK(e.key_path() == "workload.services[0].replicas.min");
  }
  SECTION("min without max") { CHECK(error_of(one(ARR + ", latency: 20ms, replicas: {min: 1}")).code() == ErrorCode::MissingKey); }
  SECTION("max below min") {
    CHECK(error_of(one(ARR + ", latency: 20ms, replicas: {min: 3, max: 2, autoscale: {when: queue_length > 1}}")).code() ==
          ErrorCode::OutOfRange);
  }
  SECTION("min and max differ without autoscale") {
    CHECK(error_of(one(ARR + ", latency: 20ms, replicas: {min: 1, max: 2}")).code() == ErrorCode::MissingKey);
  }
  SECTION("autoscale with count") {
    CHECK(error_of(one(ARR + ", latency: 20ms, replicas: {count: 2, autoscale: {when: queue_length > 1}}")).code() ==
          ErrorCode::Conflict);
  }
  SECTION("autoscale: unknown measure, did-you-mean") {
    const ConfigError e = error_of(one(ARR + ", latency: 20ms, replicas: {min: 1, max: 2, autoscale: {when: queue_lenght > 1}}"));
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(std::string(e.what()).find("queue_length") != std::string::npos);
  }
  SECTION("autoscale: no comparison") {
    CHECK(error_of(one(ARR + ", latency: 20ms, replicas: {min: 1, max: 2, autoscale: {when: queue_length}}")).code() ==
          ErrorCode::Syntax);
  }
  SECTION("autoscale: not a number") {
    CHECK(error_of(one(ARR + ", latency: 20ms, replicas: {min: 1, max: 2, autoscale: {when: queue_length > x}}")).code() ==
          ErrorCode::Syntax);
  }
  SECTION("autoscale: a fractional queue length") {
    CHECK(error_of(one(ARR + ", latency: 20ms, replicas: {min: 1, max: 2, autoscale: {when: queue_length > 1.5}}")).code() ==
          ErrorCode::OutOfRange);
  }
  SECTION("autoscale: utilization without %") {
    CHECK(error_of(one(ARR + ", latency: 20ms, replicas: {min: 1, max: 2, autoscale: {when: utilization > 0.8}}")).code() ==
          ErrorCode::BadUnit);
  }
  SECTION("autoscale: utilization above 100%") {
    CHECK(error_of(one(ARR + ", latency: 20ms, replicas: {min: 1, max: 2, autoscale: {when: utilization > 120%}}")).code() ==
          ErrorCode::OutOfRange);
  }
  SECTION("autoscale: memory and kv_cache need an LLM") {
    for (const char* m : {"memory > 70%", "kv_cache > 80%"}) {
      INFO(m);
      CHECK(error_of(one(ARR + ", latency: 20ms, replicas: {min: 1, max: 2, autoscale: {when: " + m + "}}")).code() ==
            ErrorCode::Conflict);
    }
  }
  SECTION("autoscale: memory without %, kv_cache misspelt") {
    CHECK(error_of(one(LLM_REQ + ", model: gpt2-xl, batching: {mode: continuous}, replicas: {min: 1, max: 2, "
                                 "autoscale: {when: memory > 0.7}}")).code() == ErrorCode::BadUnit);
    const ConfigError e = error_of(one(LLM_REQ + ", model: gpt2-xl, replicas: {min: 1, max: 2, autoscale: {when: kv_cach > 80%}}"));
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(std::string(e.what()).find("did you mean 'kv_cache'") != std::string::npos);
  }
  SECTION("ttft target without an LLM") {
    CHECK(error_of(one(ARR + ", latency: 20ms, slo: {ttft_p99: 1s}")).code() == ErrorCode::Conflict);
  }
  SECTION("an SLO of 0") { CHECK(error_of(one(ARR + ", latency: 20ms, slo: {p99: 0s}")).code() == ErrorCode::OutOfRange); }
  SECTION("a share of a GPU for a replica of 2 GPUs") {
    CHECK(error_of(one(ARR + ", latency: 20ms, gpu_milli: 500, replicas: {gpus: 2}")).code() == ErrorCode::Conflict);
  }
  SECTION("a replica larger than any node") {
    const ConfigError e = error_of(one(ARR + ", latency: 20ms, replicas: {gpus: 16}"));
    CHECK(e.code() == ErrorCode::Infeasible);
    CHECK(e.key_path() == "workload.services[0].replicas.gpus");
  }
  SECTION("a GPU no node type has") {
    CHECK(error_of(one(ARR + ", latency: 20ms, gpu: T4")).code() == ErrorCode::Infeasible);
  }
  SECTION("a name with '/'") {
    CHECK(error_of("    - {name: a/b, " + ARR + ", latency: 20ms}\n").key_path() == "workload.services[0].name");
  }
  SECTION("a name used twice") { CHECK(error_of(CLASSIFY + CLASSIFY).code() == ErrorCode::Duplicate); }
  SECTION("cold_start negative") {
    CHECK(error_of(one(ARR + ", latency: 20ms, cold_start: -1s")).key_path() == "workload.services[0].cold_start");
  }
  SECTION("services not a list") {
    CHECK(error_of("      name: x\n").code() == ErrorCode::WrongType);
  }
}

TEST_CASE("autoscale on memory and on the KV cache read with their thresholds", "[unit][config][serving]") {
  const models::Scenario s = load(R"(    - name: a
      model: gpt2-xl
      requests: {arrival: 1s, prompt_tokens: 10, output_tokens: 10}
      batching: {mode: continuous}
      replicas: {min: 1, max: 4, autoscale: {when: memory > 70%, for: 1m}}
    - name: b
      model: gpt2-xl
      requests: {arrival: 1s, prompt_tokens: 10, output_tokens: 10}
      batching: {mode: continuous}
      replicas: {min: 1, max: 4, autoscale: {when: "kv_cache > 80.5%"}}
    - name: c
      model: gpt2-xl
      requests: {arrival: 1s, prompt_tokens: 10, output_tokens: 10}
      batching: {mode: continuous}
      replicas: {min: 1, max: 4, autoscale: {when: gpu_memory > 60%}}
)");
  using Measure = models::serving::ReplicaAutoscaleSpec::Measure;
  REQUIRE(s.workload.services.size() == 3);
  REQUIRE(s.workload.services[0].replicas.autoscale);
  CHECK(s.workload.services[0].replicas.autoscale->measure == Measure::Memory);
  CHECK(s.workload.services[0].replicas.autoscale->threshold == Approx(0.70));
  CHECK(s.workload.services[0].replicas.autoscale->hold == sim::SimTime::from_seconds(60));
  CHECK(s.workload.services[1].replicas.autoscale->measure == Measure::KvCache);
  CHECK(s.workload.services[1].replicas.autoscale->threshold == Approx(0.805));
  // The cluster autoscaler's name for the same measure.
  CHECK(s.workload.services[2].replicas.autoscale->measure == Measure::Memory);
  CHECK(s.workload.services[2].replicas.autoscale->threshold == Approx(0.60));
}

TEST_CASE("A workload of services alone is a workload", "[unit][config][serving]") {
  const models::Scenario s = load(CLASSIFY);
  CHECK(s.workload.jobs.empty());
  CHECK(s.workload.services.size() == 1);
}

TEST_CASE("requests.profile: a CSV of multipliers by hour, and its bad rows at their line", "[unit][config][serving]") {
  test::TempDir dir;
  const std::string yaml = HEAD + "    - {name: s, requests: {arrival: 1s, profile: day.csv}, latency: 1ms}\n";
  auto with = [&](const std::string& csv) {
    test::write_file(dir.file("day.csv"), csv);
    return test::scenario_from_yaml(yaml, dir.file("s.yaml"));
  };
  std::string day = "hour,multiplier\n";
  for (int h = 0; h < 24; ++h) day += std::to_string(h) + "," + std::to_string(h == 9 ? 3.0 : 0.5) + "\n";
  const models::Scenario s = with(day);
  const auto& sv = s.workload.services[0];
  const std::int64_t hour = 3'600 * sim::NS_PER_S;
  CHECK(sv.profile_rate(9 * hour) == 3.0);
  CHECK(sv.profile_rate(10 * hour - 1) == 3.0);
  CHECK(sv.profile_rate(10 * hour) == 0.5);
  CHECK(sv.profile_rate((24 + 9) * hour) == 3.0);  // every day alike
  CHECK(sv.profile_rate(168 * hour - 1) == 0.5);
  CHECK(sv.profile.size() == 1 + 7 * 2);  // equal neighbours merged: Monday 00-09, then 09-10 and 10-09 of the next day
  CHECK(sv.profile_max == 3.0);

  auto error = [&](const std::string& csv) { return config_error([&] { (void)with(csv); }); };
  SECTION("a wrong header") { CHECK(error("h,m\n0,1\n").code() == ErrorCode::Syntax); }
  SECTION("an hour out of range, at its line") {
    const ConfigError e = error("hour,multiplier\n200,1\n");
    CHECK(e.code() == ErrorCode::OutOfRange);
    CHECK(e.mark().line == 2);
  }
  SECTION("a negative multiplier") { CHECK(error("hour,multiplier\n0,-1\n").code() == ErrorCode::OutOfRange); }
  SECTION("an hour twice") { CHECK(error(day + "3,1\n").code() == ErrorCode::Duplicate); }
  SECTION("23 hours") { CHECK(error(day.substr(0, day.rfind("23,"))).code() == ErrorCode::OutOfRange); }
  SECTION("all zero") {
    std::string zero = "hour,multiplier\n";
    for (int h = 0; h < 24; ++h) zero += std::to_string(h) + ",0\n";
    CHECK(error(zero).code() == ErrorCode::OutOfRange);
  }
  SECTION("no file") {
    const ConfigError e = config_error([&] {
      (void)test::scenario_from_yaml(HEAD + "    - {name: s, requests: {arrival: 1s, profile: none.csv}, latency: 1ms}\n",
                                     dir.file("s.yaml"));
    });
    CHECK(e.key_path() == "workload.services[0].requests.profile");
  }
}

TEST_CASE("requests.trace: recorded requests from a CSV, and its bad cells at their line and column", "[unit][config][serving]") {
  test::TempDir dir;
  const std::string llm = "    - {name: s, model: llama-2-7b, requests: {trace: r.csv}, batching: {mode: continuous, max_batch: 8}}\n";
  auto with = [&](const std::string& services, const std::string& csv) {
    test::write_file(dir.file("r.csv"), csv);
    return test::scenario_from_yaml(HEAD + services, dir.file("s.yaml"));
  };
  auto error = [&](const std::string& services, const std::string& csv) {
    return config_error([&] { (void)with(services, csv); });
  };
  const models::Scenario s = with(llm, "# recorded\narrival_s,prompt_tokens,output_tokens\n0,10,2\n0.25,300,40\n0.25,7,1\n");
  const auto& sv = s.workload.services[0];
  REQUIRE(sv.trace);
  REQUIRE(sv.trace->size() == 3);
  CHECK(sv.trace_tokens);
  CHECK((*sv.trace)[1].arrival == sim::SimTime::from_ns(250000000));
  CHECK((*sv.trace)[1].prompt == 300);
  CHECK((*sv.trace)[1].output == 40);
  CHECK((*sv.trace)[2].output == 1);

  SECTION("times alone, the tokens drawn") {
    const models::Scenario t = with(
        "    - {name: s, model: llama-2-7b, requests: {trace: r.csv, prompt_tokens: 10, output_tokens: 5}, "
        "batching: {mode: continuous}}\n",
        "arrival_s\n1\n2\n");
    CHECK_FALSE(t.workload.services[0].trace_tokens);
    CHECK(t.workload.services[0].prompt_tokens.has_value());
  }
  SECTION("a latency service's times") {
    CHECK(with("    - {name: s, latency: 1ms, requests: {trace: r.csv}}\n", "arrival_s\n0.5\n").workload.services[0].trace->size() == 1);
  }
  SECTION("an unknown column, with a did-you-mean, at its column") {
    const ConfigError e = error(llm, "arrival_s,prompt_token,output_tokens\n0,1,1\n");
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK(e.mark().line == 1);
    CHECK(e.mark().column == 11);
    CHECK(e.detail().find("prompt_tokens") != std::string::npos);
  }
  SECTION("no arrival_s") { CHECK(error(llm, "prompt_tokens,output_tokens\n1,1\n").code() == ErrorCode::MissingKey); }
  SECTION("one token column") { CHECK(error(llm, "arrival_s,prompt_tokens\n0,1\n").code() == ErrorCode::MissingKey); }
  SECTION("a time out of order, at its line and column") {
    const ConfigError e = error(llm, "arrival_s,prompt_tokens,output_tokens\n2,1,1\n1,1,1\n");
    CHECK(e.code() == ErrorCode::OutOfRange);
    CHECK(e.mark().line == 3);
    CHECK(e.mark().column == 1);
  }
  SECTION("a negative time") { CHECK(error(llm, "arrival_s,prompt_tokens,output_tokens\n-1,1,1\n").code() == ErrorCode::OutOfRange); }
  SECTION("a token count of 0, at its column") {
    const ConfigError e = error(llm, "arrival_s,prompt_tokens,output_tokens\n0,0,1\n");
    CHECK(e.code() == ErrorCode::OutOfRange);
    CHECK(e.mark().column == 3);
  }
  SECTION("a row without its tokens") { CHECK(error(llm, "arrival_s,prompt_tokens,output_tokens\n0\n").code() == ErrorCode::MissingKey); }
  SECTION("trace and arrival") {
    CHECK(error("    - {name: s, latency: 1ms, requests: {trace: r.csv, arrival: 1s}}\n", "arrival_s\n0\n").code() ==
          ErrorCode::Conflict);
  }
  SECTION("trace and profile") {
    CHECK(error("    - {name: s, latency: 1ms, requests: {trace: r.csv, profile: day.csv}}\n", "arrival_s\n0\n").code() ==
          ErrorCode::Conflict);
  }
  SECTION("neither trace nor arrival") {
    CHECK(error("    - {name: s, latency: 1ms, requests: {}}\n", "arrival_s\n0\n").code() == ErrorCode::MissingKey);
  }
  SECTION("tokens in the file and as keys") {
    CHECK(error("    - {name: s, model: llama-2-7b, requests: {trace: r.csv, prompt_tokens: 5, output_tokens: 5}, "
                "batching: {mode: continuous}}\n",
                "arrival_s,prompt_tokens,output_tokens\n0,1,1\n")
              .code() == ErrorCode::Conflict);
  }
  SECTION("tokens for a latency service") {
    CHECK(error("    - {name: s, latency: 1ms, requests: {trace: r.csv}}\n", "arrival_s,prompt_tokens,output_tokens\n0,1,1\n").code() ==
          ErrorCode::Conflict);
  }
  SECTION("an LLM without tokens anywhere") {
    CHECK(error("    - {name: s, model: llama-2-7b, requests: {trace: r.csv}, batching: {mode: continuous}}\n", "arrival_s\n0\n").code() ==
          ErrorCode::MissingKey);
  }
}

TEST_CASE("requests.profile in the calendar's form: windows to the minute, the first that holds wins",
          "[unit][config][serving]") {
  const std::string yaml = HEAD +
                           "    - name: s\n"
                           "      latency: 1ms\n"
                           "      requests:\n"
                           "        arrival: 1s\n"
                           "        profile:\n"
                           "          windows:\n"
                           "            - {days: weekdays, hours: 09:30-18:00, rate: 3}\n"
                           "            - {days: weekdays, hours: 09:00-23:30, rate: 1.5}\n"
                           "            - {days: sat, hours: 22:00-02:00, rate: 0}\n";
  const models::Scenario s = test::scenario_from_yaml(yaml);
  const auto& sv = s.workload.services[0];
  const std::int64_t minute = 60 * sim::NS_PER_S, hour = 60 * minute, day = 24 * hour;
  CHECK(sv.profile_rate(0) == 1.0);  // otherwise: 1 by default
  CHECK(sv.profile_rate(9 * hour - 1) == 1.0);
  CHECK(sv.profile_rate(9 * hour) == 1.5);
  CHECK(sv.profile_rate(9 * hour + 30 * minute - 1) == 1.5);
  CHECK(sv.profile_rate(9 * hour + 30 * minute) == 3.0);  // 09:30, not 09:00
  CHECK(sv.profile_rate(18 * hour - 1) == 3.0);
  CHECK(sv.profile_rate(18 * hour) == 1.5);  // the first window ended; the second holds
  CHECK(sv.profile_rate(23 * hour + 30 * minute) == 1.0);
  CHECK(sv.profile_rate(4 * day + 12 * hour) == 3.0);  // Friday
  CHECK(sv.profile_rate(5 * day + 12 * hour) == 1.0);  // Saturday
  CHECK(sv.profile_rate(5 * day + 22 * hour) == 0.0);  // Saturday 22:00 to Sunday 02:00
  CHECK(sv.profile_rate(6 * day + 2 * hour - 1) == 0.0);
  CHECK(sv.profile_rate(6 * day + 2 * hour) == 1.0);
  CHECK(sv.profile_max == 3.0);
  // Monday: 0-09:00 1, -09:30 1.5, -18:00 3, -23:30 1.5, then 1 into Tuesday (merged with
  // Tuesday's first hours): 4 steps a weekday after the first one, the weekend's 2 more.
  CHECK(sv.profile.size() == 1 + 5 * 4 + 2);

  SECTION("otherwise") {
    const models::Scenario o = test::scenario_from_yaml(
        HEAD + "    - {name: s, latency: 1ms, requests: {arrival: 1s, profile: {windows: [{hours: 12:00-13:00, rate: 2}], "
               "otherwise: 0.25}}}\n");
    CHECK(o.workload.services[0].profile_rate(0) == 0.25);
    CHECK(o.workload.services[0].profile_rate(12 * hour) == 2.0);
  }
  const auto error = [](const std::string& profile) {
    return config_error([&] {
      (void)test::scenario_from_yaml(HEAD + "    - name: s\n      latency: 1ms\n      requests:\n        arrival: 1s\n"
                                            "        profile: " + profile + "\n");
    });
  };
  SECTION("an unknown key of a window: did you mean, at its line and column") {
    const ConfigError e = error("{windows: [{hours: 09:00-10:00, rat: 2}]}");
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK(std::string(e.what()).find("did you mean 'rate'") != std::string::npos);
    CHECK(e.mark().line == 12);  // the profile's line: HEAD is 7 lines
    CHECK(e.mark().column == 50);  // `rat`, 33rd of the value, which starts at column 18
  }
  SECTION("an unknown key of the profile") {
    const ConfigError e = error("{windows: [{rate: 2}], otherwize: 0}");
    CHECK(e.code() == ErrorCode::UnknownKey);
    CHECK(std::string(e.what()).find("did you mean 'otherwise'") != std::string::npos);
  }
  SECTION("a window without its rate") { CHECK(error("{windows: [{hours: 09:00-10:00}]}").code() == ErrorCode::MissingKey); }
  SECTION("a negative rate") { CHECK(error("{windows: [{rate: -1}]}").code() == ErrorCode::OutOfRange); }
  SECTION("an unknown day, as in quota windows") {
    const ConfigError e = error("{windows: [{days: mnday, rate: 2}]}");
    CHECK(e.code() == ErrorCode::UnknownName);
    CHECK(e.key_path() == "workload.services[0].requests.profile.windows[0].days");
  }
  SECTION("hours not HH:MM-HH:MM") { CHECK(error("{windows: [{hours: nine, rate: 2}]}").code() == ErrorCode::WrongType); }
  SECTION("no windows") { CHECK(error("{windows: []}").code() == ErrorCode::MissingKey); }
  SECTION("every rate 0") {
    CHECK(error("{windows: [{hours: 09:00-10:00, rate: 0}], otherwise: 0}").code() == ErrorCode::OutOfRange);
  }
  SECTION("a list") { CHECK(error("[1, 2]").code() == ErrorCode::WrongType); }
}
