// tf-data: hand-checked small captures, the real captures, and parity with
// the TensorFlow Profiler's tf_data_bottleneck_analysis (testdata/reference).
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lib/analyze/tf_data_pipelines_to_report.h"
#include "lib/read/capture_discovery.h"
#include "lib/read/capture_loader.h"
#include "lib/read/xplane_reader.h"
#include "lib/render/render.h"
#include "lib/summary/tf_data_events_to_pipelines.h"
#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"
#include "tests/support/skip.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using tfprof::testing::RunTool;
using tfprof::testing::XSpaceBuilder;
using json = nlohmann::json;

namespace {

constexpr int64_t kUs = 1'000'000;  // ps

TfDataAnalysis Analyse(const std::vector<XSpaceBuilder*>& spaces, bool xprof_ids = false) {
  TfDataAnalysis a;
  Diagnostics d;
  TfDataOptions o;
  o.xprof_ids = xprof_ids;
  int n = 0;
  for (XSpaceBuilder* s : spaces) {
    Host h = ReadXSpaceBytes(s->Serialize(), "file" + std::to_string(n++), d);
    CombineTfData(a, SummarizeTfData(h, o, d));
  }
  FinalizeTfData(a);
  return a;
}

const TfDataIteratorCall& Call(const TfDataExecution& ex, uint64_t id) {
  for (const TfDataIteratorCall& c : ex.iterators)
    if (c.id == id) return c;
  FAIL("iterator " << id << " not in the execution");
  throw std::logic_error("unreachable");
}

// The reference's HostInputPipeline case: a Prefetch (id 123) over a Range
// (id 456) made on another thread. The first call waits 80 us for Range;
// the second finds its element ready (made earlier, no overlap).
XSpaceBuilder PrefetchOverRange() {
  XSpaceBuilder space;
  space.Hostname("host1");
  auto& p = space.Plane("/host:CPU", 0);
  p.Line(1, "consumer")
      .Event("Iterator::Prefetch", 0, 100 * kUs, {{"id", int64_t{123}}})
      .Event("PrefetchConsume", 80 * kUs, 20 * kUs, {{"element_id", int64_t{0}}})
      .Event("Iterator::Prefetch", 200 * kUs, 20 * kUs, {{"id", int64_t{123}}})
      .Event("PrefetchConsume", 210 * kUs, 10 * kUs, {{"element_id", int64_t{1}}});
  p.Line(2, "producer")
      .Event("PrefetchProduce", 0, 80 * kUs, {{"element_id", int64_t{0}}})
      .Event("Iterator::Prefetch::Range", 0, 80 * kUs, {{"id", int64_t{456}}, {"parent_id", int64_t{123}}})
      .Event("PrefetchProduce", 100 * kUs, 80 * kUs, {{"element_id", int64_t{1}}})
      .Event("Iterator::Prefetch::Range", 100 * kUs, 80 * kUs, {{"id", int64_t{456}}, {"parent_id", int64_t{123}}});
  return space;
}

}  // namespace

