// Chrome trace JSON reader: small traces written here, one feature each.
// Corpus files are in chrome_trace_corpus_test.cc.
#include <zlib.h>
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "lib/model/errors.h"
#include "lib/read/chrome_trace_builder.h"
#include "lib/read/chrome_trace_reader.h"
#include "tests/support/model_lookup.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using tfprof::testing::EventStat;
using tfprof::testing::LineNames;
using tfprof::testing::PlaneNamed;
using tfprof::testing::PlaneNames;

namespace {

Host ReadText(const std::string& json, Diagnostics& diag, const ReadOptions& options = {}) {
  return ReadChromeTraceText(json, "mem.trace.json", diag, options);
}

// The reader said nothing but that the trace is neither TensorFlow's nor
// PyTorch's (json.unknown_producer): traces written here with bare pids and
// no categories are some other tool's.
bool OnlyUnknownProducer(const Diagnostics& diag) {
  const std::vector<DiagnosticEntry> entries = diag.Entries();
  return entries.size() == 1 && entries[0].kind == "json.unknown_producer" && entries[0].count == 1;
}

const Line& LineNamed(const Host& h, const Plane& p, std::string_view name) {
  for (const Line& l : p.lines)
    if (h.LineName(l) == name) return l;
  FAIL("no line named " << name);
  throw 0;
}

std::string StringStat(const Host& h, const Plane& p, const Line& l, size_t event, std::string_view name) {
  auto s = EventStat(h, p, l, event, name);
  REQUIRE(s);
  REQUIRE(s->type() == StatType::kString);
  return std::string(h.Str(s->AsString()));
}

std::string WriteFile(const std::string& name, const std::string& content) {
  std::string path = tfprof::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

std::string WriteGzip(const std::string& name, const std::string& content) {
  std::string path = tfprof::testing::TempDir() + "/" + name;
  gzFile gz = gzopen(path.c_str(), "wb");
  REQUIRE(gz);
  REQUIRE(gzwrite(gz, content.data(), static_cast<unsigned>(content.size())) == static_cast<int>(content.size()));
  gzclose(gz);
  return path;
}

std::string ReadError(const std::string& json) {
  Diagnostics diag;
  try {
    ReadText(json, diag);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

const char* kSmallEvents = R"([
  {"ph":"M","pid":7,"name":"process_name","args":{"name":"/host:CPU"}},
  {"ph":"M","pid":7,"tid":3,"name":"thread_name","args":{"name":"python3"}},
  {"ph":"X","pid":7,"tid":3,"ts":100,"dur":5.5,"name":"step","cat":"op","args":{"n":"1"}},
  {"ph":"X","pid":7,"tid":3,"ts":101.25,"dur":1,"name":"inner"}
])";

}  // namespace

TEST_CASE("Both top-level forms give the same model", "[json]") {
  Diagnostics d1, d2;
  Host bare = ReadText(kSmallEvents, d1);
  Host object = ReadText(
      std::string(R"({"displayTimeUnit":"ns","traceEvents":)") + kSmallEvents + R"(,"metadata":{"x":[1,{"y":"]"}]}})",
      d2);
  for (const Host* h : {&bare, &object}) {
    CHECK(h->format == CaptureFormat::kChromeTrace);
    CHECK(h->name == "mem");
    REQUIRE(h->planes.size() == 1);
    const Plane& p = h->planes[0];
    CHECK(h->PlaneName(p) == "/host:CPU");
    CHECK(p.id == 7);
    REQUIRE(p.lines.size() == 1);
    const Line& l = p.lines[0];
    CHECK(l.id == 3);
    CHECK(h->LineName(l) == "python3");
    REQUIRE(l.events.size() == 2);
    // The origin is the first event's whole microsecond: 100 us.
    CHECK(h->time_origin_ns == 100'000);
    CHECK(l.events[0].start_ps == 0);
    CHECK(l.events[0].duration_ps == 5'500'000);
    CHECK(h->EventName(p, l.events[0]) == "step");
    CHECK(l.events[1].start_ps == 1'250'000);
    CHECK(l.events[1].duration_ps == 1'000'000);
    CHECK(StringStat(*h, p, l, 0, "cat") == "op");
    CHECK(StringStat(*h, p, l, 0, "n") == "1");  // TensorFlow's string args stay strings.
    CHECK(l.EventStats(1).empty());
  }
  CHECK(d1.empty());
  CHECK(d2.empty());
}

TEST_CASE("A byte order mark and an empty event array are fine", "[json]") {
  Diagnostics diag;
  Host h = ReadText(std::string("\xEF\xBB\xBF") + kSmallEvents, diag);
  CHECK(h.planes.at(0).EventCount() == 2);
  Host empty = ReadText(R"({"traceEvents": [ ]})", diag);
  CHECK(empty.planes.empty());
  CHECK(empty.time_origin_ns == 0);
  CHECK(diag.empty());
}

TEST_CASE("A bare array with no event object is not a trace; one with a traceEvents key is", "[json]") {
  // Some other JSON (a list of numbers, HTA's memory timeline): exit 3.
  CHECK(ReadError("[1, 2.5]") ==
        "mem.trace.json: JSON but not a Chrome trace: an array with no event object, only 2 "
        "other values (the first: the number 1)");
  CHECK(ReadError(R"([["a", 1]])") ==
        "mem.trace.json: JSON but not a Chrome trace: an array with no event object, only one other value: an array");
  Diagnostics d;
  try {
    ReadText(R"([null, "x", true])", d);
    FAIL("read as a trace");
  } catch (const InputError& e) {
    CHECK(e.code() == kExitBadInput);
    CHECK(std::string(e.what()).find("only 3 other values (the first: null)") != std::string::npos);
  }
  // A value that is no JSON is said to be so (the parser checks objects only).
  CHECK(ReadError("[abc, 1]") ==
        "mem.trace.json: not a Chrome trace, nor valid JSON: an array with no event object, "
        "only 2 other values (the first: 'abc', which is not a JSON value)");
  CHECK(ReadError("[1.]") ==
        "mem.trace.json: not a Chrome trace, nor valid JSON: an array with no event object, only "
        "one other value: '1.', which is not a JSON value");
  CHECK(ReadError("[-1.5E+3]") ==
        "mem.trace.json: JSON but not a Chrome trace: an array with no event object, only "
        "one other value: the number -1.5E+3");
  // Empty, or with one object among them (an empty one too, as TensorFlow
  // ends its array): a trace.
  Diagnostics braces_diag;
  CHECK(ReadText("[{}, 1]", braces_diag).planes.empty());
  CHECK(braces_diag.Count("json.non_object_event") == 1);
  Diagnostics empty_diag;
  CHECK(ReadText("[]", empty_diag).planes.empty());
  CHECK(empty_diag.empty());
  Diagnostics mixed_diag;
  Host mixed = ReadText(R"([7, {"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"a"}])", mixed_diag);
  CHECK(mixed.planes.at(0).EventCount() == 1);
  CHECK(mixed_diag.Count("json.non_object_event") == 1);
  // A traceEvents key says it is a trace: its values are counted, not refused.
  Diagnostics keyed_diag;
  CHECK(ReadText(R"({"traceEvents": [1, 2]})", keyed_diag).planes.empty());
  CHECK(keyed_diag.Count("json.non_object_event") == 2);
}

