// TensorFlow 1 timeline.json through op stats, kernel stats, the run
// environment and steps, against the independent counts of
// scripts/reference/tf1_timeline_facts.py over the raw JSON (plain Python, no
// code of ours), stored in testdata/reference/tf1_timeline/: every op row,
// every op type, every kernel row, every step and the memory peaks with the
// tensors alive at them, exact to the microsecond and byte (TF1 writes
// whole microseconds).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>

#include "lib/analyze/tf_stats_report.h"
#include "lib/model/tf1_timeline.h"
#include "lib/read/capture_discovery.h"
#include "lib/read/capture_loader.h"
#include "lib/summary/device_plane_to_op_metrics.h"
#include "lib/summary/event_grouping.h"
#include "lib/summary/host_summary.h"
#include "lib/summary/memory_events_to_profile.h"
#include "lib/summary/planes_to_step_db.h"
#include "tests/support/corpus.h"
#include "tests/support/skip.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using json = nlohmann::json;

namespace {

constexpr uint64_t kPsPerUs = 1'000'000;

json Facts(const std::string& name) {
  std::ifstream in(testing::SourcePath("testdata/reference/tf1_timeline/" + name));
  REQUIRE(in);
  return json::parse(in);
}

// As the command line reads a path: discovery, then the loader.
Host Load(const std::string& path) {
  DiscoveredInput input = DiscoverInput(path);
  REQUIRE(input.selected.files.size() == 1);
  Diagnostics d;
  return LoadCapture(input.selected.files[0], d);
}

uint64_t SumUs(const json& per_device) {
  uint64_t sum = 0;
  for (const auto& [device, us] : per_device.items()) sum += us.get<uint64_t>();
  return sum;
}

// Op rows (not IDLE) by name.
std::map<std::string, const OpMetrics*> Rows(const OpMetricsDb& db) {
  std::map<std::string, const OpMetrics*> out;
  for (const OpMetrics& m : db.rows())
    if (!m.is_idle()) out[m.name] = &m;
  return out;
}

void CheckOps(const OpMetricsDb& db, const json& want, bool host) {
  auto rows = Rows(db);
  CHECK(rows.size() == want.size());
  for (const auto& [key, v] : want.items()) {
    // Host ops are keyed "name:type", device ops "name" with a "type".
    const std::string name = host ? key.substr(0, key.rfind(':')) : key;
    const std::string type = host ? key.substr(key.rfind(':') + 1) : v["type"].get<std::string>();
    INFO((host ? "host op " : "device op ") << key);
    auto it = rows.find(name);
    REQUIRE(it != rows.end());
    CHECK(it->second->category == type);
    CHECK(it->second->occurrences == v["occurrences"].get<uint64_t>());
    CHECK(it->second->time_ps == v["total_us"].get<uint64_t>() * kPsPerUs);
    // Ops on a lane (host) or a stream (device) never nest in a timeline.
    CHECK(it->second->self_time_ps == it->second->time_ps);
  }
}

// op-stats --by type: occurrences and total time per op type.
void CheckTypes(const HostSummary& s, const json& facts) {
  TfStatsOptions options;
  options.by_type = true;
  options.with_idle = false;
  std::map<std::pair<bool, std::string>, const TfStatsRecord*> got;
  std::vector<TfStatsRecord> records = BuildTfStatsRecords(s, options);
  for (const TfStatsRecord& r : records) got[{r.on_device, r.op_type}] = &r;
  size_t want_rows = 0;
  for (bool device : {false, true}) {
    const json& want = facts[device ? "device_op_types" : "host_op_types"];
    want_rows += want.size();
    for (const auto& [type, v] : want.items()) {
      INFO((device ? "device" : "host") << " type " << type);
      auto it = got.find({device, type});
      REQUIRE(it != got.end());
      CHECK(it->second->occurrences == v["occurrences"].get<uint64_t>());
      CHECK(it->second->total_time_us == static_cast<double>(v["total_us"].get<uint64_t>()));
    }
  }
  CHECK(got.size() == want_rows);
}

void CheckKernels(const HostSummary& s, const json& facts) {
  using Row = std::tuple<std::string, std::string, uint64_t, uint64_t, uint64_t, uint64_t>;
  std::multiset<Row> got, want;
  for (const KernelReport& k : s.kernels.Sorted(0)) {
    got.insert({k.name, k.op_name, k.occurrences, k.total_ns, k.min_ns, k.max_ns});
    // A timeline records no launch parameters: none are made up.
    CHECK(k.params.grid == std::array<uint32_t, 3>{0, 0, 0});
    CHECK(k.params.registers_per_thread == 0);
  }
  for (const json& k : facts["kernels"])
    want.insert({k["kernel"], k["op"], k["occurrences"], k["total_us"].get<uint64_t>() * 1000,
                 k["min_us"].get<uint64_t>() * 1000, k["max_us"].get<uint64_t>() * 1000});
  CHECK(got == want);
  uint64_t total_ns = 0;
  for (const Row& r : got) total_ns += std::get<3>(r);
  CHECK(total_ns == facts["kernel_total_us"].get<uint64_t>() * 1000);
}

void CheckSteps(const Host& host, const json& facts) {
  Diagnostics d;
  EventGroups groups = GroupEvents(host, d);
  StepDb db = BuildStepDb(host, groups, {}, d);
  const json& want = facts["steps"];
  REQUIRE(db.steps.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("step " << i);
    const uint64_t begin_us = want[i]["begin_us"], end_us = want[i]["end_us"];
    std::string file = want[i]["file"];
    CHECK(db.steps[i].name == file.substr(0, file.rfind(".json")));
    CHECK(db.steps[i].duration_ps == (end_us - begin_us) * kPsPerUs);
    CHECK(static_cast<uint64_t>(host.time_origin_ns + db.steps[i].begin_ps / 1000) == begin_us * 1000);
  }
}

// The memory profile of the tensor lifetimes (show_memory=True): per
// allocator the peak of timeline.py's counters and the tensors alive then
// (its AllocationMaximum); a timeline without them has no profile.
void CheckMemory(const Host& host, const json& facts) {
  Diagnostics d;
  const HostMemoryProfile p = BuildMemoryProfile(host, {}, d);
  const json& want = facts["memory"];
  if (want.empty()) {
    CHECK(p.allocators.empty());
    CHECK_THAT(p.no_profile_reason, Catch::Contains("show_memory=True"));
    return;
  }
  CHECK(p.source == MemorySource::kTf1Timeline);
  REQUIRE(p.allocators.size() == want.size());
  for (const AllocatorMemoryProfile& a : p.allocators) {
    INFO("allocator " << a.memory_id);
    REQUIRE(want.contains(a.memory_id));
    const json& w = want[a.memory_id];
    CHECK(a.allocations == w["tensors"].get<int64_t>());
    CHECK(a.deallocations == w["tensors"].get<int64_t>());
    CHECK(a.peak_bytes == w["peak_bytes"].get<int64_t>());
    CHECK(a.peak.heap_bytes == w["peak_bytes"].get<int64_t>());
    // Times are since the host's time zero; the facts' are the JSON's.
    CHECK(host.time_origin_ns + (p.time_zero_ps + a.peak_time_ps) / 1000 == w["peak_ts_us"].get<int64_t>() * 1000);
    const std::string file = w["peak_file"];
    CHECK(p.step_names.at(a.peak_step) == file.substr(0, file.rfind(".json")));
    // Nothing a timeline does not hold is made up.
    CHECK(a.capacity_bytes == 0);
    CHECK(a.lifetime_peak_bytes == 0);
    // The breakdown: exactly the tensors alive, each with its bytes (rows
    // merge equal allocations of one op).
    std::multiset<std::pair<std::string, int64_t>> got, alive;
    int64_t unexplained = 0;
    for (const ActiveAllocation& r : a.active) {
      if (r.special >= 0) unexplained += r.requested_bytes;
      else
        for (int64_t i = 0; i < r.occurrences; ++i) got.insert({std::string(p.Str(r.op_name)), r.requested_bytes});
    }
    for (const auto& [tensor, bytes] : w["alive_at_peak"].items())
      alive.insert({tensor.substr(0, tensor.rfind(':') == std::string::npos ? tensor.size() : tensor.rfind(':')),
                    bytes.get<int64_t>()});
    CHECK(got == alive);
    CHECK(unexplained == 0);
  }
}

void CheckAgainstFacts(const Host& host, const json& facts) {
  Diagnostics d;
  HostSummary s = SummarizeHostOps(host, d);
  // One device per GPU (not one per stream view and its "Tensors" twin).
  CHECK(s.env.device_core_count == static_cast<int>(facts["gpus"].size()));
  CheckOps(s.host_ops, facts["host_ops"], /*host=*/true);
  CHECK(s.host_ops.total_op_time_ps == SumUs(facts["host_total_us_per_device"]) * kPsPerUs);
  CheckOps(DeviceOpsToTfOps(s.device_ops, /*with_idle=*/false), facts["device_ops"], /*host=*/false);
  CHECK(s.device_ops.total_op_time_ps == SumUs(facts["device_total_us_per_gpu"]) * kPsPerUs);
  CheckTypes(s, facts);
  CheckKernels(s, facts);
  CheckSteps(host, facts);
  CheckMemory(host, facts);
}

}  // namespace

