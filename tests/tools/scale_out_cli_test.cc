// `summarize`, `combine` and `hosts` (issue: scale-out): hosts summarised
// apart, on as many machines, combine into the bytes of the run read in one
// process, in any order; every command answers the same on the combined
// summary as on the captures; the hosts table picks out the slow rank.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "lib/summary/run_summary_combine.h"
#include "lib/summary/run_summary_file.h"
#include "nlohmann/json.hpp"
#include "proto/run_summary.pb.h"
#include "tests/support/corpus.h"
#include "tests/support/files.h"
#include "tests/support/run_tool.h"
#include "tests/support/skip.h"
#include "tests/support/xspace_builder.h"

using tfprof::testing::RunTool;
using tfprof::testing::Slurp;
using tfprof::testing::SourcePath;

namespace {

namespace fs = std::filesystem;

// A fresh folder for one test's summaries.
std::string Scratch(const std::string& name) {
  const fs::path dir = fs::path(tfprof::testing::TempDir()) / ("scale_out_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

// The host files of a run folder, as the tool reads them (the hosts table's
// `file` column), each summarised on its own into `dir`.
std::vector<std::string> SummariseEachHost(const std::string& run_folder, const std::string& dir) {
  const auto hosts = RunTool("hosts -f json " + run_folder);
  REQUIRE(hosts.exit_code == 0);
  fs::create_directories(dir);
  std::vector<std::string> out;
  const nlohmann::json doc = nlohmann::json::parse(hosts.out);
  for (const auto& row : doc["tables"]["hosts"]) {
    const std::string file = row["file"];
    const std::string summary = dir + "/" + file + ".tfsum";
    const auto r = RunTool("summarize " + run_folder + "/" + file + " -o " + summary);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.empty());
    CHECK(r.err.empty());
    out.push_back(summary);
  }
  return out;
}

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += " " + w;
  return out;
}

// Summarised whole and host by host: combined forward and backward, the
// same bytes as the whole; every report command the same on all three.
void CheckApartEqualsWhole(const std::string& run_folder, const std::string& name, size_t hosts) {
  const std::string dir = Scratch(name);
  const std::string whole = dir + "/whole.tfsum";
  REQUIRE(RunTool("summarize " + run_folder + " -o " + whole).exit_code == 0);
  // Deterministic: the same input gives the same bytes.
  REQUIRE(RunTool("summarize " + run_folder + " -o " + dir + "/again.tfsum").exit_code == 0);
  CHECK(Slurp(dir + "/again.tfsum") == Slurp(whole));

  const std::vector<std::string> parts = SummariseEachHost(run_folder, dir + "/apart");
  REQUIRE(parts.size() == hosts);
  std::vector<std::string> reversed(parts.rbegin(), parts.rend());
  REQUIRE(RunTool("combine" + Join(parts) + " -o " + dir + "/forward.tfsum").exit_code == 0);
  REQUIRE(RunTool("combine" + Join(reversed) + " -o " + dir + "/reverse.tfsum").exit_code == 0);
  REQUIRE(RunTool("combine " + dir + "/apart -o " + dir + "/folder.tfsum").exit_code == 0);
  const std::string bytes = Slurp(whole);
  REQUIRE(bytes.size() > 20);
  CHECK(Slurp(dir + "/forward.tfsum") == bytes);
  CHECK(Slurp(dir + "/reverse.tfsum") == bytes);
  CHECK(Slurp(dir + "/folder.tfsum") == bytes);

  for (const char* command : {"metrics", "overview", "steps", "op-stats", "kernel-stats", "hosts"}) {
    INFO(command);
    const auto raw = RunTool(std::string(command) + " " + run_folder);
    const auto combined = RunTool(std::string(command) + " " + dir + "/reverse.tfsum");
    CHECK(combined.exit_code == raw.exit_code);
    CHECK(combined.out == raw.out);  // Line for line.
  }
}

}  // namespace

TEST_CASE("summarize/combine: TF2 two-host run, hosts summarised apart = the run read whole", "[cli][scale_out]") {
  CheckApartEqualsWhole(SourcePath("testdata/captures/tf_two_hosts/plugins/profile/2026_11_21_08_22_33"), "tf2", 2);
}

TEST_CASE("summarize/combine: PyTorch 4-rank DDP run (H100), ranks summarised apart = the run read whole",
          "[cli][scale_out]") {
  CheckApartEqualsWhole(SourcePath("testdata/captures/torch_gpu_ddp"), "ddp", 4);
}

