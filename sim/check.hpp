// Always-on invariant checks. An invariant that fails is a bug in gcsim, not in the input:
// it throws InternalError (never abort()), in every build type, because a simulation that
// goes on past a broken invariant gives plausible but wrong numbers, and because a sweep
// running thousands of simulations in one process must lose only the run that failed.
// main() maps InternalError to exit code 1 ("internal error: ..."); a sweep driver records
// it against the run's scenario and goes on.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace gcsim {

// A broken invariant: a programming error, never a user's. Not a gcsim::Error (those are
// user-caused and exit with code 2).
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

namespace detail {
// `file` (a __FILE__) relative to the source tree: a message names "models/cluster/
// scheduling.cpp:92", never the build machine's folders. The tree's root is this header's
// own __FILE__ less "sim/check.hpp" (the compiler names both from the same -I root); a
// path outside it, or already relative, stays as it is.
inline std::string_view source_relative(std::string_view file) {
  constexpr std::string_view self = __FILE__;
  constexpr std::string_view tail = "sim/check.hpp";
  if (self.size() < tail.size() || self.substr(self.size() - tail.size()) != tail) return file;
  const std::string_view root = self.substr(0, self.size() - tail.size());
  if (root.empty() || !file.starts_with(root)) return file;
  return file.substr(root.size());
}

[[noreturn, gnu::cold, gnu::noinline]] inline void check_failed(const char* file, int line, const char* cond,
                                                              const std::string& what) {
  throw InternalError(std::string(source_relative(file)) + ":" + std::to_string(line) + ": " + what + " (check '" +
                      cond + "' failed)");
}
}  // namespace detail

}  // namespace gcsim

// GCSIM_CHECK(cond, what): `what` is any expression convertible to std::string, evaluated
// only when the check fails, so building a message costs nothing on the fast path.
#define GCSIM_CHECK(cond, what)                                                   \
  do {                                                                            \
    if (!(cond)) [[unlikely]]                                                     \
      ::gcsim::detail::check_failed(__FILE__, __LINE__, #cond, std::string(what)); \
  } while (0)