TEST_CASE("Timestamps convert to exact picoseconds", "[json]") {
  Diagnostics diag;
  Host h = ReadText(R"([
    {"ph":"X","pid":1,"tid":1,"ts":0,"dur":0.001,"name":"a"},
    {"ph":"X","pid":1,"tid":1,"ts":1.5,"dur":16476.700000000001,"name":"b"},
    {"ph":"X","pid":1,"tid":1,"ts":2.0000004,"dur":43421.099999999999,"name":"c"},
    {"ph":"X","pid":1,"tid":1,"ts":"3.25","dur":"7","name":"quoted"},
    {"ph":"X","pid":1,"tid":1,"ts":4e0,"dur":1.5e-3,"name":"exponent"}
  ])",
                    diag);
  const Line& l = h.planes.at(0).lines.at(0);
  REQUIRE(l.events.size() == 5);
  CHECK(h.time_origin_ns == 0);
  CHECK(l.events[0].duration_ps == 1'000);
  CHECK(l.events[1].start_ps == 1'500'000);
  CHECK(l.events[1].duration_ps == 16'476'700'000);  // %.17g noise rounds away.
  CHECK(l.events[2].start_ps == 2'000'000);          // The 7th decimal rounds.
  CHECK(l.events[2].duration_ps == 43'421'100'000);
  CHECK(l.events[3].start_ps == 3'250'000);
  CHECK(l.events[3].duration_ps == 7'000'000);
  CHECK(l.events[4].start_ps == 4'000'000);
  CHECK(l.events[4].duration_ps == 1'500);
  CHECK(OnlyUnknownProducer(diag));
}

TEST_CASE("Epoch-microsecond timestamps keep their nanoseconds", "[json]") {
  // 1667559361123456.789 us cannot be held by a double to the nanosecond;
  // the reader parses the digits.
  Diagnostics diag;
  Host h = ReadText(R"([
    {"ph":"X","pid":1,"tid":1,"ts":1667559361123456.789,"dur":0.001,"name":"a"},
    {"ph":"X","pid":1,"tid":1,"ts":1667559361123457.001,"dur":2,"name":"b"}
  ])",
                    diag);
  const Line& l = h.planes.at(0).lines.at(0);
  CHECK(h.time_origin_ns == 1'667'559'361'123'456'000);
  CHECK(l.events[0].start_ps == 789'000);
  CHECK(l.events[1].start_ps == 1'001'000);
  CHECK(l.events[1].start_ps - l.events[0].start_ps == 212'000);
}

TEST_CASE("ParseTraceTime handles every number form", "[json]") {
  TraceTime t;
  REQUIRE(ParseTraceTime("12", &t));
  CHECK((t.us == 12 && t.frac_ps == 0));
  REQUIRE(ParseTraceTime("-1.25", &t));
  CHECK((t.us == -2 && t.frac_ps == 750'000));
  REQUIRE(ParseTraceTime("0.0000005", &t));
  CHECK((t.us == 0 && t.frac_ps == 1));
  REQUIRE(ParseTraceTime("0.9999996", &t));
  CHECK((t.us == 1 && t.frac_ps == 0));
  REQUIRE(ParseTraceTime("1.5e3", &t));
  CHECK((t.us == 1500 && t.frac_ps == 0));
  REQUIRE(ParseTraceTime("4203669604595.407  ", &t));
  CHECK((t.us == 4'203'669'604'595 && t.frac_ps == 407'000));
  for (const char* bad : {"", "-", "1.", ".5", "1x", "abc", "1e400", "99999999999999999999"}) {
    INFO(bad);
    CHECK_FALSE(ParseTraceTime(bad, &t));
  }
}

TEST_CASE("ParseTraceTime reads integer parts of every length, eight digits at a time or not", "[json]") {
  // The integer part is read eight digits at a time where eight lie ahead:
  // every length, with and without a fraction or trailing space, and bytes
  // next to the digits ('/' and ':') that are not digits.
  const std::string digits = "9876543210987654321";
  for (size_t n = 1; n <= 15; ++n) {
    const std::string whole = digits.substr(0, n);
    const auto expected = static_cast<int64_t>(std::stoull(whole));
    for (const std::string& suffix : {std::string(), std::string(".5"), std::string(" "), std::string(".1234567")}) {
      INFO(whole + suffix);
      TraceTime t;
      REQUIRE(ParseTraceTime(whole + suffix, &t));
      CHECK(t.us == expected);
      CHECK(t.frac_ps == (suffix == ".5" ? 500'000 : suffix == ".1234567" ? 123'457 : 0));
      REQUIRE(ParseTraceTime("-" + whole + suffix, &t));
      CHECK(t.us == (suffix == ".5" || suffix == ".1234567" ? -expected - 1 : -expected));
    }
    TraceTime t;
    CHECK_FALSE(ParseTraceTime(whole + ":", &t));
    CHECK_FALSE(ParseTraceTime(whole + "/1234567", &t));
    CHECK_FALSE(ParseTraceTime("1234567" + whole.substr(0, 1) + ":" + whole, &t));
  }
  TraceTime t;
  REQUIRE(ParseTraceTime("1667559361123456.789", &t));
  CHECK((t.us == 1'667'559'361'123'456 && t.frac_ps == 789'000));
  // 16 digits, then beyond 9e15 us: through a double, refused.
  CHECK_FALSE(ParseTraceTime("9876543210987654", &t));
  CHECK_FALSE(ParseTraceTime("98765432109876543210", &t));
}

TEST_CASE("B and E pair per thread, unmatched ones are counted", "[json]") {
  Diagnostics diag;
  Host h = ReadText(R"([
    {"ph":"B","pid":1,"tid":1,"ts":10,"name":"outer","args":{"k":1}},
    {"ph":"B","pid":1,"tid":1,"ts":11,"name":"inner"},
    {"ph":"B","pid":1,"tid":2,"ts":11,"name":"other thread"},
    {"ph":"E","pid":1,"tid":1,"ts":12,"name":"whatever"},
    {"ph":"E","pid":1,"tid":1,"ts":20},
    {"ph":"E","pid":1,"tid":1,"ts":21,"name":"unmatched"},
    {"ph":"E","pid":1,"tid":2,"ts":15,"args":{"ignored":1}},
    {"ph":"B","pid":1,"tid":2,"ts":30,"name":"never ends"},
    {"ph":"E","pid":1,"tid":3,"ts":5,"name":"E first"},
    {"ph":"B","pid":1,"tid":4,"ts":40,"name":"alone, never ends"}
  ])",
                    diag);
  const Plane& p = h.planes.at(0);
  const Line& t1 = LineNamed(h, p, "tid 1");
  REQUIRE(t1.events.size() == 2);
  CHECK(h.EventName(p, t1.events[0]) == "outer");
  CHECK(t1.events[0].start_ps == 0);
  CHECK(t1.events[0].duration_ps == 10'000'000);
  CHECK(EventStat(h, p, t1, 0, "k")->AsInt() == 1);
  CHECK(h.EventName(p, t1.events[1]) == "inner");
  CHECK(t1.events[1].duration_ps == 1'000'000);
  const Line& t2 = LineNamed(h, p, "tid 2");
  REQUIRE(t2.events.size() == 1);  // "never ends" is dropped.
  CHECK(t2.events[0].duration_ps == 4'000'000);
  CHECK(diag.Count("json.unmatched_end") == 2);
  CHECK(diag.Count("json.unclosed_begin") == 2);
  CHECK(p.lines.size() == 2);  // No lines for threads whose events were all dropped.
  CHECK(diag.Count("json.end_args_ignored") == 1);
}

TEST_CASE("Instants, counters and their args", "[json]") {
  Diagnostics diag;
  Host h = ReadText(R"({"traceEvents":[
    {"ph":"i","pid":1,"tid":1,"ts":1,"name":"mark","s":"t"},
    {"ph":"I","pid":1,"tid":1,"ts":2,"name":"old mark"},
    {"ph":"C","pid":1,"ts":3,"name":"memory","args":{"used":100,"free":2.5}},
    {"ph":"C","pid":1,"tid":9,"ts":4,"name":"memory","args":{"used":120,"free":1.5}},
    {"pid":1,"name":"packed","ph":"C","event_stats":"bytes","entries":[[5,7,8],[6.5,9,10]]}
  ]})",
                    diag);
  const Plane& p = h.planes.at(0);
  const Line& thread = LineNamed(h, p, "tid 1");
  REQUIRE(thread.events.size() == 2);
  CHECK(thread.events[0].duration_ps == 0);
  CHECK(thread.events[1].start_ps == 1'000'000);
  const Line& counters = LineNamed(h, p, "_counters_");
  REQUIRE(counters.events.size() == 4);
  CHECK(h.EventName(p, counters.events[0]) == "memory");
  CHECK(EventStat(h, p, counters, 0, "used")->AsInt() == 100);
  CHECK(EventStat(h, p, counters, 0, "free")->AsDouble() == 2.5);
  CHECK(EventStat(h, p, counters, 1, "used")->AsInt() == 120);
  CHECK(h.EventName(p, counters.events[2]) == "packed");
  CHECK(counters.events[3].start_ps == 5'500'000);
  CHECK(EventStat(h, p, counters, 2, "bytes")->AsInt() == 7);
  CHECK(EventStat(h, p, counters, 2, "value2")->AsInt() == 8);
  CHECK(EventStat(h, p, counters, 3, "bytes")->AsInt() == 9);
  CHECK(OnlyUnknownProducer(diag));
}

TEST_CASE("Metadata names and orders planes and lines", "[json]") {
  Diagnostics diag;
  Host h = ReadText(R"([
    {"ph":"X","pid":5,"tid":1,"ts":1,"dur":1,"name":"a"},
    {"ph":"X","pid":5,"tid":2,"ts":1,"dur":1,"name":"b"},
    {"ph":"X","pid":9,"tid":1,"ts":1,"dur":1,"name":"c"},
    {"ph":"X","pid":4,"tid":1,"ts":1,"dur":1,"name":"d"},
    {"ph":"M","pid":9,"name":"process_name","args":{"name":"/device:GPU:0"}},
    {"ph":"M","pid":9,"name":"process_sort_index","args":{"sort_index":1}},
    {"ph":"M","pid":5,"name":"process_sort_index","args":{"sort_index":2}},
    {"ph":"M","pid":5,"tid":1,"name":"thread_name","args":{"name":"first"}},
    {"ph":"M","pid":5,"tid":2,"name":"thread_name","args":{"name":"second"}},
    {"ph":"M","pid":5,"tid":2,"name":"thread_sort_index","args":{"sort_index":0}},
    {"ph":"M","pid":5,"tid":1,"name":"thread_sort_index","args":{"sort_index":1}},
    {"ph":"M","pid":5,"name":"process_labels","args":{"labels":"CPU"}},
    {"ph":"M","pid":5,"name":"process_uptime_seconds","args":{"uptime":3}}
  ])",
                    diag);
  // Sort indexes first (9 then 5), then the rest in order of appearance;
  // pid 5 is labelled CPU (Kineto's host process): the host plane.
  REQUIRE(PlaneNames(h) == std::vector<std::string>{"/device:GPU:0", "/host:CPU", "pid 4"});
  const Plane& p5 = h.planes[1];
  REQUIRE(LineNames(h, p5) == std::vector<std::string>{"second", "first"});
  auto labels = p5.FindStatKey(h.strings, "labels");
  REQUIRE(labels);
  REQUIRE(p5.plane_stats.size() == 2);  // labels, and process_name (the original name)
  CHECK(h.Str(p5.plane_stats[0].AsString()) == "CPU");
  CHECK(h.Str(p5.plane_stats[1].AsString()) == "pid 5");
  CHECK(diag.Count("json.other_metadata") == 1);
}

