// Comparisons of two memory profiles, field by field, for the tests that
// build one profile two ways (pieces, threads, sampling, allocator records).
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include "lib/model/diagnostics.h"
#include "lib/summary/memory_events_to_profile.h"

namespace tfprof::testing {

// The same diagnostics, counts and examples included.
inline void CheckSameDiagnostics(const Diagnostics& a, const Diagnostics& b) {
  const std::vector<DiagnosticEntry> got = a.Entries(), want = b.Entries();
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i)
    CHECK(std::tie(got[i].kind, got[i].count, got[i].example) ==
          std::tie(want[i].kind, want[i].count, want[i].example));
}

// Every field of two profiles' allocators, snapshot by snapshot.
inline void CheckSameProfile(const HostMemoryProfile& a, const HostMemoryProfile& b) {
  auto snapshot = [](const HostMemoryProfile& h, const MemorySnapshot& s) {
    return std::make_tuple(s.time_ps, s.stack_bytes, s.heap_bytes, s.free_bytes, s.fragmentation, s.peak_bytes_in_use,
                           s.requested_bytes, s.allocation_bytes, s.address, s.data_type, s.step,
                           std::string(h.Str(s.op_name)), std::string(h.Str(s.region_type)),
                           std::string(h.Str(s.shape)), s.activity);
  };
  auto row = [](const HostMemoryProfile& h, const ActiveAllocation& r) {
    return std::make_tuple(r.allocation_bytes, r.requested_bytes, std::string(h.Str(r.op_name)),
                           std::string(h.Str(r.region_type)), r.data_type, std::string(h.Str(r.shape)), r.occurrences,
                           r.step, r.snapshot, r.special);
  };
  REQUIRE(a.allocators.size() == b.allocators.size());
  for (size_t i = 0; i < a.allocators.size(); ++i) {
    const AllocatorMemoryProfile &x = a.allocators[i], &y = b.allocators[i];
    INFO("allocator " << x.memory_id);
    CHECK(x.memory_id == y.memory_id);
    CHECK(x.timeline_events == y.timeline_events);
    CHECK(x.sampled_to == y.sampled_to);
    CHECK(x.reference_points == y.reference_points);
    CHECK(x.legacy_points == y.legacy_points);
    REQUIRE(x.timeline.size() == y.timeline.size());
    for (size_t s = 0; s < x.timeline.size(); ++s) {
      INFO("snapshot " << s);
      CHECK(snapshot(a, x.timeline[s]) == snapshot(b, y.timeline[s]));
    }
    CHECK(snapshot(a, x.peak) == snapshot(b, y.peak));
    CHECK(std::make_tuple(x.allocations, x.deallocations, x.lifetime_peak_bytes, x.peak_bytes, x.peak_time_ps,
                          x.capacity_bytes,
                          x.peak_step) == std::make_tuple(y.allocations, y.deallocations, y.lifetime_peak_bytes,
                                                          y.peak_bytes, y.peak_time_ps, y.capacity_bytes, y.peak_step));
    REQUIRE(x.active.size() == y.active.size());
    for (size_t r = 0; r < x.active.size(); ++r) CHECK(row(a, x.active[r]) == row(b, y.active[r]));
    REQUIRE(x.specials.size() == y.specials.size());
    for (size_t r = 0; r < x.specials.size(); ++r) CHECK(row(a, x.specials[r]) == row(b, y.specials[r]));
  }
}

}  // namespace tfprof::testing