TEST_CASE("summarize/combine: PyTorch two-rank trace of the corpus", "[cli][scale_out][corpus]") {
  REQUIRE_CORPUS(folder, "hta/trace_filter");
  CheckApartEqualsWhole(folder, "hta_ranks", 2);
}

TEST_CASE("combine drops a host file that is a byte-identical copy, as reading the folder does (8x V100, corpus)",
          "[cli][scale_out][corpus]") {
  REQUIRE_CORPUS(folder, "tfprofiler_demo/plugins/profile/GPU-multi-worker");
  const std::string dir = Scratch("v100");
  const std::string a = dir + "/a.tfsum", b = dir + "/b.tfsum";
  REQUIRE(RunTool("summarize " + folder + "/34.83.195.179_6003.xplane.pb -o " + a).exit_code == 0);
  REQUIRE(RunTool("summarize " + folder + "/34.83.195.180_6003.xplane.pb -o " + b).exit_code == 0);
  REQUIRE(RunTool("combine " + b + " " + a + " -o " + dir + "/run.tfsum").exit_code == 0);
  REQUIRE(RunTool("combine " + a + " " + b + " -o " + dir + "/run2.tfsum").exit_code == 0);
  CHECK(Slurp(dir + "/run.tfsum") == Slurp(dir + "/run2.tfsum"));
  const auto raw = RunTool("metrics " + folder);
  const auto combined = RunTool("metrics " + dir + "/run.tfsum");
  REQUIRE(raw.exit_code == 0);
  CHECK(combined.out == raw.out);
  const auto raw_json = nlohmann::json::parse(RunTool("metrics -f json " + folder).out);
  CHECK(raw_json["tables"]["metrics"][0]["metric"] == "run.hosts");
  CHECK(raw_json["tables"]["metrics"][0]["value"] == 1);
  // The copy is reported as discovery reports it.
  const auto verbose = RunTool("hosts -f json " + dir + "/run.tfsum");
  REQUIRE(verbose.exit_code == 0);
  bool reported = false;
  const nlohmann::json doc = nlohmann::json::parse(verbose.out);
  for (const auto& d : doc["diagnostics"])
    reported = reported || (d["kind"] == "input.duplicate_host_file" &&
                            d["example"] == "34.83.195.180_6003 (a byte-identical copy of 34.83.195.179_6003)");
  CHECK(reported);
  // --compat xprof reads copies as hosts: so does combining its summaries.
  REQUIRE(RunTool("summarize --compat xprof " + folder + "/34.83.195.179_6003.xplane.pb -o " + a).exit_code == 0);
  REQUIRE(RunTool("summarize --compat xprof " + folder + "/34.83.195.180_6003.xplane.pb -o " + b).exit_code == 0);
  REQUIRE(RunTool("combine " + b + " " + a + " -o " + dir + "/xprof.tfsum").exit_code == 0);
  CHECK(RunTool("metrics --compat xprof " + dir + "/xprof.tfsum").out ==
        RunTool("metrics --compat xprof " + folder).out);
}

TEST_CASE("Rank folders whose files are named alike read as one run's hosts, whole or summarised apart",
          "[cli][scale_out][hosts]") {
  // rank_0/trace.json and rank_1/trace.json: each host's summary is named
  // <folder>/<file>, so the two neither collide when the run is read whole
  // nor when each file is summarised apart and combined.
  const std::string dir = Scratch("rank_folders");
  for (int r = 0; r < 2; ++r)
    tfprof::testing::WriteFile(fs::path(dir) / ("rank_" + std::to_string(r)) / "trace.json",
                               R"({"distributedInfo": {"rank": )" + std::to_string(r) + R"(}, "traceEvents": [
      {"ph":"M","pid":1,"tid":0,"name":"process_labels","args":{"labels":"CPU"}},
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":)" +
                                   std::to_string(100 + 50 * r) + R"(},
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":40}]})");
  const auto whole = RunTool("hosts -f json " + dir);
  REQUIRE(whole.exit_code == 0);
  const nlohmann::json doc = nlohmann::json::parse(whole.out);
  const auto& rows = doc["tables"]["hosts"];
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["host"] == "rank0");
  CHECK(rows[0]["file"] == "rank_0/trace.json");
  CHECK(rows[1]["host"] == "rank1");
  CHECK(rows[1]["file"] == "rank_1/trace.json");
  CHECK(rows[1]["step_avg_ms"].get<double>() == Approx(0.150));
  const std::string sums = Scratch("rank_folders_sums");
  for (int r = 0; r < 2; ++r) {
    const std::string rank = "rank_" + std::to_string(r);
    REQUIRE(RunTool("summarize " + dir + "/" + rank + "/trace.json -o " + sums + "/" + rank + ".tfsum").exit_code == 0);
  }
  const std::string combined_file = Scratch("rank_folders_run") + "/run.tfsum";
  REQUIRE(RunTool("combine " + sums + " -o " + combined_file).exit_code == 0);
  const auto combined = RunTool("hosts -f json " + combined_file);
  REQUIRE(combined.exit_code == 0);
  CHECK(nlohmann::json::parse(combined.out)["tables"]["hosts"] == rows);
}