TEST_CASE("TF1 timeline, GPU (dlprof feed_dict): every op, type, kernel and the step as counted over the JSON",
          "[tf1][op_stats][kernels][steps][corpus]") {
  REQUIRE_CORPUS(path, "tf1_timelines/dlprof/misc/timelines/feeddict/timeline_01.json");
  const json facts = Facts("corpus_dlprof_feeddict.json");
  REQUIRE(facts["gpus"].size() == 1);
  CheckAgainstFacts(Load(path), facts);
}

TEST_CASE("TF1 timeline, GPU, old device names (/gpu:0/stream:N, .../cpu:0)",
          "[tf1][op_stats][kernels][steps][corpus]") {
  REQUIRE_CORPUS(path, "tf1_timelines/blackbox-attacks/timeline_01.json");
  CheckAgainstFacts(Load(path), Facts("corpus_blackbox_attacks.json"));
}

TEST_CASE("TF1 timeline, GPU with XLA and NCCL, several executor lanes (mnist-xla)",
          "[tf1][op_stats][kernels][steps][corpus]") {
  REQUIRE_CORPUS(path, "tf1_timelines/mnist-xla/timeline.ctf.json");
  CheckAgainstFacts(Load(path), Facts("corpus_mnist_xla.json"));
}

TEST_CASE("TF1 timeline, CPU only (dlprof stock build)", "[tf1][op_stats][steps][corpus]") {
  REQUIRE_CORPUS(path, "tf1_timelines/dlprof/intel_mkl/timeline_base.ctf.json");
  const json facts = Facts("corpus_dlprof_intel_mkl_base.json");
  REQUIRE(facts["gpus"].empty());
  CheckAgainstFacts(Load(path), facts);
}

