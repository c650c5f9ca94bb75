// Every file the command writes (-o, --junit, tf-data's DOT) on copies of a
// real capture: never an input, never inside an input folder, replaced
// atomically; and stdout that cannot be written is an error.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"
#include "tests/support/xspace_builder.h"
#include "tests/tools/run_limited.h"

using tfprof::testing::RunLimited;
using tfprof::testing::RunTool;
using tfprof::testing::Slurp;
namespace fs = std::filesystem;

namespace {

int Lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// A copy of testdata/captures/tf_input_bound (326 KiB, with tf.data
// events) in a fresh folder: a logdir whose one run holds one host.
struct LogdirCopy {
  std::string logdir, run, capture;
};
LogdirCopy CopyInputBound() {
  LogdirCopy c;
  c.logdir = tfprof::testing::TempDir() + "/logs";
  fs::copy(tfprof::testing::SourcePath("testdata/captures/tf_input_bound"), c.logdir, fs::copy_options::recursive);
  c.run = c.logdir + "/plugins/profile/2026_11_21_08_21_55";
  c.capture = c.run + "/tfprof-capture.xplane.pb";
  return c;
}

}  // namespace

TEST_CASE("An output that is an input, or inside an input folder, is refused", "[cli][output]") {
  const LogdirCopy a = CopyInputBound();
  const LogdirCopy b = CopyInputBound();
  const std::string original = Slurp(a.capture);
  REQUIRE(original.size() == 334689);
  const std::string elsewhere = tfprof::testing::TempDir();
  fs::create_symlink(a.capture, elsewhere + "/link.xplane.pb");
  fs::create_hard_link(a.capture, elsewhere + "/hard.xplane.pb");
  std::ofstream(elsewhere + "/perf.rules") << "run.hosts <= 1\n";

  const std::string inside_a = ": lies inside the input folder " + a.logdir + "; refusing to write there";
  const std::string is_a = ": is an input of this command (" + a.capture + "); refusing to overwrite it";
  struct Case {
    std::string args, error;
  };
  for (const Case& c : std::vector<Case>{
           // The case: the run folder as input, its capture as -o.
           {"info " + a.run + " -o " + a.capture,
            a.capture + ": lies inside the input folder " + a.run + "; refusing to write there"},
           {"info " + a.logdir + " -o " + a.capture, a.capture + inside_a},
           {"info " + a.capture + " -o " + a.capture, a.capture + is_a},
           {"info " + a.capture + " -o " + elsewhere + "/link.xplane.pb", elsewhere + "/link.xplane.pb" + is_a},
           {"info " + a.capture + " -o " + elsewhere + "/hard.xplane.pb", elsewhere + "/hard.xplane.pb" + is_a},
           // A new file inside the logdir would be read by the next run.
           {"info " + a.logdir + " -o " + a.run + "/report.trace.json", a.run + "/report.trace.json" + inside_a},
           {"info --list-runs " + a.logdir + " -o " + a.logdir + "/runs.txt", a.logdir + "/runs.txt" + inside_a},
           {"check " + a.capture + " --max run.hosts=1 --junit " + a.capture, a.capture + is_a},
           {"check " + a.capture + " --rules " + elsewhere + "/perf.rules --junit " + elsewhere + "/perf.rules",
            elsewhere + "/perf.rules: is an input of this command (" + elsewhere +
                "/perf.rules); refusing to overwrite it"},
           {"tf-data -f dot " + a.capture + " -o " + a.capture, a.capture + is_a},
           {"diff " + a.logdir + " " + b.logdir + " -o " + a.capture, a.capture + inside_a},
           {"diff " + b.logdir + " " + a.logdir + " -o " + a.capture, a.capture + inside_a},
           {"diff " + b.capture + " " + a.capture + " --fail-if 'overview.steps>+1' --junit " + a.capture,
            a.capture + is_a},
           {"check " + b.capture + " --max run.hosts=1 -o " + elsewhere + "/r.txt --junit " + elsewhere + "/r.txt",
            elsewhere + "/r.txt: is also the file of another output of this command (" + elsewhere +
                "/r.txt); give each its own"},
       }) {
    INFO(c.args);
    auto r = RunTool(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "tfprof-analyze: error: " + c.error + "\n");
    CHECK(r.out.empty());
    CHECK(Slurp(a.capture) == original);
  }
  // Nothing was created in the input folders.
  size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(a.logdir)) files += e.is_regular_file();
  CHECK(files == 2);  // The capture and xplane_summary.json.
  CHECK_FALSE(fs::exists(elsewhere + "/r.txt"));
}

TEST_CASE("Outputs beside the input, not inside an input folder, are written", "[cli][output]") {
  const LogdirCopy a = CopyInputBound();
  const std::string dir = fs::path(a.logdir).parent_path().string();
  auto r = RunTool("info -f csv " + a.capture + " -o " + dir + "/info.csv");
  REQUIRE(r.exit_code == 0);
  CHECK(Slurp(dir + "/info.csv").rfind("host,plane_id,plane,lines,events,", 0) == 0);
  // A capture given as a file: its folder is not an input.
  auto beside = RunTool("info -f csv " + a.capture + " -o " + a.run + "/info.csv");
  CHECK(beside.exit_code == 0);
  auto dot = RunTool("tf-data -f dot " + a.logdir + " -o " + dir + "/graph.dot");
  REQUIRE(dot.exit_code == 0);
  CHECK(Slurp(dir + "/graph.dot").rfind("digraph", 0) == 0);
}