TEST_CASE("hosts: a rank whose step is long only by its wait in collectives is not a straggler",
          "[cli][scale_out][hosts]") {
  // Five ranks, one step each (us): the step, its NCCL kernel [5, 5+n), a
  // 1 us GEMM, own host work after the all-reduce.
  //   rank0..2  100, 90, none    rank3  150, 140, none (waits for a peer)
  //   rank4     150, 90, aten::mm [96,146) (slow by its own work)
  // Median step 100 us; outside collectives 10, 10, 10, 10, 60: median 10.
  // rank3: 150 >= 110 but 10 < 11 outside collectives, and not late: no
  // straggler (it was one by step time alone before).
  // rank4: 150 >= 110 and 60 >= 11; late by its 50 us of aten::mm.
  const std::string dir = Scratch("waiting_rank");
  auto trace = [](int rank, int step, int nccl, int own) {
    std::string t = R"({"distributedInfo": {"rank": )" + std::to_string(rank) + R"(}, "traceEvents": [
      {"ph":"M","pid":1,"tid":0,"name":"process_labels","args":{"labels":"CPU"}},
      {"ph":"M","pid":0,"tid":0,"name":"process_labels","args":{"labels":"GPU 0"}},
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":)" +
                    std::to_string(step) + R"(},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":1,"args":{"correlation":1}},
      {"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL","pid":0,"tid":7,"ts":5,"dur":)" +
                    std::to_string(nccl) + R"(,"args":{"correlation":1,"stream":7,"device":0}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":3,"dur":1,"args":{"correlation":2}},
      {"ph":"X","cat":"kernel","name":"sgemm","pid":0,"tid":8,"ts":4,"dur":1,"args":{"correlation":2,"stream":8,"device":0}})";
    if (own > 0)
      t += R"(,
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":96,"dur":)" +
           std::to_string(own) + "}";
    return t + "]}";
  };
  const int steps[] = {100, 100, 100, 150, 150}, ncclus[] = {90, 90, 90, 140, 90}, own[] = {0, 0, 0, 0, 50};
  for (int r = 0; r < 5; ++r)
    tfprof::testing::WriteFile(fs::path(dir) / ("rank" + std::to_string(r) + ".pt.trace.json"),
                               trace(r, steps[r], ncclus[r], own[r]));
  const auto out = RunTool("hosts -f json " + dir);
  REQUIRE(out.exit_code == 0);
  const nlohmann::json doc = nlohmann::json::parse(out.out);
  const auto& rows = doc["tables"]["hosts"];
  REQUIRE(rows.size() == 5);
  for (const auto& row : rows) {
    INFO(row["host"]);
    CHECK(row["straggler"] == (row["host"] == "rank4"));
  }
  CHECK(rows[3]["step_avg_ms"].get<double>() == Approx(0.150));
  CHECK(rows[3]["step_vs_median_percent"].get<double>() == Approx(50.0));
  CHECK(rows[3]["late_ms"].get<double>() == Approx(0.0).margin(1e-9));
  CHECK(rows[4]["late_ms"].get<double>() == Approx(0.050));
  CHECK(doc["statements"][2] == "stragglers: rank4");
}

