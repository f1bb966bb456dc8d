// The source resolver (see source_resolver.hpp).
#include "sim/config/source_resolver.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "sim/errors.hpp"

namespace gcsim::config {

namespace fs = std::filesystem;

namespace {
// A file at least this large has its digest computed beside the load (record()).
constexpr std::size_t PARALLEL_DIGEST_BYTES = std::size_t{1} << 20;
}  // namespace

std::string fnv1a64_hex(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string SourceResolver::resolve(std::string_view naming_file, std::string_view written) {
  const fs::path p{std::string(written)};
  if (p.is_absolute()) return p.lexically_normal().string();
  return (fs::path(std::string(naming_file)).parent_path() / p).lexically_normal().string();
}

const std::string* SourceResolver::find(const std::string& resolved) const {
  for (const SourceRecord& r : records_)
    if (r.resolved == resolved) return r.bytes.get();
  return nullptr;
}

RecordedSources paths_for_trace(const std::string& scenario_file, const std::vector<SourceRecord>& records,
                                bool absolute) {
  RecordedSources out{scenario_file, records};
  const auto absolute_form = [](const std::string& p) {
    std::error_code ec;
    const fs::path a = fs::absolute(p, ec);
    return ec ? p : a.lexically_normal().string();
  };
  if (absolute) {
    out.scenario_file = absolute_form(scenario_file);
    for (SourceRecord& r : out.records) r.resolved = absolute_form(r.resolved);
    return out;
  }
  // The bundled catalog folder: that of the bundled gpus.yaml (as a rerun finds it).
  fs::path catalog_dir;
  for (const SourceRecord& r : records)
    if (r.key.empty() && fs::path(r.resolved).filename() == "gpus.yaml") catalog_dir = fs::path(r.resolved).parent_path();
  const fs::path scenario_dir = fs::path(scenario_file).parent_path();
  out.scenario_file = fs::path(scenario_file).filename().string();
  // `p` below `dir` as a relative path (".." allowed only when `climb`), or "" when it is not.
  const auto below = [](const fs::path& p, const fs::path& dir, bool climb) -> std::string {
    if (dir.empty()) return p.is_relative() ? p.lexically_normal().string() : "";
    if (p.is_absolute() != dir.is_absolute()) return "";
    const fs::path rel = p.lexically_relative(dir);
    if (rel.empty() || (!climb && *rel.begin() == "..")) return "";
    return rel.string();
  };
  for (SourceRecord& r : out.records) {
    if (r.key.empty()) {
      const std::string rel = catalog_dir.empty() ? "" : below(r.resolved, catalog_dir, false);
      if (!rel.empty()) r.written = r.resolved = (fs::path(std::string(BUNDLED_FOLDER)) / rel).string();
    } else if (fs::path(r.written).is_relative()) {
      const std::string rel = below(r.resolved, scenario_dir, true);
      if (!rel.empty()) r.resolved = rel;
    }
  }
  return out;
}

SourceResolver SourceResolver::from_records(std::vector<SourceRecord> recorded) {
  for (const SourceRecord& r : recorded) {
    const std::string digest = "fnv1a64:" + fnv1a64_hex(r.bytes ? *r.bytes : std::string());
    if (digest != r.digest)
      throw Error("recorded input '" + r.resolved + "': its bytes have digest " + digest + ", the record says " +
                  r.digest + " (the record was changed or damaged)");
  }
  SourceResolver sources;
  sources.replay_ = true;
  sources.recorded_ = std::move(recorded);
  return sources;
}

std::shared_ptr<const std::string> SourceResolver::fetch(const std::string& resolved, FileRead& why) const {
  if (replay_) {
    for (const SourceRecord& r : recorded_)
      if (r.resolved == resolved) return r.bytes;
    why = FileRead{FileReadStatus::NotFound, {}, "not among the recorded inputs"};
    return nullptr;
  }
  why = try_read_regular_file(resolved, MAX_INPUT_FILE_BYTES);
  if (why.status != FileReadStatus::Ok) return nullptr;
  return std::make_shared<const std::string>(std::move(why.bytes));
}

std::string SourceResolver::missing(std::string_view what, const std::string& resolved, const FileRead& why) const {
  return "cannot read " + std::string(what) + " '" + resolved + "': " + why.reason;
}

const std::string& SourceResolver::record(std::string key, std::string written, std::string resolved,
                                          std::shared_ptr<const std::string> bytes) {
  SourceRecord r;
  r.key = std::move(key);
  r.written = std::move(written);
  r.resolved = std::move(resolved);
  // FNV-1a runs at one byte per multiply, in series: about 50 ms for the 46 MB jobs table
  // of a million jobs, 7-10% of its whole load. A file that large gets its digest on a
  // thread of its own, overlapping the parse that follows (the bytes are immutable and
  // shared); the digest is the same, only its time moves. Smaller ones are hashed here.
  r.bytes = std::move(bytes);
  bool deferred = false;
  if (r.bytes->size() >= PARALLEL_DIGEST_BYTES) {
    try {
      pending_digests_.emplace_back(records_.size(),
                                    std::async(std::launch::async, [bytes = r.bytes] {
                                      return "fnv1a64:" + fnv1a64_hex(*bytes);
                                    }));
      deferred = true;
    } catch (const std::system_error&) {
      // No thread to be had: hashed here, as a small file is.
    }
  }
  if (!deferred) r.digest = "fnv1a64:" + fnv1a64_hex(*r.bytes);
  records_.push_back(std::move(r));
  return *records_.back().bytes;
}

const std::vector<SourceRecord>& SourceResolver::records() {
  for (auto& [index, digest] : pending_digests_) records_[index].digest = digest.get();
  pending_digests_.clear();
  return records_;
}

const std::string& SourceResolver::read(const ConfigNode& at, std::string_view what) {
  if (!at.is_scalar()) at.fail(ErrorCode::WrongType, "expected a file name, got a " + std::string(at.kind_name()));
  const std::string written = at.scalar();
  std::string resolved = resolve(at.mark().file, written);
  const std::size_t path_bytes = std::max(written.size(), resolved.size());
  if (path_bytes > MAX_SOURCE_PATH_BYTES)
    at.fail(ErrorCode::OutOfRange, "the path of " + std::string(what) + " is " + std::to_string(path_bytes) +
                                       " bytes long; at most " + std::to_string(MAX_SOURCE_PATH_BYTES));
  if (at.path().size() > MAX_SOURCE_KEY_BYTES)
    at.fail(ErrorCode::OutOfRange, "a key path of " + std::to_string(at.path().size()) + " bytes; at most " +
                                       std::to_string(MAX_SOURCE_KEY_BYTES));
  if (const std::string* seen = find(resolved)) return *seen;
  FileRead why;
  std::shared_ptr<const std::string> bytes = fetch(resolved, why);
  if (!bytes && replay_) {
    // Not under the path resolve() gives here: the one record named at this key as written.
    const SourceRecord* match = nullptr;
    int matches = 0;
    for (const SourceRecord& r : recorded_)
      if (r.key == at.path() && r.written == written) match = (++matches == 1 ? &r : nullptr);
    if (matches == 1 && match != nullptr) bytes = match->bytes;
  }
  if (!bytes) at.fail(error_code(why), missing(what, resolved, why));
  return record(at.path(), written, std::move(resolved), std::move(bytes));
}

const std::string& SourceResolver::read_bundled(const std::string& path, std::string_view what) {
  if (const std::string* seen = find(path)) return *seen;
  FileRead why;
  std::shared_ptr<const std::string> bytes = fetch(path, why);
  if (!bytes) throw ConfigError(error_code(why), SourceMark{path, 0, 0}, "", missing(what, path, why));
  return record("", path, path, std::move(bytes));
}

void SourceResolver::add_records(const std::vector<SourceRecord>& records) {
  for (const SourceRecord& r : records)
    if (!find(r.resolved)) records_.push_back(r);
}

}  // namespace gcsim::config