TEST_CASE("tf-data: prefetch over range, the critical path follows the overlap", "[tfdata]") {
  XSpaceBuilder space = PrefetchOverRange();
  TfDataAnalysis a = Analyse({&space});
  REQUIRE(a.hosts.size() == 1);
  REQUIRE(a.hosts[0].pipelines.size() == 1);
  const TfDataPipeline& p = a.hosts[0].pipelines[0];
  CHECK(p.name == "Host:0");
  CHECK(p.root_id == 123);
  CHECK(p.kind == TfDataPipelineKind::kHost);
  CHECK(p.min_ps == 20 * kUs);
  CHECK(p.avg_ps == 60 * kUs);
  CHECK(p.max_ps == 100 * kUs);
  CHECK(p.slow_calls == 1);
  REQUIRE(p.executions.size() == 2);
  // Slowest call: Range overlapped the wait by 80 us, so it blocks and is
  // the bottleneck; the Prefetch keeps 100 - 80 = 20 us of its own.
  const TfDataExecution& slow = p.executions[0];
  CHECK(slow.duration_ps == 100 * kUs);
  CHECK(Call(slow, 123).self_ps == 20 * kUs);
  CHECK(Call(slow, 456).self_ps == 80 * kUs);
  CHECK(Call(slow, 456).blocking);
  CHECK(slow.bottleneck_id == 456);
  CHECK(slow.bottleneck_self_ps == 80 * kUs);
  // Fast call: its element was made before the call, so Range is off the
  // critical path and the Prefetch itself is the bottleneck.
  const TfDataExecution& fast = p.executions[1];
  CHECK(Call(fast, 123).self_ps == 20 * kUs);
  CHECK(Call(fast, 456).self_ps == 80 * kUs);
  CHECK_FALSE(Call(fast, 456).blocking);
  CHECK(fast.bottleneck_id == 123);
  CHECK(fast.bottleneck_self_ps == 20 * kUs);
  CHECK(a.hosts[0].linked_producers == 2);

  REQUIRE(a.bottlenecks.size() == 1);
  CHECK(a.bottlenecks[0].host == "host1");
  CHECK(a.bottlenecks[0].iterator_name == "Range");
  CHECK(a.bottlenecks[0].iterator_long_name == "Iterator::Prefetch::Range");
  CHECK(a.bottlenecks[0].iterator_self_ps == 80 * kUs);
  CHECK(a.input_bound);
  CHECK(ClassifyTfDataBottleneck("Range") == TfDataBottleneckKind::kOther);
  CHECK(a.hosts[0].iterators.at(123).is_async);
  CHECK_FALSE(a.hosts[0].iterators.at(456).is_async);
}

TEST_CASE("tf-data: synchronous chain, self time and a Map bottleneck", "[tfdata]") {
  // Root [0,100] -> Map [10,90] -> TensorSlice twice ([20,30], [40,50]).
  XSpaceBuilder space;
  space.Hostname("h");
  space.Plane("/host:CPU", 0)
      .Line(1, "t")
      .Event("Iterator::Root", 0, 100 * kUs, {{"id", int64_t{1}}})
      .Event("Iterator::Root::Map", 10 * kUs, 80 * kUs, {{"id", int64_t{2}}, {"parent_id", int64_t{1}}})
      .Event("Iterator::Root::Map::TensorSlice", 20 * kUs, 10 * kUs, {{"id", int64_t{3}}, {"parent_id", int64_t{2}}})
      .Event("Iterator::Root::Map::TensorSlice", 40 * kUs, 10 * kUs, {{"id", int64_t{3}}, {"parent_id", int64_t{2}}});
  TfDataAnalysis a = Analyse({&space});
  const TfDataExecution& ex = a.hosts.at(0).pipelines.at(0).executions.at(0);
  CHECK(Call(ex, 1).self_ps == 20 * kUs);
  CHECK(Call(ex, 2).self_ps == 60 * kUs);
  CHECK(Call(ex, 3).self_ps == 20 * kUs);
  CHECK(Call(ex, 3).calls == 2);
  CHECK(Call(ex, 3).duration_ps == 20 * kUs);
  CHECK(Call(ex, 3).start_ps == 20 * kUs);
  CHECK(Call(ex, 3).blocking);
  CHECK(ex.bottleneck_id == 2);
  REQUIRE(a.bottlenecks.size() == 1);
  CHECK(a.bottlenecks[0].iterator_name == "Map");
  CHECK(ClassifyTfDataBottleneck("Map") == TfDataBottleneckKind::kTransformationWithParallelVersion);
  CHECK(TfDataAdvice(TfDataBottleneckKind::kTransformationWithParallelVersion).find("num_parallel_calls") !=
        std::string::npos);

  // The graph: a tree by parent ids, the bottleneck marked, DOT with it red.
  Report r = BuildTfDataReport(a, {});
  const Table* g = r.FindTable("graph");
  REQUIRE(g != nullptr);
  REQUIRE(g->rows.size() == 3);
  CHECK(std::get<std::string>(g->rows[0][g->ColumnIndex("tree")]) == "Root");
  CHECK(std::get<std::string>(g->rows[1][g->ColumnIndex("tree")]) == "  Map");
  CHECK(std::get<std::string>(g->rows[2][g->ColumnIndex("tree")]) == "    TensorSlice");
  CHECK(std::get<bool>(g->rows[1][g->ColumnIndex("bottleneck")]));
  CHECK(std::get<double>(g->rows[1][g->ColumnIndex("self_us")]) == 60.0);
  const Table* e = r.FindTable("graph_edges");
  REQUIRE(e->rows.size() == 2);
  std::ostringstream dot;
  Render(r, {.format = OutputFormat::kDot}, dot);
  CHECK(dot.str().find("\"2\" [label=\"Map\\nself (us): 60.000") != std::string::npos);
  CHECK(dot.str().find("color=red") != std::string::npos);
  CHECK(dot.str().find("\"1\" -> \"2\" [style=\"bold\"") != std::string::npos);
  CHECK_THROWS_AS(BuildTfDataReport(a, {"", 1, false}), std::invalid_argument);  // Only one execution.
  CHECK_THROWS_AS(BuildTfDataReport(a, {"Host:7", 0, false}), std::invalid_argument);
}

