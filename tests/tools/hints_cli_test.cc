// The library's hints worded by the command line (tools/hints_to_text.cc):
// the no-steps hint gives examples in the capture's framework's terms, and
// input errors end with the flag that gets around them.
#include <catch2/catch.hpp>

#include "tests/support/corpus.h"
#include "tests/support/run_tool.h"

using tfprof::testing::RunTool;
using tfprof::testing::SourcePath;

TEST_CASE("The no-steps hint speaks the capture's framework", "[cli][steps]") {
  // A TensorFlow capture without step markers gets TensorFlow's examples,
  // never PyTorch's DataLoader (which the hint used to show to every
  // capture); a PyTorch trace without ProfilerStep#N gets PyTorch's.
  struct Case {
    const char* capture;
    std::string hint;
    const char* foreign;  // An example of the other framework.
  };
  const Case cases[] = {
      {"tf_no_steps",
       "Use --step-marker REGEX (events that mark steps, e.g. '^train$' for tf.profiler.experimental.Trace('train')), "
       "--steps-between REGEX (steps from one event to the next, e.g. 'IteratorGetNext', which a tf.data loop runs "
       "once per step) or --whole-trace (the capture as one step) to get a breakdown anyway.",
       "DataLoader"},
      {"torch_gpu_fp32_nosched",
       "Use --step-marker REGEX (events that mark steps, e.g. 'ProfilerStep#\\d+'), --steps-between REGEX (steps from "
       "one event to the next, e.g. 'enumerate\\(DataLoader\\)') or --whole-trace (the capture as one step) to get a "
       "breakdown anyway.",
       "IteratorGetNext"},
  };
  for (const Case& c : cases) {
    INFO(c.capture);
    auto r = RunTool("overview " + SourcePath(std::string("testdata/captures/") + c.capture));
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains(c.hint));
    CHECK_THAT(r.out, !Catch::Contains(c.foreign));
  }

  // What a run already tried is not offered again.
  auto marker = RunTool("overview " + SourcePath("testdata/captures/tf_no_steps") + " --step-marker '^nope$'");
  REQUIRE(marker.exit_code == 0);
  CHECK_THAT(marker.out, Catch::Contains("Use another --step-marker REGEX, --steps-between REGEX, or --whole-trace "
                                         "(the capture as one step) to get a breakdown anyway."));
}

TEST_CASE("Input errors end with the flag that gets around them", "[cli]") {
  auto r = RunTool("info " + SourcePath("testdata/captures/tf_no_steps") + " --run nope");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::EndsWith(": no run named 'nope' (see --list-runs)\n"));
}