TEST_CASE("TF1 timelines of one run, one file per session.run: one host, one step per file", "[tf1][op_stats][steps]") {
  const std::string folder = testing::SourcePath("testdata/captures/tf1_timeline");
  DiscoveredInput input = DiscoverInput(folder);
  REQUIRE(input.selected.files.size() == 1);
  CHECK(input.selected.files[0].host == "timeline");
  CHECK(input.selected.files[0].more_steps.size() == 2);
  const json facts = Facts("capture_tf1_timeline.json");
  REQUIRE(facts["steps"].size() == 3);
  CheckAgainstFacts(Load(folder), facts);
}

TEST_CASE("Every file of a long TF1 timeline series is a step: none is cut by a profile window", "[tf1][steps]") {
  // Seven session.runs, 100 us apart, each one MatMul of 10 us.
  const std::string dir = testing::TempDir();
  for (int i = 1; i <= 7; ++i)
    std::ofstream(std::filesystem::path(dir) / ("timeline_" + std::to_string(i) + ".json"))
        << R"({"traceEvents":[{"ph":"M","pid":1,"name":"process_name","args":{"name":"/job:localhost/replica:0/task:0/device:CPU:0 Compute"}},)"
        << R"({"ph":"X","cat":"Op","name":"MatMul","pid":1,"tid":0,"ts":)" << 1000 + 100 * i
        << R"(,"dur":10,"args":{"name":"mm","op":"MatMul"}}]})";
  Host host = Load(dir);
  Diagnostics d;
  EventGroups groups = GroupEvents(host, d);
  std::vector<StepDb> per_host;
  per_host.push_back(BuildStepDb(host, groups, {}, d));
  // Captures with markers lose their first and last of more than five steps.
  StepDb steps = CombineHostSteps(std::move(per_host));
  REQUIRE(steps.steps.size() == 7);
  CHECK(steps.steps.front().name == "timeline_1");
  CHECK(steps.steps.back().name == "timeline_7");
  for (const StepRecord& s : steps.steps) CHECK(s.duration_ps == 10 * kPsPerUs);
}