TEST_CASE("String pids and tids get stable ids and keep their names", "[json]") {
  Diagnostics diag;
  Host h = ReadText(R"([
    {"ph":"X","pid":"Spans","tid":"PyTorch Profiler","ts":1,"dur":1,"name":"span"},
    {"ph":"X","pid":0,"tid":"stream 7","ts":2,"dur":1,"name":"kernel"},
    {"ph":"X","pid":0,"tid":"stream 7","ts":3,"dur":1,"name":"kernel"},
    {"ph":"X","pid":42,"tid":"42","ts":4,"dur":1,"name":"numeric string"},
    {"ph":"X","pid":"42","tid":42,"ts":5,"dur":1,"name":"same thread"},
    {"ph":"i","pid":"","tid":"","ts":6,"s":"g","name":"Record Window End"},
    {"ph":"M","pid":"Spans","name":"process_sort_index","args":{"sort_index":536870912}}
  ])",
                    diag);
  REQUIRE(h.planes.size() == 4);
  const Plane& spans = PlaneNamed(h, "Spans");
  CHECK(spans.id >= (int64_t{1} << 48));
  CHECK(h.LineName(spans.lines.at(0)) == "PyTorch Profiler");
  const Plane& gpu = PlaneNamed(h, "pid 0");
  REQUIRE(gpu.lines.size() == 1);
  CHECK(h.LineName(gpu.lines[0]) == "stream 7");
  CHECK(gpu.lines[0].events.size() == 2);
  const Plane& p42 = PlaneNamed(h, "pid 42");
  REQUIRE(p42.lines.size() == 1);
  CHECK(p42.lines[0].id == 42);
  CHECK(p42.lines[0].events.size() == 2);
  const Plane& empty = PlaneNamed(h, "pid \"\"");
  CHECK(h.LineName(empty.lines.at(0)) == "tid \"\"");
  CHECK(h.PlaneName(h.planes.front()) == "Spans");  // Planes with a sort index come first.
}