TEST_CASE("tf-data: MapAndBatch with two producers of one element", "[tfdata]") {
  // The reference's MapAndBatch case: both producer Range calls feed the one
  // consumed batch; they overlap the root by 30 + 30 us.
  XSpaceBuilder space;
  space.Hostname("h");
  auto& p = space.Plane("/host:CPU", 0);
  p.Line(1, "consumer")
      .Event("Iterator::MapAndBatch", 0, 100 * kUs, {{"id", int64_t{123}}})
      .Event("MapAndBatchConsume", 80 * kUs, 20 * kUs, {{"element_id", int64_t{100}}});
  p.Line(2, "producer")
      .Event("MapAndBatchProduce", 0, 30 * kUs, {{"element_id", int64_t{100}}})
      .Event("Iterator::MapAndBatch::Range", 0, 30 * kUs, {{"id", int64_t{456}}, {"parent_id", int64_t{123}}})
      .Event("MapAndBatchProduce", 40 * kUs, 30 * kUs, {{"element_id", int64_t{100}}})
      .Event("Iterator::MapAndBatch::Range", 40 * kUs, 30 * kUs, {{"id", int64_t{456}}, {"parent_id", int64_t{123}}});
  TfDataAnalysis a = Analyse({&space});
  const TfDataExecution& ex = a.hosts.at(0).pipelines.at(0).executions.at(0);
  CHECK(Call(ex, 123).self_ps == 40 * kUs);
  CHECK(Call(ex, 456).duration_ps == 60 * kUs);
  CHECK(Call(ex, 456).self_ps == 60 * kUs);
  CHECK(Call(ex, 456).calls == 2);
  CHECK(Call(ex, 456).blocking);
  CHECK(ex.bottleneck_id == 456);
  CHECK(ex.bottleneck_self_ps == 60 * kUs);
  CHECK(a.input_bound);
}

TEST_CASE("tf-data: device pipelines are listed but not ranked", "[tfdata]") {
  XSpaceBuilder space;
  space.Hostname("h");
  auto& p = space.Plane("/host:CPU", 0);
  p.Line(1, "consumer")
      .Event("Iterator::Prefetch", 0, 100 * kUs, {{"id", int64_t{123}}})
      .Event("Iterator::Prefetch::Generator", 10 * kUs, 60 * kUs, {{"id", int64_t{456}}, {"parent_id", int64_t{123}}})
      .Event("Iterator::Prefetch", 200 * kUs, 30 * kUs, {{"id", int64_t{123}}});
  TfDataAnalysis a = Analyse({&space});
  const TfDataPipeline& pipe = a.hosts.at(0).pipelines.at(0);
  CHECK(pipe.kind == TfDataPipelineKind::kDevice);
  CHECK(pipe.name == "Device:0");
  CHECK(pipe.avg_ps == 65 * kUs);
  CHECK(pipe.min_ps == 30 * kUs);
  CHECK(pipe.max_ps == 100 * kUs);
  CHECK(a.bottlenecks.empty());
  CHECK_FALSE(a.input_bound);
  Report r = BuildTfDataReport(a, {});
  // The slowest device pipeline is drawn; the Generator is its bottleneck.
  const Table* g = r.FindTable("graph");
  REQUIRE(g->rows.size() == 2);
  CHECK(std::get<std::string>(g->rows[1][g->ColumnIndex("name")]) == "Generator");
  CHECK(std::get<double>(g->rows[0][g->ColumnIndex("self_us")]) == 40.0);
  CHECK(std::get<bool>(g->rows[1][g->ColumnIndex("bottleneck")]));
}