TEST_CASE("hosts: the DDP run's slow-input rank is the straggler", "[cli][scale_out][hosts]") {
  // 4 ranks on one H100 (gloo all-reduce); rank 2 sleeps 20 ms in its
  // load_batch region each step (scripts/capture/gpu_torch_ddp.py). Counted
  // from the raw traces: rank 2's ProfilerStep#2..#5 last 33769.159,
  // 27990.331, 28407.908, 28730.467 us; its load_batch regions 20.23-20.34
  // ms each. The other ranks wait in the all-reduce: their steps are as
  // long, their own work short.
  const auto r = RunTool("hosts -f json " + SourcePath("testdata/captures/torch_gpu_ddp"));
  REQUIRE(r.exit_code == 0);
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  CHECK(doc["statements"][2] == "stragglers: rank2");
  const auto& rows = doc["tables"]["hosts"];
  REQUIRE(rows.size() == 4);
  for (const auto& row : rows) {
    INFO(row["host"]);
    CHECK(row["steps"] == 4);
    CHECK(row["straggler"] == (row["host"] == "rank2"));
    // Every rank's step is about the same: none is slow by step time.
    CHECK(std::abs(row["step_vs_median_percent"].get<double>()) < 1.0);
  }
  const auto& rank2 = rows[2];
  REQUIRE(rank2["host"] == "rank2");
  CHECK(rank2["step_avg_ms"].get<double>() == Approx((33.769159 + 27.990331 + 28.407908 + 28.730467) / 4).margin(1e-5));
  CHECK(rank2["step_p50_ms"].get<double>() == Approx(28.407908).margin(1e-5));  // 2nd of 4 (nearest rank).
  CHECK(rank2["step_p90_ms"].get<double>() == Approx(33.769159).margin(1e-5));  // 4th of 4.
  CHECK(rank2["step_max_ms"].get<double>() == Approx(33.769159).margin(1e-5));
  // Its own work holds the 20 ms sleep; the others' does not.
  CHECK(rank2["host_compute_ms"].get<double>() > 20.2);
  CHECK(rank2["late_ms"].get<double>() > 18.0);
  for (int i : {0, 1, 3}) {
    CHECK(rows[i]["busy_ms"].get<double>() < 3.0);
    CHECK(rows[i]["all_others_ms"].get<double>() > 25.0);  // Waiting in the all-reduce.
  }
}

TEST_CASE("summaries: refused with one clear line and a documented exit code", "[cli][scale_out][errors]") {
  const std::string dir = Scratch("errors");
  const std::string run = SourcePath("testdata/captures/tf_two_hosts/plugins/profile/2026_11_21_08_22_33");
  const std::string one = dir + "/one.tfsum";
  REQUIRE(RunTool("summarize " + run + "/localhost_6101.xplane.pb -o " + one).exit_code == 0);

  // The same host twice: exit 3, naming the file and the host.
  auto twice = RunTool("combine " + one + " " + one + " -o " + dir + "/twice.tfsum");
  CHECK(twice.exit_code == 3);
  CHECK(twice.err == "tfprof-analyze: error: " + one +
                         ": does not combine with the summaries before it: two run summaries hold host "
                         "localhost_6101 of capture file 'localhost_6101.xplane.pb' (order 0)\n");
  CHECK_FALSE(fs::exists(dir + "/twice.tfsum"));

  // Another schema version: exit 3 before anything is combined.
  std::string old = Slurp(one);
  old[8] = 1;
  tfprof::testing::WriteFile(dir + "/old.tfsum", old);
  auto version = RunTool("combine " + one + " " + dir + "/old.tfsum -o " + dir + "/v.tfsum");
  CHECK(version.exit_code == 3);
  CHECK(version.err == "tfprof-analyze: error: " + dir +
                           "/old.tfsum: run summary schema version 1, this tfprof-analyze reads version 3 "
                           "(summarise the captures again with this version)\n");

  // Not a summary.
  auto capture = RunTool("combine " + run + "/localhost_6101.xplane.pb -o " + dir + "/c.tfsum");
  CHECK(capture.exit_code == 3);
  CHECK(capture.err.find("not a run summary, nor a folder holding *.tfsum files") != std::string::npos);

  // Other analysis options than the summary's: exit 2, saying both.
  auto options = RunTool("overview --compat xprof " + one);
  CHECK(options.exit_code == 2);
  CHECK(options.err == "tfprof-analyze: error: " + one +
                           ": this run summary was made with no analysis options, the command asks for --compat "
                           "xprof; give the summary's options or summarize the captures again with these\n");

  // Summarised with other options: combining refuses.
  REQUIRE(RunTool("summarize --compat xprof " + run + "/localhost_6102.xplane.pb -o " + dir + "/x.tfsum").exit_code ==
          0);
  CHECK(RunTool("combine " + one + " " + dir + "/x.tfsum -o " + dir + "/ox.tfsum").exit_code == 3);

  // `info` reads events, which a summary has none of.
  CHECK(RunTool("info " + one).exit_code == 2);

  // --host picks a host of a summary too.
  REQUIRE(RunTool("summarize " + run + " -o " + dir + "/run.tfsum").exit_code == 0);
  CHECK(RunTool("steps --host localhost_6102 " + dir + "/run.tfsum").out ==
        RunTool("steps --host localhost_6102 " + run).out);
  auto nohost = RunTool("steps --host nosuch " + dir + "/run.tfsum");
  CHECK(nohost.exit_code == 2);
  CHECK(nohost.err.find("no host named 'nosuch' in the run summary (hosts: localhost_6101, localhost_6102)") !=
        std::string::npos);
}