TEST_CASE("Overlapping events on one thread are all kept, sorted", "[json]") {
  Diagnostics diag;
  Host h = ReadText(R"([
    {"ph":"X","pid":1,"tid":1,"ts":5,"dur":10,"name":"late"},
    {"ph":"X","pid":1,"tid":1,"ts":0,"dur":8,"name":"a","args":{"i":1}},
    {"ph":"X","pid":1,"tid":1,"ts":2,"dur":8,"name":"b","args":{"i":2}},
    {"ph":"X","pid":1,"tid":1,"ts":0,"dur":20,"name":"parent","args":{"i":3}}
  ])",
                    diag);
  const Plane& p = h.planes.at(0);
  const Line& l = p.lines.at(0);
  REQUIRE(l.events.size() == 4);
  CHECK(l.IsSorted());
  CHECK(h.EventName(p, l.events[0]) == "parent");  // Same start: the longer first.
  CHECK(EventStat(h, p, l, 0, "i")->AsInt() == 3);
  CHECK(h.EventName(p, l.events[1]) == "a");
  CHECK(EventStat(h, p, l, 1, "i")->AsInt() == 1);
  CHECK(h.EventName(p, l.events[2]) == "b");
  CHECK(h.EventName(p, l.events[3]) == "late");
  CHECK(h.time_origin_ns == 5'000);  // The first event in the file sets the origin.
  CHECK(l.events[0].start_ps == -5'000'000);
  CHECK(diag.Count("json.unsorted_line") == 1);
}

