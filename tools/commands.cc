#include "tools/commands.h"

#include <algorithm>

namespace tfprof::cli {
namespace {

std::vector<std::pair<int, RegisterFn>>& Registry() {
  static std::vector<std::pair<int, RegisterFn>> registry;
  return registry;
}

}  // namespace

CommandRegistration::CommandRegistration(int order, RegisterFn fn) { Registry().emplace_back(order, std::move(fn)); }

std::vector<RegisterFn> RegisteredCommands() {
  auto sorted = Registry();
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<RegisterFn> out;
  for (auto& [order, fn] : sorted) out.push_back(fn);
  return out;
}

}  // namespace tfprof::cli
