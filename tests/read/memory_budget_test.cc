// Memory the readers account for as they build the model (memory_budget.h),
// the limits it charges against (memory_guard.h), and inputs that expand far
// beyond their size on disk: each is made here, in a temporary folder, and
// run through the command under TFPROF_MEMORY_LIMIT=200M, checking its exit
// code, its one error line and its peak memory (measured by the kernel for
// that one child process).
#include <fcntl.h>
#include <malloc.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lib/model/errors.h"
#include "lib/read/memory_budget.h"
#include "lib/read/memory_guard.h"
#include "tests/support/files.h"
#include "tests/support/xspace_builder.h"

extern char** environ;

namespace fs = std::filesystem;
using namespace tfprof;
using tfprof::testing::WriteFile;
using tfprof::testing::WriteGzipFile;

namespace {

struct Run {
  int exit_code = -1;
  std::string err;
  uint64_t peak_rss_kib = 0;
};

// Runs tfprof-analyze directly (no shell between, so wait4 reports the
// tool's own peak resident memory) with `env` added to the environment.
Run RunMeasured(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  const std::string err_path = tfprof::testing::TempDir() + "/stderr.txt";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<std::string> argv_text{TFPROF_TOOL_PATH};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_text = env;
  for (char** e = environ; *e; ++e)
    if (std::string_view(*e).rfind("TFPROF_MEMORY_LIMIT=", 0) != 0) env_text.emplace_back(*e);
  std::vector<char*> envp;
  for (std::string& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  // posix_spawn starts the child on this process's memory (vfork), and
  // the kernel counts that memory's high-water mark into the child's peak
  // when it execs: after earlier test cases in this process, a check of
  // under 100 MB read 209 MB. Memory this process holds freed goes back
  // first, and its high-water mark is reset to what it holds now
  // (clear_refs "5"; where that fails, the peak may read high).
  malloc_trim(0);
  if (std::ofstream refs("/proc/self/clear_refs"); refs) refs << "5";
  pid_t pid;
  REQUIRE(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data()) == 0);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  struct rusage usage {};
  REQUIRE(::wait4(pid, &status, 0, &usage) == pid);
  Run r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.peak_rss_kib = static_cast<uint64_t>(usage.ru_maxrss);
  std::ifstream in(err_path);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  return r;
}

using testing::wire::Varint;

// One error line, naming the file, the limit and what grew.
void CheckBudgetError(const Run& r, const std::string& file, const std::string& grew) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 3);
  CHECK(r.err.find('\n') == r.err.size() - 1);
  CHECK(r.err.rfind("tfprof-analyze: error: ", 0) == 0);
  CHECK(r.err.find(file + ": reading needs more than the 200 MiB memory limit (") != std::string::npos);
  CHECK(r.err.find(" " + grew + " so far); set TFPROF_MEMORY_LIMIT higher") != std::string::npos);
}

constexpr uint64_t kLimitKib = 200 << 10;

}  // namespace

// Peak RSS bounds hold for the normal build only: under AddressSanitizer
// the tool's shadow memory and quarantine add hundreds of MiB whatever it
// reads (the exit codes and error lines are checked in both builds).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAsan = true;
#else
constexpr bool kUnderAsan = false;
#endif

TEST_CASE("The budget stops at its limit naming the file, the limit and what grew", "[memory]") {
  ReadOptions options;
  options.memory_limit_bytes = 1 << 20;
  options.memory_limit_from_env = true;
  MemoryBudget budget("t.trace.json", options, CaptureFormat::kChromeTrace);
  budget.Charge(Growth::kEvents, 1000, 10);
  // 64-byte processes: the total passes 1 MiB at the 16,369th
  // ((1,048,576 - 1,000) / 64 = 16,368.4).
  uint64_t charged = 0;
  try {
    for (; charged < 20000; ++charged) budget.Charge(Growth::kPlanes, 64);
    FAIL("the limit was not enforced");
  } catch (const InputError& e) {
    CHECK(charged + 1 == 16369);
    CHECK(std::string(e.what()) ==
          "t.trace.json: reading needs more than the 1 MiB memory limit (16,369 processes so far); set "
          "TFPROF_MEMORY_LIMIT higher if this machine has the memory");
    CHECK(e.code() == kExitBadInput);
  }
  // Scratch given back lowers the total; without a limit nothing stops.
  MemoryBudget unlimited("h.xplane.pb", ReadOptions{}, CaptureFormat::kXSpace);
  unlimited.Charge(Growth::kLines, uint64_t{1} << 50, 3);
  unlimited.Release(Growth::kLines, uint64_t{1} << 49);
  CHECK(unlimited.used() == uint64_t{1} << 49);
  CHECK(unlimited.count(Growth::kLines) == 3);
}