TEST_CASE("Args keep their JSON types", "[json]") {
  Diagnostics diag;
  Host h = ReadText(R"([{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"a","args":{
    "int":-42, "big":18446744073709551615, "huge":123456789012345678901234567890,
    "double":0.5, "string":"x\"y\u00e9", "true":true, "false":false,
    "array":[[5, 128], []], "object":{"a":{"b":[1]}}, "null":null}}])",
                    diag);
  const Plane& p = h.planes.at(0);
  const Line& l = p.lines.at(0);
  CHECK(EventStat(h, p, l, 0, "int")->type() == StatType::kInt64);
  CHECK(EventStat(h, p, l, 0, "int")->AsInt() == -42);
  CHECK(EventStat(h, p, l, 0, "big")->type() == StatType::kUint64);
  CHECK(EventStat(h, p, l, 0, "big")->AsUint() == UINT64_MAX);
  CHECK(StringStat(h, p, l, 0, "huge") == "123456789012345678901234567890");
  CHECK(EventStat(h, p, l, 0, "double")->type() == StatType::kDouble);
  CHECK(EventStat(h, p, l, 0, "double")->AsDouble() == 0.5);
  CHECK(StringStat(h, p, l, 0, "string") == "x\"y\xC3\xA9");
  CHECK(EventStat(h, p, l, 0, "true")->AsInt() == 1);
  CHECK(EventStat(h, p, l, 0, "false")->AsInt() == 0);
  CHECK(StringStat(h, p, l, 0, "array") == "[[5, 128], []]");
  CHECK(StringStat(h, p, l, 0, "object") == R"({"a":{"b":[1]}})");
  CHECK_FALSE(EventStat(h, p, l, 0, "null"));
  CHECK(diag.Count("json.null_arg") == 1);
}

TEST_CASE("Async events pair on per-category lines", "[json]") {
  Diagnostics diag;
  Host h = ReadText(R"([
    {"ph":"b","pid":1,"tid":1,"ts":1,"cat":"io","id":"0x1","name":"read"},
    {"ph":"b","pid":1,"tid":2,"ts":2,"cat":"io","id":"0x2","name":"read"},
    {"ph":"n","pid":1,"tid":1,"ts":3,"cat":"io","id":"0x1","name":"progress"},
    {"ph":"e","pid":1,"tid":3,"ts":6,"cat":"io","id":"0x1","name":"read"},
    {"ph":"e","pid":1,"tid":1,"ts":7,"cat":"io","id":"0x3","name":"read"},
    {"ph":"b","pid":1,"ts":8,"cat":"net","id":5,"name":"send"},
    {"ph":"e","pid":1,"ts":9.5,"cat":"net","id":5,"name":"send"}
  ])",
                    diag);
  const Plane& p = h.planes.at(0);
  CHECK(p.lines.size() == 2);
  const Line& io = LineNamed(h, p, "async io");
  REQUIRE(io.events.size() == 2);  // The 0x2 read never ends.
  CHECK(h.EventName(p, io.events[0]) == "read");
  CHECK(io.events[0].duration_ps == 5'000'000);
  CHECK(StringStat(h, p, io, 0, "id") == "0x1");
  CHECK(h.EventName(p, io.events[1]) == "progress");
  const Line& net = LineNamed(h, p, "async net");
  REQUIRE(net.events.size() == 1);
  CHECK(net.events[0].duration_ps == 1'500'000);
  CHECK(EventStat(h, p, net, 0, "id")->AsInt() == 5);
  CHECK(diag.Count("json.async_unmatched_end") == 1);
  CHECK(diag.Count("json.async_unclosed_begin") == 1);
}

TEST_CASE("Flow events are counted and flow bindings kept", "[json]") {
  Diagnostics diag;
  Host h = ReadText(R"([
    {"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"launch","bind_id":77,"flow_out":true},
    {"ph":"X","pid":1,"tid":2,"ts":4,"dur":2,"name":"kernel","bind_id":"0x4d","flow_in":true},
    {"ph":"s","pid":1,"tid":1,"ts":1,"id":3,"cat":"ac2g","name":"ac2g"},
    {"ph":"f","pid":1,"tid":2,"ts":4,"id":3,"cat":"ac2g","name":"ac2g","bp":"e"},
    {"ph":"t","pid":1,"tid":2,"ts":4,"id":3,"name":"step"},
    {"ph":"N","pid":1,"ts":1,"id":"0x9","name":"Tensor"},
    {"ph":"D","pid":1,"ts":2,"id":"0x9","name":"Tensor"}
  ])",
                    diag);
  const Plane& p = h.planes.at(0);
  const Line& l1 = LineNamed(h, p, "tid 1");
  CHECK(EventStat(h, p, l1, 0, "bind_id")->AsUint() == 77);
  CHECK(EventStat(h, p, l1, 0, "flow_out")->AsInt() == 1);
  const Line& l2 = LineNamed(h, p, "tid 2");
  CHECK(EventStat(h, p, l2, 0, "bind_id")->AsUint() == 0x4d);
  CHECK(EventStat(h, p, l2, 0, "flow_in")->AsInt() == 1);
  CHECK(diag.Count("json.flow_events") == 3);
  CHECK(diag.Count("json.object_events") == 2);
}

