// ascii_lower (sim/errors.hpp) does not depend on the C locale.
#include <clocale>
#include <string>

#include <catch2/catch.hpp>

#include "sim/errors.hpp"

TEST_CASE("ascii_lower ignores the C locale", "[unit]") {
  // In a Turkish locale std::tolower('I') is not 'i' for every C library; names must not
  // change meaning with the locale of a program that embeds gcsim.
  const char* old = std::setlocale(LC_ALL, nullptr);
  const std::string saved = old != nullptr ? old : "C";
  std::setlocale(LC_ALL, "tr_TR.ISO-8859-9");  // may not be installed: then C stays
  CHECK(gcsim::ascii_lower("AWS-GPU_Id") == "aws-gpu_id");
  CHECK(gcsim::ascii_lower("\xC4\xB0I\xDD") == "\xC4\xB0i\xDD");  // bytes >= 0x80 unchanged
  std::setlocale(LC_ALL, saved.c_str());
}