TEST_CASE("When events grew most, the error suggests --max-events; the detected limit is named so", "[memory]") {
  ReadOptions options;
  options.memory_limit_bytes = 3 << 20;
  MemoryBudget budget("h.xplane.pb", options, CaptureFormat::kXSpace);
  budget.Charge(Growth::kLines, 1 << 20, 5);
  // The library names no flag: it hints at reading part of the events, and
  // the command line words it (tests/read/bad_inputs_test.cc checks the line).
  try {
    budget.Charge(Growth::kEvents, (2 << 20) + 1, 87382);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "h.xplane.pb: reading needs more than the 3 MiB of memory available (87,382 events so far); "
          "free memory, or read it on a machine with more, or read part of it");
    CHECK(e.hint() == InputHint::kReadPartOfTheEvents);
  }
  // Lines are not what a cap on events bounds: no such hint.
  MemoryBudget lines("h.xplane.pb", options, CaptureFormat::kXSpace);
  try {
    lines.Charge(Growth::kLines, 4 << 20, 9);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.hint() == InputHint::kNone);
    CHECK_THAT(e.what(), Catch::EndsWith("free memory, or read it on a machine with more"));
  }
}

TEST_CASE("cgroup memory limits: v1 and v2, at every level up to the root", "[memory]") {
  const fs::path root = tfprof::testing::TempDir();
  auto put = [&](const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text << "\n";
  };
  // v1, as on a machine where the job's cgroup is nested and the root has
  // no limit (v1 writes that as a huge page-rounded number).
  put(root / "memory/memory.limit_in_bytes", "9223372036854771712");
  put(root / "memory/memory.usage_in_bytes", "13465276416");
  put(root / "memory/jobs/memory.limit_in_bytes", "4294967296");  // 4 GiB for all jobs,
  put(root / "memory/jobs/memory.usage_in_bytes", "3221225472");  // 3 GiB charged to them,
  // 0.5 GiB of which inactive file cache (reclaimable): 1.5 GiB left.
  put(root / "memory/jobs/memory.stat", "cache 600000000\ninactive_file 1\ntotal_inactive_file 536870912");
  put(root / "memory/jobs/a1/memory.limit_in_bytes", "2147483648");  // This job: 2 GiB,
  put(root / "memory/jobs/a1/memory.usage_in_bytes", "536870912");   // 0.5 GiB used: 1.5 GiB left.
  const std::string v1 = "9:name=systemd:/\n4:memory:/jobs/a1\n1:cpu,cpuacct:/\n0::/\n";
  CHECK(CgroupMemoryRoom(root.string(), v1) == uint64_t{3} << 29);   // 1.5 GiB.
  put(root / "memory/jobs/a1/memory.usage_in_bytes", "1610612736");  // The job at 1.5 GiB: its 0.5 GiB binds.
  CHECK(CgroupMemoryRoom(root.string(), v1) == uint64_t{1} << 29);

  // v2: memory.max and memory.current; "max" is no limit.
  put(root / "memory.max", "max");
  put(root / "user.slice/memory.max", "max");
  put(root / "user.slice/job/memory.max", "1073741824");
  put(root / "user.slice/job/memory.current", "104857600");
  CHECK(CgroupMemoryRoom(root.string(), "0::/user.slice/job\n") == uint64_t{1073741824 - 104857600});
  put(root / "user.slice/job/memory.stat", "anon 50000000\nfile 54857600\ninactive_file 4857600\nactive_file 50000000");
  CHECK(CgroupMemoryRoom(root.string(), "0::/user.slice/job\n") == uint64_t{1073741824 - 100000000});
  // In a container the process's own path is not under the mount, whose
  // root is the container's cgroup.
  const fs::path container = tfprof::testing::TempDir();
  put(container / "memory/memory.limit_in_bytes", "536870912");
  put(container / "memory/memory.usage_in_bytes", "0");
  CHECK(CgroupMemoryRoom(container.string(), "4:memory:/docker/0123abcd\n") == uint64_t{536870912});
  // No limit anywhere.
  CHECK(CgroupMemoryRoom(root.string(), "0::/user.slice\n") == std::nullopt);
  CHECK(CgroupMemoryRoom(root.string(), "4:memory:/\n") == std::nullopt);
}