TEST_CASE("Malformed events are counted, never dropped silently", "[json]") {
  Diagnostics diag;
  Host h = ReadText(R"([
    {"ph":"X","pid":1,"tid":1,"dur":1,"name":"no ts"},
    {"ph":"X","pid":1,"tid":1,"ts":"soon","dur":1,"name":"bad ts"},
    {"ph":"X","pid":1,"tid":1,"ts":1,"name":"no dur"},
    {"ph":"X","pid":1,"tid":1,"ts":2,"dur":-3,"name":"negative"},
    {"ph":"Z","pid":1,"tid":1,"ts":3,"name":"unknown"},
    {"ph":"P","pid":1,"tid":1,"ts":3,"name":"sample"},
    {"pid":1,"tid":1,"ts":3,"name":"no ph"},
    {"ph":"X","pid":{"a":1},"tid":1,"ts":4,"dur":1,"name":"bad pid"},
    {"ph":"X","ts":5,"dur":1,"name":"no pid or tid"},
    42, "text", [1], null,
    {}
  ])",
                    diag);
  CHECK(diag.Count("json.missing_ts") == 1);
  CHECK(diag.Count("json.bad_field_type") == 2);  // ts "soon", pid {...}.
  CHECK(diag.Count("json.missing_duration") == 1);
  CHECK(diag.Count("json.negative_duration") == 1);
  CHECK(diag.Count("json.unknown_phase") == 1);
  CHECK(diag.Count("json.unsupported_phase") == 1);
  CHECK(diag.Count("json.missing_phase") == 1);
  CHECK(diag.Count("json.missing_pid") == 1);
  CHECK(diag.Count("json.missing_tid") == 1);
  CHECK(diag.Count("json.non_object_event") == 4);
  const Plane& p1 = PlaneNamed(h, "pid 1");
  const Line& l = p1.lines.at(0);
  REQUIRE(l.events.size() == 2);
  CHECK(l.events[0].duration_ps == 0);  // no dur
  CHECK(l.events[1].duration_ps == 0);  // negative, clamped
  // pid {...} and the missing pid both land on pid 0.
  CHECK(PlaneNamed(h, "pid 0").EventCount() == 2);
  for (const auto& e : diag.Entries()) {
    INFO(e.kind);
    CHECK(e.count > 0);
  }
}

TEST_CASE("Times stay within 50 days of the first event, so spans fit in int64 ps", "[json]") {
  // The fuzz finding testdata/bad/fuzz/chrome_json_fuzzer-span_overflow: on
  // pid 3, one event 11.6 days before the first and one 100 days after gave
  // a line span of 1.06e19 ps.
  Diagnostics diag;
  Host h = ReadText(R"({"traceEvents":[
    {"ph":"X","ts":1523739203889171},
    {"ph":"X","ts":1522739203889828,"pid":3},
    {"ph":"X","ts":1532379203890435,"pid":3},
    {"ph":"X","ts":1523739203889171,"dur":4320000000000,"pid":4},
    {"ph":"X","ts":1523739203889172,"dur":4320000000000,"pid":4}
  ]})",
                    diag);
  CHECK(diag.Count("json.time_out_of_range") == 2);  // +100 days; an end 1 us past +50 days.
  const Line& l3 = PlaneNamed(h, "pid 3").lines.at(0);
  REQUIRE(l3.events.size() == 1);
  CHECK(l3.events[0].start_ps == -999999999343 * int64_t{1000000});
  const Line& l4 = PlaneNamed(h, "pid 4").lines.at(0);
  REQUIRE(l4.events.size() == 1);
  CHECK(l4.events[0].end_ps() == int64_t{50} * 86400 * 1000000000000);
}

TEST_CASE("max_events stops adding events and says how many were not read", "[json]") {
  Diagnostics diag;
  ReadOptions options;
  options.max_events = 3;
  std::string json = "[";
  for (int i = 0; i < 10; ++i)
    json += R"({"ph":"X","pid":1,"tid":1,"ts":)" + std::to_string(i) + R"(,"dur":1,"name":"e"},)";
  json += R"({"ph":"M","pid":1,"name":"process_name","args":{"name":"named after the cap"}}])";
  Host h = ReadText(json, diag, options);
  REQUIRE(PlaneNames(h) == std::vector<std::string>{"named after the cap"});
  CHECK(h.planes[0].EventCount() == 3);
  CHECK(diag.Count("read.max_events_reached") == 7);
}

TEST_CASE("Escapes, brackets in strings and element boundaries", "[json]") {
  // Strings full of the characters the scanner tracks, and enough events to
  // cross several 2 MB blocks.
  std::string json = "{\"traceEvents\": [\n";
  const int kEvents = 40'000;
  for (int i = 0; i < kEvents; ++i) {
    if (i) json += ",\n";
    json += R"(  {"name": "odd \"name\" with {[,]} and \\ \\\" #)" + std::to_string(i % 7) +
            R"(", "ph": "X", "pid": 1, "tid": )" + std::to_string(i % 3) + R"(, "ts": )" + std::to_string(i) +
            R"(.5, "dur": 1, "args": {"path": "C:\\dir\\file}]", "\"k\"": "v", "nested": [{"a": "]}"}]}})";
  }
  json += "\n], \"stackFrames\": {\"1\": {\"name\": \"}]\\\"\"}}}";
  Diagnostics diag;
  Host h = ReadText(json, diag);
  REQUIRE(h.planes.size() == 1);
  const Plane& p = h.planes[0];
  CHECK(p.EventCount() == kEvents);
  CHECK(p.event_metadata.size() == 7);
  const Line& l = LineNamed(h, p, "tid 1");
  CHECK(h.EventName(p, l.events[0]) == "odd \"name\" with {[,]} and \\ \\\" #1");
  CHECK(StringStat(h, p, l, 0, "path") == "C:\\dir\\file}]");
  CHECK(StringStat(h, p, l, 0, "\"k\"") == "v");
  CHECK(StringStat(h, p, l, 0, "nested") == R"([{"a": "]}"}])");
  CHECK(OnlyUnknownProducer(diag));
}