TEST_CASE("summarize -: a capture on standard input, named by --source-name", "[cli][scale_out]") {
  const std::string dir = Scratch("stdin");
  const std::string run = SourcePath("testdata/captures/tf_two_hosts/plugins/profile/2026_11_21_08_22_33");
  const std::string piped = dir + "/piped.tfsum", named = dir + "/named.tfsum";
  const std::string cmd = "cat '" + run + "/localhost_6102.xplane.pb' | '" + TFPROF_TOOL_PATH +
                          "' summarize - --source-name localhost_6102.xplane.pb -o '" + piped + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  REQUIRE(RunTool("summarize " + run + "/localhost_6101.xplane.pb -o " + named).exit_code == 0);
  // The piped host is the file's host, in its place among the run's hosts.
  REQUIRE(RunTool("combine " + piped + " " + named + " -o " + dir + "/run.tfsum").exit_code == 0);
  CHECK(RunTool("metrics " + dir + "/run.tfsum").out == RunTool("metrics " + run).out);
  // Nothing left behind, and a bad stream is named as standard input.
  const auto bad = RunTool("summarize - -o " + dir + "/bad.tfsum");  // stdin is /dev/null: empty.
  CHECK(bad.exit_code == 3);
  CHECK(bad.err == "tfprof-analyze: error: standard input: file is empty (0 bytes)\n");
  CHECK(RunTool("summarize " + run + " --source-name x -o " + dir + "/x.tfsum").exit_code == 2);
}

TEST_CASE("combine, host by host, writes the bytes of combining in memory", "[cli][scale_out]") {
  // tools' `combine` streams (run_summary_stream_combine.h); the library's
  // CombineRunSummaries + RunSummaryToBytes is the definition. Checked on
  // per-host summaries, on summaries of several hosts each (a tree), and in
  // both orders.
  const std::string dir = Scratch("stream");
  const std::string ddp = SourcePath("testdata/captures/torch_gpu_ddp");
  const std::vector<std::string> parts = SummariseEachHost(ddp, dir + "/apart");
  REQUIRE(parts.size() == 4);
  REQUIRE(RunTool("combine " + parts[3] + " " + parts[0] + " -o " + dir + "/a.tfsum").exit_code == 0);
  REQUIRE(RunTool("combine " + parts[2] + " " + parts[1] + " -o " + dir + "/b.tfsum").exit_code == 0);
  REQUIRE(RunTool("combine " + dir + "/b.tfsum " + dir + "/a.tfsum -o " + dir + "/tree.tfsum").exit_code == 0);
  tfprof::RunSummary in_memory;
  for (size_t i : {2, 0, 3, 1}) tfprof::CombineRunSummaries(in_memory, tfprof::ReadRunSummary(parts[i]));
  const std::string expected = tfprof::RunSummaryToBytes(in_memory);
  CHECK(Slurp(dir + "/tree.tfsum") == expected);
  REQUIRE(RunTool("combine " + dir + "/apart -o " + dir + "/flat.tfsum").exit_code == 0);
  CHECK(Slurp(dir + "/flat.tfsum") == expected);

  // A host stored otherwise than this tool stores it (here: an unknown
  // field appended to its message, which a parser would skip) is refused.
  std::string odd = Slurp(parts[0]);
  const size_t body = odd.size() - 20;
  // The file holds one host: its message is field 6 at the top level. Append
  // field 99 (varint 1) inside it and fix the lengths on the way out.
  tfprof::summary::RunSummary message;
  REQUIRE(message.ParseFromString(odd.substr(20)));
  REQUIRE(message.hosts_size() == 1);
  std::string host = message.hosts(0).SerializeAsString() + std::string("\x98\x06\x01", 3);
  message.mutable_hosts(0)->Clear();
  REQUIRE(message.mutable_hosts(0)->ParseFromString(host));  // Kept as an unknown field.
  const std::string rebuilt = message.SerializeAsString();
  REQUIRE(rebuilt.size() == body + 3);
  std::string file = odd.substr(0, 12);
  for (int i = 0; i < 8; ++i) file += static_cast<char>((uint64_t{rebuilt.size()} >> (8 * i)) & 0xff);
  tfprof::testing::WriteFile(dir + "/odd.tfsum", file + rebuilt);
  const auto refused = RunTool("combine " + dir + "/odd.tfsum " + parts[1] + " -o " + dir + "/o.tfsum");
  CHECK(refused.exit_code == 3);
  CHECK(refused.err == "tfprof-analyze: error: " + dir +
                           "/odd.tfsum: corrupt run summary: host rank0 is not stored as tfprof-analyze stores it\n");
}