TEST_CASE("tf-data: unsigned ids stay apart unless --xprof-ids merges them", "[tfdata]") {
  const uint64_t big1 = 14987976698722240843ull, big2 = 11562870607153926314ull;
  XSpaceBuilder space;
  space.Hostname("h");
  space.Plane("/host:CPU", 0)
      .Line(1, "t")
      .Event("Iterator::Root", 0, 100 * kUs, {{"id", int64_t{7}}})
      .Event("Iterator::Root::Map", 10 * kUs, 80 * kUs, {{"id", big1}, {"parent_id", int64_t{7}}})
      .Event("Iterator::Root::Map::Range", 20 * kUs, 50 * kUs, {{"id", big2}, {"parent_id", big1}});
  TfDataAnalysis ours = Analyse({&space});
  const TfDataExecution& ex = ours.hosts.at(0).pipelines.at(0).executions.at(0);
  CHECK(ex.iterators.size() == 3);
  CHECK(Call(ex, big1).self_ps == 30 * kUs);
  CHECK(Call(ex, big2).self_ps == 50 * kUs);
  CHECK(ex.bottleneck_id == big2);
  CHECK(ours.hosts[0].unsigned_ids == 2);
  // The Profiler reads both as 0: one iterator "0" named after the first
  // (Map), with the two self times summed.
  TfDataAnalysis xprof = Analyse({&space}, true);
  const TfDataExecution& merged = xprof.hosts.at(0).pipelines.at(0).executions.at(0);
  CHECK(merged.iterators.size() == 2);
  CHECK(Call(merged, 0).self_ps == 80 * kUs);
  CHECK(Call(merged, 0).calls == 2);
  CHECK(xprof.bottlenecks.at(0).iterator_name == "Map");
  CHECK(xprof.bottlenecks.at(0).iterator_self_ps == 80 * kUs);
}

TEST_CASE("tf-data: hosts combine as in the reference", "[tfdata]") {
  // Two files, one host name, different pipelines: both kept, both Host:0.
  XSpaceBuilder a = PrefetchOverRange();
  XSpaceBuilder b;
  b.Hostname("host1");
  b.Plane("/host:CPU", 0).Line(1, "t").Event("Iterator::Root", 0, 300 * kUs, {{"id", int64_t{999}}});
  TfDataAnalysis merged = Analyse({&a, &b});
  REQUIRE(merged.hosts.size() == 1);
  REQUIRE(merged.hosts[0].pipelines.size() == 2);
  CHECK(merged.hosts[0].pipelines[0].name == "Host:0");
  CHECK(merged.hosts[0].pipelines[1].name == "Host:0");
  CHECK(merged.merged_hosts == std::vector<std::string>{"host1"});
  REQUIRE(merged.bottlenecks.size() == 2);
  CHECK(merged.bottlenecks[0].root_id == 999);  // Slowest first.
  CHECK(merged.bottlenecks[0].max_latency_ps == 300 * kUs);
  CHECK(merged.bottlenecks[1].root_id == 123);

  // The same file twice: one pipeline with the calls of both, figures of the last.
  XSpaceBuilder c = PrefetchOverRange();
  TfDataAnalysis twice = Analyse({&a, &c});
  REQUIRE(twice.hosts[0].pipelines.size() == 1);
  CHECK(twice.hosts[0].pipelines[0].executions.size() == 4);
  CHECK(twice.hosts[0].pipelines[0].max_ps == 100 * kUs);

  // Different host names stay apart and are ranked by their slowest call.
  b.proto().set_hostnames(0, "host2");
  TfDataAnalysis two = Analyse({&a, &b});
  REQUIRE(two.hosts.size() == 2);
  CHECK(two.bottlenecks[0].host == "host2");
  CHECK(two.bottlenecks[1].host == "host1");
}

TEST_CASE("tf-data: no tf.data events exits 4 with a clear message", "[tfdata]") {
  auto r = RunTool("tf-data " + testing::SourcePath("testdata/captures/tf_no_steps"));
  CHECK(r.exit_code == 4);
  CHECK(r.err.find("no tf.data iterator events in this capture") != std::string::npos);
  auto dot_elsewhere = RunTool("info -f dot " + testing::SourcePath("testdata/captures/tf_prefetch"));
  CHECK(dot_elsewhere.exit_code == 2);
}

