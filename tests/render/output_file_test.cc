// OutputGuard (an output is never an input, nor inside an input folder) and
// OutputFile (atomic replacement), on real files in a temporary folder.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lib/model/errors.h"
#include "lib/render/output_file.h"
#include "tests/support/files.h"
#include "tests/support/xspace_builder.h"

using namespace tfprof;
using tfprof::testing::Slurp;
using tfprof::testing::WriteFile;
namespace fs = std::filesystem;

namespace {

// The exit code and message of what `f` throws; code -1 when nothing.
std::pair<int, std::string> Thrown(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return {e.code(), e.what()};
  }
  return {-1, ""};
}

// Each of `outputs` is refused as a usage error: "<output><why>".
void CheckRefused(const OutputGuard& guard, const std::vector<std::string>& outputs, const std::string& why) {
  for (const std::string& out : outputs) {
    INFO(out);
    auto [code, message] = Thrown([&] { guard.CheckOutput(out); });
    CHECK(code == kExitUsage);
    CHECK(message == out + why);
  }
}

size_t FilesIn(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("The guard refuses an output that is an input file, however it is named", "[output]") {
  const std::string dir = testing::TempDir();
  fs::create_directories(dir + "/run");
  fs::create_directories(dir + "/elsewhere");
  WriteFile(dir + "/run/host.xplane.pb", "capture");
  fs::create_symlink(dir + "/run/host.xplane.pb", dir + "/elsewhere/link.pb");
  fs::create_hard_link(dir + "/run/host.xplane.pb", dir + "/elsewhere/hard.pb");

  OutputGuard guard;
  guard.AddInput(dir + "/run/host.xplane.pb");
  CheckRefused(guard,
               {dir + "/run/host.xplane.pb", dir + "/run/../run/host.xplane.pb", dir + "/elsewhere/link.pb",
                dir + "/elsewhere/hard.pb"},
               ": is an input of this command (" + dir + "/run/host.xplane.pb); refusing to overwrite it");
  // A file input does not make its folder an input.
  CHECK(Thrown([&] { guard.CheckOutput(dir + "/run/report.csv"); }).first == -1);
  CHECK(Thrown([&] { guard.CheckOutput(dir + "/elsewhere/new.csv"); }).first == -1);
}

TEST_CASE("The guard refuses anything inside an input folder", "[output]") {
  const std::string dir = testing::TempDir();
  fs::create_directories(dir + "/logs/plugins/profile/run1");
  fs::create_directories(dir + "/out");
  fs::create_directory_symlink(dir + "/logs/plugins", dir + "/out/into_logs");

  OutputGuard guard;
  guard.AddInput(dir + "/logs");
  CheckRefused(guard,
               {dir + "/logs/report.csv", dir + "/logs/plugins/profile/run1/evil.trace.json",
                dir + "/out/into_logs/x.csv", dir + "/out/../logs/y.csv"},
               ": lies inside the input folder " + dir + "/logs; refusing to write there");
  CHECK(Thrown([&] { guard.CheckOutput(dir + "/logs"); }).second ==
        dir + "/logs: is the input folder " + dir + "/logs; refusing to write there");
  CHECK(Thrown([&] { guard.CheckOutput(dir + "/out/report.csv"); }).first == -1);
  CHECK(Thrown([&] { guard.CheckOutput(dir + "/logs-report.csv"); }).first == -1);  // A sibling, not inside.
}

TEST_CASE("Outputs are checked against inputs registered later, and against each other", "[output]") {
  const std::string dir = testing::TempDir();
  WriteFile(dir + "/rules.txt", "overview.input_percent <= 20\n");
  OutputGuard guard;
  guard.AddOutput(dir + "/report.txt");
  guard.AddOutput(dir + "/rules.txt");  // Not an input yet.
  auto [code, message] = Thrown([&] { guard.AddInput(dir + "/rules.txt"); });
  CHECK(code == kExitUsage);
  CHECK(message == dir + "/rules.txt: is an input of this command (" + dir + "/rules.txt); refusing to overwrite it");
  CHECK(Thrown([&] { guard.AddOutput(dir + "/./report.txt"); }).second ==
        dir + "/./report.txt: is also the file of another output of this command (" + dir +
            "/report.txt); give each its own");
}

TEST_CASE("An output file replaces the old one only when complete", "[output]") {
  const std::string dir = testing::TempDir();
  const std::string path = dir + "/report.csv";
  WriteFile(path, "old\n");
  ::chmod(path.c_str(), 0640);
  OutputGuard guard;
  {
    OutputFile out(path, guard);
    out.stream() << "new, half written";
    CHECK(Slurp(path) == "old\n");  // Not yet visible.
    CHECK(FilesIn(dir) == 2);       // The old file and the temporary one.
    // Destroyed without Commit(), as when rendering throws.
  }
  CHECK(Slurp(path) == "old\n");
  CHECK(FilesIn(dir) == 1);  // No temporary file left behind.
  {
    OutputFile out(path, guard);
    out.stream() << std::string(200'000, 'x');  // More than one buffer.
    out.Commit();
  }
  CHECK(Slurp(path) == std::string(200'000, 'x'));
  CHECK(FilesIn(dir) == 1);
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640);  // The replaced file's permissions.
}

TEST_CASE("An output through a symlink replaces the link's target", "[output]") {
  const std::string dir = testing::TempDir();
  WriteFile(dir + "/target.csv", "old\n");
  fs::create_symlink("target.csv", dir + "/link.csv");
  OutputGuard guard;
  OutputFile out(dir + "/link.csv", guard);
  out.stream() << "new\n";
  out.Commit();
  CHECK(fs::is_symlink(dir + "/link.csv"));
  CHECK(Slurp(dir + "/target.csv") == "new\n");
}

TEST_CASE("Outputs that cannot be written say why", "[output]") {
  const std::string dir = testing::TempDir();
  OutputGuard guard;
  {
    // Devices are written in place: /dev/null takes anything ...
    OutputFile out("/dev/null", guard);
    out.stream() << "discarded";
    CHECK_NOTHROW(out.Commit());
  }
  // ... /dev/full fails every write (ENOSPC): exit 1, not a usage error.
  auto full = Thrown([&] {
    OutputFile out("/dev/full", guard);
    out.stream() << "lost";
    out.Commit();
  });
  CHECK(full.first == kExitOutputFailed);
  CHECK(full.second == "/dev/full: write failed (No space left on device)");

  CHECK(Thrown([&] { OutputFile out(dir + "/no/such/folder.csv", guard); }).second ==
        dir + "/no/such/folder.csv: cannot open for writing (No such file or directory)");
  CHECK(Thrown([&] { OutputFile out(dir, guard); }).second == dir + ": is a folder; cannot write the output there");

  // A FIFO nobody reads: an error at once, not a wait.
  REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0600) == 0);
  auto fifo = Thrown([&] { OutputFile out(dir + "/fifo", guard); });
  CHECK(fifo.first == kExitUsage);
  CHECK(fifo.second == dir + "/fifo: is a FIFO nobody reads");
}
