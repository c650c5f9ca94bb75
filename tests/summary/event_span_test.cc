// ToNonOverlapped: a hand-worked case, and random spans against a brute
// force (each stretch between two boundary times belongs to the highest
// type covering all of it), with many equal times, across the packed-key
// sort and the wide-range fallback; and spans in lines, as steps give them
// (the merge of ascending runs).
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>

#include "lib/summary/event_span.h"

using namespace tfprof;

namespace {

std::vector<TypedSpan> BruteForce(const std::vector<TypedSpan>& spans) {
  std::set<int64_t> times;
  for (const TypedSpan& s : spans)
    if (s.end_ps > s.begin_ps) times.insert({s.begin_ps, s.end_ps});
  std::vector<TypedSpan> out;
  for (auto it = times.begin(); it != times.end() && std::next(it) != times.end(); ++it) {
    const int64_t from = *it, to = *std::next(it);
    int best = -1;
    for (const TypedSpan& s : spans)
      if (s.end_ps > s.begin_ps && s.begin_ps <= from && to <= s.end_ps)
        best = std::max(best, static_cast<int>(s.type));
    if (best < 0) continue;
    const auto type = static_cast<EventType>(best);
    if (!out.empty() && out.back().type == type && out.back().end_ps == from) out.back().end_ps = to;
    else out.push_back({type, from, to});
  }
  return out;
}

bool Same(const std::vector<TypedSpan>& a, const std::vector<TypedSpan>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].type != b[i].type || a[i].begin_ps != b[i].begin_ps || a[i].end_ps != b[i].end_ps) return false;
  return true;
}

}  // namespace

TEST_CASE("ToNonOverlapped: the highest type owns each stretch", "[steps]") {
  // Host compute 0..100, a kernel (compute 32) 20..50, a copy to the device
  // 40..60 (lower than compute 32), an empty span, and host compute again.
  const std::vector<TypedSpan> spans = {{EventType::kHostCompute, 0, 100},
                                        {EventType::kDeviceCompute32, 20, 50},
                                        {EventType::kHostToDevice, 40, 60},
                                        {EventType::kDeviceCompute16, 70, 70},
                                        {EventType::kHostCompute, 90, 120}};
  const std::vector<TypedSpan> expected = {{EventType::kHostCompute, 0, 20},
                                           {EventType::kDeviceCompute32, 20, 50},
                                           {EventType::kHostToDevice, 50, 60},
                                           {EventType::kHostCompute, 60, 120}};
  CHECK(Same(ToNonOverlapped(spans), expected));
  // Split over the two lists, in another order: the same pieces.
  const std::vector<TypedSpan> first(spans.begin() + 2, spans.end()), second(spans.begin(), spans.begin() + 2);
  CHECK(Same(ToNonOverlapped(first, second), expected));
  CHECK(ToNonOverlapped({}).empty());
}

TEST_CASE("ToNonOverlapped equals a brute force on random spans", "[steps]") {
  std::mt19937_64 rng(20261126);
  for (int round = 0; round < 300; ++round) {
    // Small time ranges make many spans start or end at the same instant;
    // some rounds spread times over more than 2^57 ps (the unpacked sort).
    const bool wide = round % 10 == 9;
    const int64_t base = static_cast<int64_t>(rng() % 1000) - 500;
    std::vector<TypedSpan> a, b;
    const size_t n = 1 + rng() % 40;
    for (size_t i = 0; i < n; ++i) {
      int64_t begin = base + static_cast<int64_t>(rng() % 50), end = begin + static_cast<int64_t>(rng() % 30) - 3;
      if (wide && i % 3 == 0) {
        begin += int64_t{1} << 60;
        end += int64_t{1} << 60;
      }
      const auto type = static_cast<EventType>(rng() % kEventTypes);
      (rng() % 2 ? a : b).push_back({type, begin, end});
    }
    std::vector<TypedSpan> all = a;
    all.insert(all.end(), b.begin(), b.end());
    INFO("round " << round);
    CHECK(Same(ToNonOverlapped(a, b), BruteForce(all)));
  }
}

TEST_CASE("ToNonOverlapped equals a brute force on spans that come line by line in time order", "[steps]") {
  // As a step's spans come: a few lines (streams, threads), each's events
  // in start order, some nesting; the boundaries then hold long ascending
  // runs and are merged rather than sorted.
  std::mt19937_64 rng(20261127);
  for (int round = 0; round < 200; ++round) {
    std::vector<TypedSpan> a, b;
    const size_t lines = 1 + rng() % 12;
    for (size_t l = 0; l < lines; ++l) {
      int64_t t = static_cast<int64_t>(rng() % 100);
      const size_t n = rng() % 80;
      std::vector<TypedSpan>& out = l % 3 == 0 ? b : a;
      for (size_t i = 0; i < n; ++i) {
        const int64_t begin = t, end = t + static_cast<int64_t>(rng() % 20);
        out.push_back({static_cast<EventType>(rng() % kEventTypes), begin, end});
        // Some events nest in the one before (host threads), most follow it.
        t = rng() % 4 == 0 ? begin + static_cast<int64_t>(rng() % 3) : end + static_cast<int64_t>(rng() % 5);
      }
    }
    std::vector<TypedSpan> all = a;
    all.insert(all.end(), b.begin(), b.end());
    INFO("round " << round);
    CHECK(Same(ToNonOverlapped(a, b), BruteForce(all)));
  }
}

TEST_CASE("ClassifyDeviceEvent: the reference's half/fp16 rule, and every type a name or shape names", "[steps]") {
  using R = DevicePrecisionRule;
  constexpr auto k16 = EventType::kDeviceCompute16, k32 = EventType::kDeviceCompute32;
  // The reference's rule, under either: the name without shapes, else the shapes.
  for (R rule : {R::kReference, R::kTypeNames}) {
    CHECK(ClassifyDeviceEvent("volta_fp16_s884gemm_fp16_128x128", "", rule) == k16);
    CHECK(ClassifyDeviceEvent("Eigen::half kernel", "", rule) == k16);
    CHECK(ClassifyDeviceEvent("volta_sgemm_128x64_nn", "", rule) == k32);
    CHECK(ClassifyDeviceEvent("fp16_named_kernel", "(float[32,10])", rule) == k32);  // The shapes decide.
    CHECK(ClassifyDeviceEvent("k", "(half[32,10],half[10])", rule) == k16);
  }
  // bfloat16 in the shapes, or a name that names a narrow
  // type (the caller's PrecisionNamedIn, once per name): 32-bit for the
  // reference, 16-bit by default.
  CHECK(ClassifyDeviceEvent("k", "(bfloat16[8,8])", R::kReference) == k32);
  CHECK(ClassifyDeviceEvent("k", "(bfloat16[8,8])", R::kTypeNames) == k16);
  CHECK(ClassifyDeviceEvent("k", "(float[8,8])", R::kTypeNames) == k32);
  CHECK(ClassifyDeviceEvent("ck_tile::FmhaFwdKernel<bfloat16_t>", "", R::kReference, true) == k32);
  CHECK(ClassifyDeviceEvent("ck_tile::FmhaFwdKernel<bfloat16_t>", "", R::kTypeNames, true) == k16);
  CHECK(ClassifyDeviceEvent("gemm_fusion_dot", "", R::kTypeNames, false) == k32);  // Names no type: as the reference.
}