TEST_CASE("A small gzip XSpace of empty planes stops at the memory limit", "[memory][bad_inputs]") {
  // Two bytes per plane (field 1, length 0): 2,000,000 planes in 4 MB that
  // gzip packs into about 4 KB. Read whole, they took 2.4 GB.
  const std::string path = tfprof::testing::TempDir() + "/empty_planes.xplane.pb.gz";
  std::string planes;
  for (int i = 0; i < 2'000'000; ++i) planes.append("\x0a\x00", 2);
  REQUIRE(WriteGzipFile(path, planes, "wb9"));
  CHECK(fs::file_size(path) < 8000);
  Run r = RunMeasured({"info", path}, {"TFPROF_MEMORY_LIMIT=200M"});
  CheckBudgetError(r, "empty_planes.xplane.pb.gz", "planes");
  if (!kUnderAsan) CHECK(r.peak_rss_kib < 2 * kLimitKib);
  // --max-events bounds events only: the planes still stop at the limit.
  Run capped = RunMeasured({"info", "--max-events", "10", path}, {"TFPROF_MEMORY_LIMIT=200M"});
  CheckBudgetError(capped, "empty_planes.xplane.pb.gz", "planes");
}

TEST_CASE("An 8 MB XSpace of empty lines stops at the memory limit", "[memory][bad_inputs]") {
  // One plane of 4,000,000 empty lines (field 3, length 0).
  std::string lines;
  for (int i = 0; i < 4'000'000; ++i) lines.append("\x1a\x00", 2);
  const std::string path = tfprof::testing::TempDir() + "/empty_lines.xplane.pb";
  WriteFile(path, "\x0a" + Varint(lines.size()) + lines);
  Run r = RunMeasured({"info", path}, {"TFPROF_MEMORY_LIMIT=200M"});
  CheckBudgetError(r, "empty_lines.xplane.pb", "lines");
  if (!kUnderAsan) CHECK(r.peak_rss_kib < 2 * kLimitKib);
}

TEST_CASE("A trace of 20000 processes reads in little memory and stops at a limit it passes", "[memory][bad_inputs]") {
  // One instant event per pid: 27 bytes of JSON open a process and a thread.
  std::string json = "{\"traceEvents\":[";
  for (int pid = 0; pid < 20000; ++pid)
    json += (pid ? "," : "") + std::string("{\"ph\":\"i\",\"ts\":0,\"pid\":") + std::to_string(pid) + "}";
  json += "]}";
  const std::string path = tfprof::testing::TempDir() + "/pids.trace.json.gz";
  REQUIRE(WriteGzipFile(path, json, "wb9"));
  Run r = RunMeasured({"info", "-f", "json", path}, {"TFPROF_MEMORY_LIMIT=200M"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  // It took 2.0 GB (about 100 KiB per process) before each process's name
  // caches and first event blocks were sized to what it holds.
  if (!kUnderAsan) CHECK(r.peak_rss_kib < 100 << 10);
  // Under a limit these processes pass, the one error line.
  Run small = RunMeasured({"info", path}, {"TFPROF_MEMORY_LIMIT=20M"});
  INFO(small.err);
  CHECK(small.exit_code == 3);
  CHECK(small.err.find("pids.trace.json.gz: reading needs more than the 20 MiB memory limit (") != std::string::npos);
  CHECK(small.err.find(" processes so far); set TFPROF_MEMORY_LIMIT higher") != std::string::npos);
  CHECK(small.err.find('\n') == small.err.size() - 1);
}

TEST_CASE("With --max-events the gzip inflate limit still follows the memory", "[memory][bad_inputs]") {
  // bomb.xplane.pb.gz: 24 KiB inflating to 24 MiB; 20 MiB of memory lets
  // an XSpace inflate to 8 MiB.
  const std::string bomb = std::string(TFPROF_SOURCE_DIR) + "/testdata/bad/bomb.xplane.pb.gz";
  Run r = RunMeasured({"info", "--max-events", "10", bomb}, {"TFPROF_MEMORY_LIMIT=20M"});
  INFO(r.err);
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("bomb.xplane.pb.gz: gzip content inflates beyond 8 MiB, more than this machine's available memory "
                   "allows reading") != std::string::npos);
}
