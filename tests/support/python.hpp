// Tests that check our output with Python (json, h5py) the way users read it. Python 3 and
// python3-h5py are build dependencies (make deps installs them), so a missing interpreter
// fails the test; GCSIM_TESTS_WITHOUT_PYTHON=1 turns that into an explicit, logged skip.
#pragma once

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

namespace gcsim::test {

// True when /usr/bin/python3 can import `module`. When it cannot: fails the test, or, with
// GCSIM_TESTS_WITHOUT_PYTHON=1, warns and returns false (the caller returns).
inline bool python_with(const std::string& module) {
  const std::string probe = "/usr/bin/python3 -c 'import " + module + "' >/dev/null 2>&1";
  if (std::system(probe.c_str()) == 0) return true;
  const char* opt_out = std::getenv("GCSIM_TESTS_WITHOUT_PYTHON");
  if (opt_out && std::string(opt_out) == "1") {
    WARN("SKIPPED (GCSIM_TESTS_WITHOUT_PYTHON=1): /usr/bin/python3 with " << module << " is not available");
    return false;
  }
  FAIL("/usr/bin/python3 with " << module
                                << " is needed (make deps installs it); set GCSIM_TESTS_WITHOUT_PYTHON=1 to skip");
  return false;
}

}  // namespace gcsim::test