TEST_CASE("IsTf1GpuExecutorLine: a TF1 timeline's GPU executor lines", "[tf1]") {
  CHECK(IsTf1GpuExecutorLine("/job:localhost/replica:0/task:0/device:GPU:0 Compute/0"));
  CHECK(IsTf1GpuExecutorLine("/job:localhost/replica:0/task:0/gpu:0 Compute/1"));  // Older naming.
  CHECK(IsTf1GpuExecutorLine("/job:localhost/replica:0/task:0/device:XLA_GPU:0 Compute/0"));
  CHECK_FALSE(IsTf1GpuExecutorLine("/job:localhost/replica:0/task:0/device:CPU:0 Compute/0"));
  CHECK_FALSE(IsTf1GpuExecutorLine("/job:localhost/replica:0/task:0/device:XLA_CPU:0 Compute/0"));
  CHECK_FALSE(IsTf1GpuExecutorLine("/job:localhost/replica:0/task:0/cpu:0 Compute/0 gpu:"));  // Only the device part.
}

namespace {

// A timeline as timeline.py writes it with show_memory=True, of tensors
// given by their lifetimes (us after `base`): object ids as timeline.py
// gives them (how many names it tracks: a name that comes again takes the
// count, so a later new name can get the same id), a deletion only for the
// last tracker of each name, one op spanning them all.
struct Lifetime {
  std::string name;
  int64_t created, deleted, bytes;
  std::string allocator = "cpu";
};
std::string ShowMemoryTimeline(const std::vector<Lifetime>& tensors, int64_t base) {
  std::string events =
      R"({"ph":"M","pid":1,"name":"process_name","args":{"name":"/job:localhost/replica:0/task:0/device:CPU:0 Compute"}},)"
      R"({"ph":"M","pid":2,"name":"process_name","args":{"name":"/job:localhost/replica:0/task:0/device:CPU:0 Tensors"}})";
  std::map<std::string, size_t> last;  // Name -> index of its last tracker.
  std::set<std::string> names;
  std::vector<int64_t> ids;
  int64_t end = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Lifetime& t = tensors[i];
    ids.push_back(static_cast<int64_t>(names.size()));
    names.insert(t.name);
    last[t.name] = i;
    end = std::max(end, t.deleted);
    const std::string at = std::to_string(base + t.created);
    events += R"(,{"ph":"N","cat":"Tensor","name":")" + t.name + R"(","pid":2,"tid":0,"ts":)" + at + R"(,"id":)" +
              std::to_string(ids[i]) + "}";
    events +=
        R"(,{"ph":"O","cat":"Tensor","name":")" + t.name + R"(","pid":2,"tid":0,"ts":)" + at + R"(,"id":)" +
        std::to_string(ids[i]) +
        R"(,"args":{"snapshot":{"tensor_description":"dtype: DT_FLOAT\nshape {\n}\nallocation_description {\n  requested_bytes: )" +
        std::to_string(t.bytes) + R"(\n  allocator_name: )" + t.allocator + R"(\n}\n"}}})";
  }
  for (const auto& [name, i] : last)
    events += R"(,{"ph":"D","cat":"Tensor","name":")" + name + R"(","pid":2,"tid":0,"ts":)" +
              std::to_string(base + tensors[i].deleted) + R"(,"id":)" + std::to_string(ids[i]) + "}";
  events += R"(,{"ph":"X","cat":"Op","name":"Op","pid":1,"tid":0,"ts":)" + std::to_string(base) + R"(,"dur":)" +
            std::to_string(end) + R"(,"args":{"name":"op","op":"Op"}})";
  return R"({"traceEvents":[)" + events + "]}";
}