TEST_CASE("Files: plain, gzip, and the host fields", "[json]") {
  std::string plain = WriteFile("worker0.pt.trace.json", kSmallEvents);
  std::string gz = WriteGzip("myhost.trace.json.gz", std::string("{\"traceEvents\":") + kSmallEvents + "}");
  Diagnostics diag;
  Host a = ReadChromeTraceFile(plain, diag);
  CHECK(a.name == "worker0");
  CHECK_FALSE(a.gzipped);
  CHECK(a.file_bytes == std::string(kSmallEvents).size());
  CHECK(a.source_path == plain);
  CHECK(a.planes.at(0).EventCount() == 2);
  Host b = ReadChromeTraceFile(gz, diag);
  CHECK(b.name == "myhost");
  CHECK(b.gzipped);
  CHECK(b.file_bytes > 20);
  CHECK(b.file_bytes < std::string(kSmallEvents).size());
  CHECK(b.planes.at(0).EventCount() == 2);
  CHECK(diag.empty());
}

TEST_CASE("Invalid input is one clear InputError", "[json]") {
  using Catch::Matchers::Contains;
  using Catch::Matchers::StartsWith;
  CHECK_THAT(ReadError(R"({"traceEvents":[{"ph":"X","ts":1]})"), Contains("invalid JSON at byte"));
  CHECK_THAT(ReadError(R"({"traceEvents":[{"ph":"X","ts":1})"),
             Contains("invalid JSON at byte 33: unexpected end of the file"));
  CHECK_THAT(ReadError(R"({"traceEvents":[{"ph":"X","ts":1}}]})"), Contains("invalid JSON at byte 33: mismatched '}'"));
  CHECK_THAT(ReadError(R"({"traceEvents":[{"ph":"X","ts":1}] "x":1})"), Contains("expected ',' or '}'"));
  CHECK_THAT(ReadError(R"({"traceEvents":[{"ph":"X","ts":1},]})"), Contains("trailing comma"));
  CHECK_THAT(ReadError(R"({"traceEvents":[{"ph":"X","ts":1} {"ph":"X"}]})"),
             Contains("invalid JSON at byte 34: missing ','"));
  CHECK_THAT(ReadError(R"({"traceEvents":[{"ph":"X" "ts":1}]})"), Contains("invalid JSON at byte 16"));
  CHECK_THAT(ReadError(R"({"traceEvents":[{"ph":"X","args":{"a":1 "b":2}}]})"), Contains("invalid JSON at byte 16"));
  CHECK_THAT(ReadError(R"({"traceEvents":[{"ph":"X","args":{"a":[1 2]}}]})"), Contains("invalid JSON at byte 16"));
  CHECK_THAT(ReadError(R"({"traceEvents":[{"ph":"X","args":{"a":[1,,2]}}]})"), Contains("invalid JSON at byte 16"));
  CHECK_THAT(ReadError(R"({"traceEvents":[{"ph":"X","args":{"a":{"b":tru}}}]})"), Contains("invalid JSON at byte 16"));
  CHECK_THAT(ReadError(R"({"traceEvents":[{"ph":"X","args":{"a":{"b":1]}}]})"),
             Contains("invalid JSON at byte 44: mismatched ']'"));
  CHECK_THAT(ReadError(R"({"traceEvents":[{"ph":"X","sf":{"b":[1}]}]})"),
             Contains("invalid JSON at byte 38: mismatched '}'"));
  CHECK_THAT(ReadError(R"({"traceEvents":[{"ph":"X","ts":1,}]})"), Contains("invalid JSON at byte 16"));
  CHECK_THAT(ReadError(R"({"traceEvents":[{"ph":"X","ts":1}]}  x)"), Contains("unexpected data after the end"));
  CHECK_THAT(ReadError(R"({"traceEvents":[{"ph":"X","name":"unterminated)"), Contains("inside a string"));
  CHECK(ReadError(R"({"displayTimeUnit":"ns","otherData":{}})") ==
        "mem.trace.json: JSON but not a Chrome trace: no traceEvents array");
  CHECK_THAT(ReadError("42"), Contains("JSON but not a Chrome trace: no traceEvents array"));
  CHECK_THAT(ReadError(R"({"traceEvents":{"a":1}})"),
             Contains("JSON but not a Chrome trace: traceEvents is not an array"));
  CHECK_THAT(ReadError("\x08\x01\x12\x05hello"), Contains("not JSON"));
  CHECK_THAT(ReadError(""), Contains("empty"));
  CHECK_THAT(ReadError("  \n "), Contains("only whitespace"));
  // One line each.
  CHECK(ReadError("{\"traceEvents\":[{\"ph\":\n\"X\",\n\"ts\":}]}").find('\n') == std::string::npos);
}

TEST_CASE("A bare array may lack its closing bracket", "[json]") {
  Diagnostics diag;
  Host h = ReadText(R"([{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"a"},
{"ph":"X","pid":1,"tid":1,"ts":2,"dur":1,"name":"b"},
)",
                    diag);
  CHECK(h.planes.at(0).EventCount() == 2);
  CHECK(diag.Count("json.unterminated_array") == 1);
  CHECK_THAT(ReadError(R"([{"ph":"X","pid":1,"tid":1,"ts":1,"du)"), Catch::Matchers::Contains("truncated"));
}

TEST_CASE("Truncated gzip is an error", "[json]") {
  std::string json = "{\"traceEvents\":[";
  for (int i = 0; i < 2000; ++i)
    json += (i ? "," : "") + std::string(R"({"ph":"X","pid":1,"tid":1,"ts":)") + std::to_string(i * 7919 % 1000) +
            R"(,"dur":1,"name":"e)" + std::to_string(i) + "\"}";
  json += "]}";
  std::string whole = WriteGzip("t.trace.json.gz", json);
  std::string bytes;
  {
    std::ifstream in(whole, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::string cut = WriteFile("cut.trace.json.gz", bytes.substr(0, bytes.size() / 2));
  Diagnostics diag;
  CHECK(ReadChromeTraceFile(whole, diag).planes.at(0).EventCount() == 2000);
  try {
    ReadChromeTraceFile(cut, diag);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Matchers::Contains("truncated"));
  }
}

TEST_CASE("Deep nesting neither crashes nor hangs", "[json]") {
  const int kDepth = 100'000;
  std::string deep = std::string(kDepth, '[') + std::string(kDepth, ']');
  Diagnostics diag;
  // In args the nested value is kept as its text; in a field the reader
  // does not use, skipped; neither recurses.
  Host h = ReadText(R"([{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"deep","args":{"x":)" + deep +
                        R"(}},{"ph":"X","pid":1,"tid":1,"ts":2,"dur":1,"name":"after","sf":)" + deep + "}]",
                    diag);
  const Plane& p = h.planes.at(0);
  const Line& l = p.lines.at(0);
  REQUIRE(l.events.size() == 2);
  CHECK(StringStat(h, p, l, 0, "x").size() == 2 * kDepth);
  CHECK(h.EventName(p, l.events[1]) == "after");
  // Deep nesting in a top-level value the reader skips, and unclosed.
  Diagnostics d2;
  CHECK(ReadText(R"({"x":)" + deep + R"(,"traceEvents":[]})", d2).planes.empty());
  CHECK_THAT(ReadError(R"({"traceEvents":[{"args":)" + std::string(kDepth, '[')),
             Catch::Matchers::Contains("truncated"));
  CHECK_THAT(ReadError(R"({"x":)" + std::string(kDepth, '{')), Catch::Matchers::Contains("invalid JSON"));
  // Deep packed counter rows are where the parser descends: over its depth
  // limit the event is dropped and counted.
  Diagnostics d3;
  Host c = ReadText(R"([{"ph":"C","pid":1,"name":"c","entries":[[1,)" + deep +
                        R"(]]},{"ph":"X","pid":1,"tid":1,"ts":2,"dur":1,"name":"ok"}])",
                    d3);
  CHECK(c.planes.at(0).EventCount() == 2);
}

TEST_CASE("Invalid UTF-8 is repaired and counted", "[json]") {
  Diagnostics diag;
  Host h = ReadText("[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"name\":\"caf\xE9 \xFF\"}]", diag);
  REQUIRE(h.planes.at(0).EventCount() == 1);
  CHECK(h.EventName(h.planes[0], h.planes[0].lines[0].events[0]) == "caf? ?");
  CHECK(diag.Count("json.invalid_utf8") == 2);
}

TEST_CASE("Kineto deviceProperties fill the GPU planes", "[json]") {
  Diagnostics diag;
  Host h = ReadText(R"({
    "schemaVersion": 1,
    "deviceProperties": [
      {"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85031714816, "computeMajor": 8, "computeMinor": 0, "numSms": 108},
      {"id": 1, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85031714816, "computeMajor": 8, "computeMinor": 0, "numSms": 108}
    ],
    "host_name": "node-3",
    "traceEvents": [
      {"ph":"X","cat":"kernel","pid":0,"tid":7,"ts":10,"dur":2,"name":"sgemm"},
      {"ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":9,"dur":4,"name":"aten::mm"},
      {"ph":"M","pid":0,"name":"process_labels","args":{"labels":"GPU 0"}},
      {"ph":"M","pid":1,"name":"process_labels","args":{"labels":"CPU"}}
    ]})",
                    diag);
  CHECK(h.hostnames == std::vector<std::string>{"node-3"});
  const Plane& gpu = PlaneNamed(h, "/device:GPU:0");  // Kineto's GPU 0 (pid 0).
  CHECK(gpu.device.name == "NVIDIA A100-SXM4-80GB");
  CHECK(gpu.device.vendor == "Nvidia");
  CHECK(gpu.device.compute_cap_major == 8);
  CHECK(gpu.device.core_count == 108);
  CHECK(gpu.device.memory_bytes == 85031714816);
  CHECK(PlaneNamed(h, "/host:CPU").device.empty());  // Labelled CPU: the host process.
}