TEST_CASE("A command that fails leaves an existing output file as it was", "[cli][output]") {
  const LogdirCopy a = CopyInputBound();
  const std::string out = fs::path(a.logdir).parent_path().string() + "/report.csv";
  std::ofstream(out) << "the previous report\n";
  // The table is looked up while rendering, after the output was opened.
  auto r = RunTool("info -f csv --table nonexistent " + a.capture + " -o " + out);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("no table 'nonexistent'"));
  CHECK(Slurp(out) == "the previous report\n");

  // A write that fails half way: a file size limit of 4 blocks (2 or 4 KiB)
  // under the 94 KiB JSON report (SIGXFSZ ignored, so write() says EFBIG).
  const std::string err = out + ".err";
  const std::string cmd = "trap '' XFSZ; ulimit -f 4; '" + std::string(TFPROF_TOOL_PATH) + "' op-stats -f json " +
                          a.capture + " -o " + out + " 2>" + err;
  const int status = std::system(cmd.c_str());
  CHECK(WEXITSTATUS(status) == 1);
  CHECK(Slurp(err) == "tfprof-analyze: error: " + out + ": write failed (File too large)\n");
  CHECK(Slurp(out) == "the previous report\n");
  fs::remove(err);

  // And no temporary file is left beside it.
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(fs::path(out).parent_path())) ++entries;
  CHECK(entries == 2);  // logs/ and report.csv.
}

TEST_CASE("Concurrent runs writing one output leave one complete output", "[cli][output]") {
  const LogdirCopy a = CopyInputBound();
  const std::string dir = fs::path(a.logdir).parent_path().string();
  // Two outputs of different sizes: JSON (long) and CSV (short).
  REQUIRE(RunTool("info -f json -o " + dir + "/long " + a.capture).exit_code == 0);
  REQUIRE(RunTool("info -f csv -o " + dir + "/short " + a.capture).exit_code == 0);
  const std::string long_text = Slurp(dir + "/long"), short_text = Slurp(dir + "/short");
  REQUIRE(long_text.size() > 4 * short_text.size());
  const std::string tool = "'" + std::string(TFPROF_TOOL_PATH) + "'";
  // Before the fix (truncate, then write in place) about one round in 15
  // left a mix of the two; 50 rounds catch that with ~97% probability.
  // Now the file is always one run's complete output.
  int mixed = 0;
  for (int round = 0; round < 50; ++round) {
    const std::string out = dir + "/out" + std::to_string(round);
    // Three of each, started together.
    std::string cmd;
    for (int i = 0; i < 3; ++i)
      cmd += tool + " info -f json -o " + out + " " + a.capture + " & " + tool + " info -f csv -o " + out + " " +
             a.capture + " & ";
    REQUIRE(std::system((cmd + "wait").c_str()) == 0);
    const std::string got = Slurp(out);
    mixed += got != long_text && got != short_text;
  }
  CHECK(mixed == 0);
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  CHECK(entries == 1 + 2 + 50);  // logs/, long, short, out0..49: no temporary files.
}

TEST_CASE("Output that cannot be written is exit 1 with one line", "[cli][output]") {
  const LogdirCopy a = CopyInputBound();
  auto stdout_full = RunLimited("info " + a.capture, "> /dev/full");
  CHECK(stdout_full.exit_code == 1);
  CHECK(stdout_full.err == "tfprof-analyze: error: standard output: write failed (No space left on device)\n");
  // Also when the check failed: the report is lost, which matters more.
  auto check_full = RunLimited("check " + a.capture + " --max overview.input_percent=20", "> /dev/full");
  CHECK(check_full.exit_code == 1);
  CHECK(check_full.err == "tfprof-analyze: error: standard output: write failed (No space left on device)\n");

  auto file_full = RunLimited("info " + a.capture + " -o /dev/full");
  CHECK(file_full.exit_code == 1);
  CHECK(file_full.err == "tfprof-analyze: error: /dev/full: write failed (No space left on device)\n");

  // /dev/null is a device: written in place, not replaced.
  auto null = RunLimited("info " + a.capture + " -o /dev/null");
  CHECK(null.exit_code == 0);
  CHECK(null.err.empty());

  const std::string dir = tfprof::testing::TempDir();
  REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0600) == 0);
  auto fifo = RunLimited("info " + a.capture + " -o " + dir + "/fifo");
  CHECK(fifo.exit_code == 2);
  CHECK(fifo.err == "tfprof-analyze: error: " + dir + "/fifo: is a FIFO nobody reads\n");

  auto folder = RunLimited("info " + a.capture + " -o " + dir);
  CHECK(folder.exit_code == 2);
  CHECK(folder.err == "tfprof-analyze: error: " + dir + ": is a folder; cannot write the output there\n");
  CHECK(Lines(folder.err) == 1);
}