std::string WriteTimelines(const std::vector<std::pair<std::string, std::string>>& files) {
  const std::string dir = testing::TempDir();
  for (const auto& [name, text] : files) std::ofstream(std::filesystem::path(dir) / name) << text;
  return dir;
}

constexpr int64_t kBase = 1'700'000'000'000'000;

// tf1_timeline_facts.py's memory entry of one allocator.
json AllocatorFacts(int64_t tensors, int64_t peak_bytes, int64_t peak_ts_us, const std::string& file,
                    const json& alive_at_peak) {
  return {{"tensors", tensors},
          {"peak_bytes", peak_bytes},
          {"peak_ts_us", peak_ts_us},
          {"peak_file", file},
          {"alive_at_peak", alive_at_peak}};
}

}  // namespace

TEST_CASE("TF1 memory: a name that comes again (a while loop) counts its last tracker only", "[tf1][memory]") {
  // w's first tracker is replaced; y gets the id of w's second one.
  const std::string dir = WriteTimelines(
      {{"timeline.json",
        ShowMemoryTimeline(
            {{"w", 0, 10, 100}, {"x", 5, 15, 1000}, {"w", 20, 30, 100}, {"y", 25, 60, 5000}, {"z", 60, 65, 10}},
            kBase)}});
  const json facts = {
      {"memory", {{"cpu", AllocatorFacts(4, 5100, kBase + 25, "timeline.json", {{"w", 100}, {"y", 5000}})}}}};
  CheckMemory(Load(dir + "/timeline.json"), facts);
}

TEST_CASE("TF1 memory: a tensor created and deleted in one microsecond is left out", "[tf1][memory]") {
  const std::string dir = WriteTimelines(
      {{"timeline.json", ShowMemoryTimeline({{"a", 0, 10, 100}, {"k", 3, 3, 1000}, {"b", 20, 30, 300}}, kBase)}});
  const json facts = {{"memory", {{"cpu", AllocatorFacts(2, 300, kBase + 20, "timeline.json", {{"b", 300}})}}}};
  CheckMemory(Load(dir + "/timeline.json"), facts);
}

TEST_CASE("TF1 memory: a series of equal steps peaks in the first, broken down there", "[tf1][memory]") {
  const std::vector<Lifetime> step = {
      {"a", 0, 10, 100}, {"a:1", 0, 10, 50}, {"b", 5, 15, 1000}, {"g", 0, 10, 7, "GPU_0_bfc"}};
  const std::string dir = WriteTimelines({{"timeline_1.json", ShowMemoryTimeline(step, kBase)},
                                          {"timeline_2.json", ShowMemoryTimeline(step, kBase + 1000)}});
  const json facts = {
      {"memory",
       {{"GPU_0_bfc", AllocatorFacts(2, 7, kBase, "timeline_1.json", {{"g", 7}})},
        {"cpu", AllocatorFacts(6, 1150, kBase + 5, "timeline_1.json", {{"a", 100}, {"a:1", 50}, {"b", 1000}})}}}};
  CheckMemory(Load(dir), facts);
}