TEST_CASE("tf-data: the input-bound capture and its cache+prefetch twin", "[tfdata]") {
  auto json_of = [](const std::string& name) {
    auto r = RunTool("tf-data -f json " + testing::SourcePath("testdata/captures/" + name));
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out);
  };
  json slow = json_of("tf_input_bound"), fast = json_of("tf_prefetch");
  const json& s = slow["tables"]["summary"][0];
  const json& f = fast["tables"]["summary"][0];
  // The expensive map (fused by TF into MapAndBatch) is the bottleneck, with
  // nearly all of the 11.8 ms slowest call as its own time.
  CHECK(s["bottleneck"] == "MapAndBatch");
  CHECK(s["long_name"] == "Iterator::Root::MapAndBatch");
  CHECK(s["max_latency_us"].get<double>() == Approx(11841.965).margin(0.001));
  CHECK(s["bottleneck_self_us"].get<double>() > 0.95 * s["max_latency_us"].get<double>());
  CHECK(slow["tables"]["pipelines"][0]["avg_us"].get<double>() > 5000);
  CHECK(slow["tables"]["pipelines"][0]["slow_calls"] == 7);
  // With cache+prefetch the same pipeline answers in tens of microseconds:
  // the wait is in the Prefetch, the map no longer shows.
  CHECK(f["bottleneck"] == "Prefetch");
  CHECK(f["max_latency_us"].get<double>() < 60);
  CHECK(fast["tables"]["pipelines"][0]["avg_us"].get<double>() < 25);
  CHECK(fast["tables"]["pipelines"][0]["slow_calls"] == 1);
  for (const json& row : fast["tables"]["graph"]) CHECK(row["name"] != "MapAndBatch");

  auto dot = RunTool("tf-data -f dot " + testing::SourcePath("testdata/captures/tf_input_bound"));
  CHECK(dot.exit_code == 0);
  CHECK(dot.out.rfind("digraph", 0) == 0);
  CHECK(dot.out.find("[label=\"MapAndBatch\\n") != std::string::npos);
  auto csv = RunTool("tf-data -f csv " + testing::SourcePath("testdata/captures/tf_prefetch"));
  CHECK(csv.out.rfind("host,pipeline,type,root_id,calls,min_us,avg_us,max_us", 0) == 0);
}

namespace {

// A hostile capture whose producer links loop: every Map (id 2) is made
// for the consumer with id 1 and element 5, every Range (id 1, the root's
// id reused) for the consumer with id 2 and element 9, and each consumes
// the other's element. Linking every producer under every consumer that
// claims it made a walk of 2^100 paths per root call (cut at 5 million
// visits each: 52 s for a 25 KB capture).
XSpaceBuilder LoopingProducers() {
  XSpaceBuilder space;
  space.Hostname("h");
  auto& p = space.Plane("/host:CPU", 0);
  p.Line(1, "consumer")
      .Event("Iterator::Prefetch", 0, 100 * kUs, {{"id", int64_t{1}}})
      .Event("PrefetchConsume", 80 * kUs, 20 * kUs, {{"element_id", int64_t{5}}})
      .Event("Iterator::Prefetch", 200 * kUs, 30 * kUs, {{"id", int64_t{1}}})
      .Event("PrefetchConsume", 210 * kUs, 10 * kUs, {{"element_id", int64_t{5}}});
  p.Line(2, "maps")
      .Event("PrefetchProduce", 0, 40 * kUs, {{"element_id", int64_t{5}}})
      .Event("Iterator::Prefetch::Map", 0, 40 * kUs, {{"id", int64_t{2}}, {"parent_id", int64_t{1}}})
      .Event("PrefetchConsume", 30 * kUs, 10 * kUs, {{"element_id", int64_t{9}}})
      .Event("PrefetchProduce", 50 * kUs, 30 * kUs, {{"element_id", int64_t{5}}})
      .Event("Iterator::Prefetch::Map", 50 * kUs, 30 * kUs, {{"id", int64_t{2}}, {"parent_id", int64_t{1}}})
      .Event("PrefetchConsume", 70 * kUs, 10 * kUs, {{"element_id", int64_t{9}}});
  p.Line(3, "ranges")
      .Event("PrefetchProduce", 0, 20 * kUs, {{"element_id", int64_t{9}}})
      .Event("Iterator::Prefetch::Map::Range", 0, 20 * kUs, {{"id", int64_t{1}}, {"parent_id", int64_t{2}}})
      .Event("PrefetchConsume", 10 * kUs, 10 * kUs, {{"element_id", int64_t{5}}})
      .Event("PrefetchProduce", 25 * kUs, 10 * kUs, {{"element_id", int64_t{9}}})
      .Event("Iterator::Prefetch::Map::Range", 25 * kUs, 10 * kUs, {{"id", int64_t{1}}, {"parent_id", int64_t{2}}})
      .Event("PrefetchConsume", 30 * kUs, 5 * kUs, {{"element_id", int64_t{5}}});
  return space;
}

}  // namespace

