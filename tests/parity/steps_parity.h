#pragma once

#include <string>

#include "tests/parity/parity.h"

namespace tfprof::parity {

// Per-step rows and the step-time summary against TensorFlow's
// `<host>.input_pipeline.pb` (default mode, host and device events).
Tally CompareStepsWithLegacy(const std::string& run_folder, const std::string& pb_path);

// Against xprof's input_pipeline_analyzer.json step table (--compat xprof).
Tally CompareStepsWithXprof(const std::string& run_folder, const std::string& json_path);

}  // namespace tfprof::parity
