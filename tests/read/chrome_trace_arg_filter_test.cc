// The Chrome trace reader's arg filter (ReadOptions::event_stats without
// keep_all, chrome_trace_arg_filter.h): the args no analysis reads are
// skipped unread and counted; the analysed ones and those the conventions
// read stay, with their values; metadata and counter events keep every arg.
#include <catch2/catch.hpp>

#include <string>

#include "lib/model/stat_finder.h"
#include "lib/read/chrome_trace_arg_filter.h"
#include "lib/read/chrome_trace_reader.h"
#include "tests/support/model_lookup.h"

using namespace tfprof;
using tfprof::testing::EventStat;
using tfprof::testing::PlaneNamed;

namespace {

Host Read(const std::string& json, const EventStatFilter& kept, Diagnostics& diag) {
  ReadOptions options;
  options.event_stats = kept;
  return ReadChromeTraceText(json, "filter.trace.json", diag, options);
}

// A Kineto-shaped trace: a CPU op with an analysed arg (External id is not),
// a runtime call and its kernel linked by `correlation` (a convention's
// input), the kernel's launch figures, a counter, and process labels.
const char* kKineto = R"({"traceEvents": [
  {"ph": "M", "name": "process_labels", "pid": 1, "tid": 0, "args": {"labels": "CPU"}},
  {"ph": "M", "name": "process_labels", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 7, "ts": 10, "dur": 20,
   "args": {"External id": 3, "Ev Idx": 0, "Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"],
            "Python parent id": null}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 7, "ts": 12, "dur": 5,
   "args": {"cbid": 211, "correlation": 99, "External id": 3}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 30, "dur": 8,
   "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 99, "registers per thread": 64,
            "shared memory": 0, "blocks per SM": 0.5, "warps per SM": 2.0, "grid": [1, 1, 1], "block": [64, 1, 1],
            "est. achieved occupancy %": 3}},
  {"ph": "C", "name": "load", "pid": 1, "tid": 7, "ts": 40, "args": {"cpu": 0.5, "gpu": 0.25}}
]})";

TEST_CASE("The Chrome trace reader skips the args no analysis reads, and counts them", "[filter][json]") {
  Diagnostics all_diag, some_diag;
  const Host all = Read(kKineto, EventStatFilter(), all_diag);
  const Host some = Read(kKineto, EventStatFilter::Only({"registers per thread", "shared memory"}), some_diag);
  CHECK(all.event_stats_dropped == 0);
  // External id, Ev Idx, Input Dims; cbid, External id; queued, device,
  // context, blocks and warps per SM, occupancy.
  CHECK(some.event_stats_dropped == 3 + 2 + 6);
  // A null arg is not kept either way, and said to be so either way.
  CHECK(all_diag.Count("json.null_arg") == 1);
  CHECK(some_diag.Count("json.null_arg") == 1);

  const Plane& cpu = PlaneNamed(some, "/host:CPU");
  const Line& thread = cpu.lines.at(0);
  REQUIRE(thread.events.size() == 2);
  CHECK_FALSE(EventStat(some, cpu, thread, 0, "External id"));
  CHECK_FALSE(EventStat(some, cpu, thread, 0, "Input Dims"));
  CHECK(EventStat(some, cpu, thread, 0, "Input type"));           // The conventions make op_input_types of it.
  CHECK(EventStat(some, cpu, thread, 0, "tf_op"));                // What they add is not filtered.
  auto corr = EventStat(some, cpu, thread, 1, "correlation_id");  // Renamed from `correlation`.
  REQUIRE(corr);
  CHECK(corr->AsInt() == 99);
  CHECK_FALSE(EventStat(some, cpu, thread, 1, "cbid"));

  const Plane& gpu = PlaneNamed(some, "/device:GPU:0");
  REQUIRE(gpu.lines.size() >= 1);
  const Line& stream = gpu.lines.at(0);
  CHECK(stream.id == 7);  // From the kept `stream` arg.
  auto regs = EventStat(some, gpu, stream, 0, "registers per thread");
  REQUIRE(regs);
  CHECK(regs->AsInt() == 64);
  CHECK(EventStat(some, gpu, stream, 0, "grid"));
  CHECK_FALSE(EventStat(some, gpu, stream, 0, "est. achieved occupancy %"));
  CHECK_FALSE(EventStat(some, gpu, stream, 0, "queued"));
  // The whole read keeps them all.
  const Plane& whole_gpu = PlaneNamed(all, "/device:GPU:0");
  CHECK(EventStat(all, whole_gpu, whole_gpu.lines.at(0), 0, "est. achieved occupancy %"));
  CHECK(EventStat(all, PlaneNamed(all, "/host:CPU"), PlaneNamed(all, "/host:CPU").lines.at(0), 0, "External id"));

  // Counter values are args, kept whatever their names.
  bool counters = false;
  for (const Line& l : cpu.lines)
    if (some.LineName(l) == "_counters_") {
      counters = true;
      REQUIRE(l.events.size() == 1);
      CHECK(EventStat(some, cpu, l, 0, "cpu"));
      CHECK(EventStat(some, cpu, l, 0, "gpu"));
    }
  CHECK(counters);
}

TEST_CASE("An event whose args come before its phase keeps them all", "[filter][json]") {
  const std::string json = R"([
    {"args": {"cbid": 1, "correlation": 5}, "ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 1},
    {"ph": "X", "args": {"cbid": 1, "correlation": 6}, "name": "b", "pid": 1, "tid": 1, "ts": 2, "dur": 1}])";
  Diagnostics diag;
  const Host h = Read(json, EventStatFilter::Only({}), diag);
  CHECK(h.event_stats_dropped == 1);
  const Plane& p = h.planes.at(0);
  CHECK(EventStat(h, p, p.lines.at(0), 0, "cbid"));
  CHECK_FALSE(EventStat(h, p, p.lines.at(0), 1, "cbid"));
  CHECK(EventStat(h, p, p.lines.at(0), 1, "correlation"));
}

TEST_CASE("The arg filter keeps the analysed names and the conventions' inputs", "[filter][json]") {
  CHECK(TraceArgFilter::For(EventStatFilter()) == nullptr);
  const auto filter =
      TraceArgFilter::For(EventStatFilter::Only({"tf_op", "a", "a very long name of more than forty bytes, kept"}));
  REQUIRE(filter);
  for (std::string_view kept : {"tf_op", "a", "a very long name of more than forty bytes, kept", "correlation",
                                "stream", "grid", "block", "Input type", "long_name", "name", "op"})
    CHECK(filter->Keeps(kept));
  for (std::string_view dropped : {"", "b", "tf_oq", "uf_op", "tf_op ", "cbid", "Ev Idx", "Input Dims",
                                   "a very long name of more than forty bytes, kepT"})
    CHECK_FALSE(filter->Keeps(dropped));
}

}  // namespace