TEST_CASE("tf-data: producers claimed by several consumers go under the first", "[tfdata]") {
  XSpaceBuilder space = LoopingProducers();
  Diagnostics d;
  Host h = ReadXSpaceBytes(space.Serialize(), "loop.xplane.pb", d);
  TfDataHost host = SummarizeTfData(h, {}, d);
  // The first consume of element 5 (the first root call's) takes both Maps,
  // the first Map takes both Ranges; the 8 other claims are dropped.
  CHECK(host.linked_producers == 4);
  CHECK(d.Count("tfdata.shared_producer") == 8);
  CHECK(d.Count("tfdata.walk_limit") == 0);
  REQUIRE(host.pipelines.size() == 1);
  const TfDataPipeline& p = host.pipelines[0];
  REQUIRE(p.executions.size() == 2);
  CHECK(p.max_ps == 100 * kUs);
  CHECK(p.min_ps == 30 * kUs);
  CHECK(p.avg_ps == 65 * kUs);
  // Slowest call, by hand: root [0,100] over Map1 [0,40] (over Range1
  // [0,20] and Range2 [25,35]) and Map2 [50,80]. Ranges carry id 1 like the
  // root, so id 1 sums root + both Ranges: 100+20+10 us, self (100-40-30) +
  // 20 + 10; id 2 sums both Maps: 40+30 us, self (40-20-10) + 30.
  const TfDataExecution& slow = p.executions[0];
  CHECK(slow.duration_ps == 100 * kUs);
  CHECK(Call(slow, 1).duration_ps == 130 * kUs);
  CHECK(Call(slow, 1).self_ps == 60 * kUs);
  CHECK(Call(slow, 1).calls == 3);
  CHECK(Call(slow, 2).duration_ps == 70 * kUs);
  CHECK(Call(slow, 2).self_ps == 40 * kUs);
  CHECK(Call(slow, 2).calls == 2);
  CHECK(slow.bottleneck_id == 1);
  // The second call's Maps went to the first: it holds only itself.
  const TfDataExecution& fast = p.executions[1];
  REQUIRE(fast.iterators.size() == 1);
  CHECK(Call(fast, 1).duration_ps == 30 * kUs);
  CHECK(Call(fast, 1).self_ps == 30 * kUs);
}

TEST_CASE("tf-data: a root call that is its own producer is walked once", "[tfdata]") {
  // The root (id 1, parent_id 1) is made inside PrefetchProduce{5} and
  // consumes element 5: it is its own child. The walk went round that loop
  // to the depth limit (101 visits: 10.1 ms of "duration", 0 self time).
  XSpaceBuilder space;
  space.Hostname("h");
  space.Plane("/host:CPU", 0)
      .Line(1, "t")
      .Event("PrefetchProduce", 0, 100 * kUs, {{"element_id", int64_t{5}}})
      .Event("Iterator::Prefetch", 0, 100 * kUs, {{"id", int64_t{1}}, {"parent_id", int64_t{1}}})
      .Event("PrefetchConsume", 50 * kUs, 10 * kUs, {{"element_id", int64_t{5}}});
  Diagnostics d;
  Host h = ReadXSpaceBytes(space.Serialize(), "self.xplane.pb", d);
  TfDataHost host = SummarizeTfData(h, {}, d);
  CHECK(host.linked_producers == 1);
  CHECK(d.Count("tfdata.walk_limit") == 0);
  const TfDataExecution& ex = host.pipelines.at(0).executions.at(0);
  CHECK(Call(ex, 1).duration_ps == 100 * kUs);
  CHECK(Call(ex, 1).self_ps == 100 * kUs);
  CHECK(Call(ex, 1).calls == 1);
  CHECK(ex.bottleneck_self_ps == 100 * kUs);
}
