#include "tests/parity/parity.h"

#include <cmath>

#include "fmt/format.h"

namespace tfprof::parity {

void Tally::Text(const std::string& what, const std::string& ours, const std::string& theirs) {
  if (ours == theirs) {
    ++matched;
    return;
  }
  ++differed;
  if (first_differences.size() < 10)
    first_differences.push_back(fmt::format("{}: ours '{}' vs '{}'", what, ours, theirs));
}

void Tally::Count(const std::string& what, int64_t ours, int64_t theirs) {
  if (ours == theirs) {
    ++matched;
    return;
  }
  ++differed;
  worst_relative =
      std::max(worst_relative, std::abs(double(ours - theirs)) / std::max<double>(1, std::abs(double(theirs))));
  if (first_differences.size() < 10) first_differences.push_back(fmt::format("{}: ours {} vs {}", what, ours, theirs));
}

void Tally::Flag(const std::string& what, bool ours, bool theirs) {
  Text(what, ours ? "true" : "false", theirs ? "true" : "false");
}

void Tally::Number(const std::string& what, double ours, double theirs, double printed_unit) {
  const double diff = std::abs(ours - theirs);
  if (diff <= printed_unit * 1.0000001 || diff <= 0.001 * std::abs(theirs)) {
    ++matched;
    return;
  }
  ++differed;
  worst_relative = std::max(worst_relative, diff / std::max(std::abs(theirs), 1e-12));
  if (first_differences.size() < 10) first_differences.push_back(fmt::format("{}: ours {} vs {}", what, ours, theirs));
}

void Tally::Merge(const Tally& o) {
  matched += o.matched;
  differed += o.differed;
  not_compared += o.not_compared;
  worst_relative = std::max(worst_relative, o.worst_relative);
  for (const std::string& d : o.first_differences)
    if (first_differences.size() < 10) first_differences.push_back(d);
}

std::string Tally::Summary() const {
  std::string s = fmt::format("{} matched, {} differed, {} not compared", matched, differed, not_compared);
  if (differed) s += fmt::format(" (worst {:.3g}%)", worst_relative * 100);
  for (const std::string& d : first_differences) s += "\n  " + d;
  return s;
}

}  // namespace tfprof::parity