TEST_CASE("Numbers beyond a double (1e400) saturate and are counted instead of rejecting the trace", "[json]") {
  // Before, one 1e400 anywhere in an event rejected the whole trace as
  // invalid JSON; it is valid JSON, only not a double.
  Diagnostics diag;
  Host h = ReadText(R"([
    {"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"a","args":{"up":1e400,"down":-2.5E+999,"small":1e-400,
     "nested":{"v":1e400}}},
    {"ph":"X","pid":1e400,"tid":1,"ts":2,"dur":1,"name":"b"},
    {"ph":"C","pid":1,"ts":3,"name":"c","args":{"v":1e999}}
  ])",
                    diag);
  const Plane& p = PlaneNamed(h, "pid 1");
  const Line& l = LineNamed(h, p, "tid 1");
  REQUIRE(l.events.size() == 1);
  CHECK(EventStat(h, p, l, 0, "up")->AsDouble() == std::numeric_limits<double>::max());
  CHECK(EventStat(h, p, l, 0, "down")->AsDouble() == -std::numeric_limits<double>::max());
  CHECK(EventStat(h, p, l, 0, "small")->AsDouble() == 0.0);     // Underflow is a double: 0, not counted.
  CHECK(StringStat(h, p, l, 0, "nested") == R"({"v":1e400})");  // Kept as its text, as nested values are.
  const Plane& big_pid = PlaneNamed(h, "1e400");  // Like other pids that are not int64: named by their text.
  CHECK(big_pid.lines.at(0).events.size() == 1);
  const Line& counters = LineNamed(h, p, "_counters_");
  CHECK(EventStat(h, p, counters, 0, "v")->AsDouble() == std::numeric_limits<double>::max());
  CHECK(diag.Count("json.number_out_of_range") == 4);  // up, down, the pid, the counter.
  // Malformed numbers are still invalid JSON.
  CHECK(ReadError(R"([{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"a","args":{"bad":1e}}])").find("invalid JSON") !=
        std::string::npos);
}
