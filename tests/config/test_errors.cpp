// ConfigError formatting, the stable error codes, and did-you-mean.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "sim/errors.hpp"

using gcsim::ConfigError;
using gcsim::ErrorCode;
using gcsim::SourceMark;

TEST_CASE("error codes have stable kebab-case names", "[unit]") {
  CHECK(gcsim::error_code_name(ErrorCode::FileNotFound) == "file-not-found");
  CHECK(gcsim::error_code_name(ErrorCode::EmptyFile) == "empty-file");
  CHECK(gcsim::error_code_name(ErrorCode::Syntax) == "syntax");
  CHECK(gcsim::error_code_name(ErrorCode::TooDeep) == "too-deep");
  CHECK(gcsim::error_code_name(ErrorCode::UnknownKey) == "unknown-key");
  CHECK(gcsim::error_code_name(ErrorCode::MissingKey) == "missing-key");
  CHECK(gcsim::error_code_name(ErrorCode::WrongType) == "wrong-type");
  CHECK(gcsim::error_code_name(ErrorCode::BadUnit) == "bad-unit");
  CHECK(gcsim::error_code_name(ErrorCode::OutOfRange) == "out-of-range");
  CHECK(gcsim::error_code_name(ErrorCode::UnknownName) == "unknown-name");
  CHECK(gcsim::error_code_name(ErrorCode::Duplicate) == "duplicate");
  CHECK(gcsim::error_code_name(ErrorCode::Infeasible) == "infeasible");
  CHECK(gcsim::error_code_name(ErrorCode::Conflict) == "conflict");
}

TEST_CASE("ConfigError::what() leaves out the unknown parts", "[unit]") {
  const ConfigError full(ErrorCode::UnknownKey, SourceMark{"x.yaml", 12, 7}, "cluster.node_types[0].gpuz",
                         "unknown key 'gpuz'; did you mean 'gpus'?");
  CHECK(std::string(full.what()) ==
        "x.yaml:12:7: error[unknown-key]: cluster.node_types[0].gpuz: unknown key 'gpuz'; did you mean 'gpus'?");
  CHECK(full.code() == ErrorCode::UnknownKey);
  CHECK(full.mark().line == 12);
  CHECK(full.mark().column == 7);
  CHECK(full.key_path() == "cluster.node_types[0].gpuz");
  CHECK(full.detail() == "unknown key 'gpuz'; did you mean 'gpus'?");

  CHECK(std::string(ConfigError(ErrorCode::FileNotFound, SourceMark{"x.yaml", 0, 0}, "", "no such file").what()) ==
        "x.yaml: error[file-not-found]: no such file");
  CHECK(std::string(ConfigError(ErrorCode::Syntax, SourceMark{"x.yaml", 3, 0}, "", "bad").what()) ==
        "x.yaml:3: error[syntax]: bad");
  CHECK(std::string(ConfigError(ErrorCode::OutOfRange, SourceMark{"", 0, 0}, "a.b", "too big").what()) ==
        "error[out-of-range]: a.b: too big");

  // Every ConfigError is a gcsim::Error, the one type main() catches.
  REQUIRE_THROWS_AS(throw ConfigError(ErrorCode::Conflict, {}, "", "x"), gcsim::Error);
}

TEST_CASE("did_you_mean suggests the closest plausible candidate", "[unit]") {
  const std::vector<std::string> keys{"gpus", "memory", "node_types", "name", "count"};
  CHECK(gcsim::did_you_mean("gpuz", keys) == "gpus");
  CHECK(gcsim::did_you_mean("gpsu", keys) == "gpus");  // transposition counts as one edit
  CHECK(gcsim::did_you_mean("GPUS", keys) == "gpus");  // case-insensitive
  CHECK(gcsim::did_you_mean("node_typse", keys) == "node_types");
  CHECK(gcsim::did_you_mean("nodetypes", keys) == "node_types");
  CHECK(gcsim::did_you_mean("memroy", keys) == "memory");
  CHECK(gcsim::did_you_mean("xyz", keys).empty());
  CHECK(gcsim::did_you_mean("scheduler", keys).empty());
  CHECK(gcsim::did_you_mean("", keys).empty());
  CHECK(gcsim::did_you_mean("gpus", {}).empty());
  // Ties go to the earliest candidate, so the answer never depends on hashing or sorting.
  CHECK(gcsim::did_you_mean("cat", {"bat", "hat"}) == "bat");
  CHECK(gcsim::did_you_mean("cat", {"hat", "bat"}) == "hat");
  // One-letter words get at most one edit, not a match with everything.
  CHECK(gcsim::did_you_mean("x", {"memory"}).empty());
}