TEST_CASE("hosts.* metrics gate a many-host run in CI", "[cli][scale_out][hosts]") {
  // The DDP run's straggler (rank 2, late by ~20 ms a step) fails the gate;
  // the two TF2 hosts, in lock step, pass it.
  const std::string ddp = SourcePath("testdata/captures/torch_gpu_ddp");
  const auto fail = RunTool("check " + ddp + " --max hosts.stragglers=0");
  CHECK(fail.exit_code == 5);
  CHECK(fail.err.find("hosts.stragglers = 1 count, not <= 0") != std::string::npos);
  const auto metrics = RunTool("metrics -f json " + ddp);
  REQUIRE(metrics.exit_code == 0);
  const nlohmann::json doc = nlohmann::json::parse(metrics.out);
  const auto hosts = RunTool("hosts -f json " + ddp);
  const nlohmann::json table = nlohmann::json::parse(hosts.out);
  double rank2_late = 0;
  for (const auto& row : table["tables"]["hosts"])
    if (row["host"] == "rank2") rank2_late = row["late_ms"].get<double>();
  bool found = false;
  for (const auto& row : doc["tables"]["metrics"])
    if (row["metric"] == "hosts.max_late_ms") {
      found = true;
      CHECK(row["value"].get<double>() == Approx(rank2_late));
      CHECK(rank2_late > 18.0);
    }
  CHECK(found);
  CHECK(RunTool("check " + SourcePath("testdata/captures/tf_two_hosts") + " --max hosts.stragglers=0").exit_code == 0);
}

TEST_CASE("trace: the Steps track and --steps number steps as hosts --per-step does", "[cli][trace]") {
  // localhost_6101 has 14 grouped steps; the first and the last, cut by the
  // profile window, are left out as the analyses leave them out: its step
  // #0 is "train 47". Before the trace numbered them itself, #3 was "train 49".
  const std::string run = SourcePath("testdata/captures/tf_two_hosts");
  const auto table = RunTool("hosts --per-step -f json " + run);
  REQUIRE(table.exit_code == 0);
  const nlohmann::json host_steps = nlohmann::json::parse(table.out)["tables"]["host_steps"];
  std::map<int64_t, std::string> expected;
  for (const auto& row : host_steps)
    if (row["host"] == "localhost_6101") expected[row["step_number"].get<int64_t>()] = row["step"];
  REQUIRE(expected.size() == 12);
  REQUIRE(expected[3] == "train 50");

  auto steps_in = [](const std::string& json) {
    std::map<int64_t, std::string> out;
    const nlohmann::json doc = nlohmann::json::parse(json);
    for (const auto& e : doc["traceEvents"])
      if (e["ph"] == "X" && e.contains("args") && e["args"].contains("step_number"))
        out[e["args"]["step_number"].get<int64_t>()] = e["name"];
    return out;
  };
  const auto whole = RunTool("trace " + run + " --hosts localhost_6101 -o -");
  REQUIRE(whole.exit_code == 0);
  CHECK(steps_in(whole.out) == expected);
  const auto one = RunTool("trace " + run + " --hosts localhost_6101 --steps 3 -o -");
  REQUIRE(one.exit_code == 0);
  CHECK(steps_in(one.out) == std::map<int64_t, std::string>{{3, "train 50"}});
}
