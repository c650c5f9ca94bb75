// The Input Pipeline Analyzer: how long steps wait for input (device side)
// and what the host's input ops did (host side).
#pragma once

#include <string>
#include <vector>

#include "lib/analyze/step_summary.h"
#include "lib/summary/op_metrics_db.h"
#include "lib/summary/pytorch_runtime_facts.h"

namespace tfprof {

enum class InputOpCategory { kEnqueue, kDemandedFileRead, kAdvancedFileRead, kPreprocessing, kUnknown };
std::string_view InputOpCategoryName(InputOpCategory c);

struct InputOp {
  std::string name;
  uint64_t count = 0;
  double time_ms = 0, self_time_ms = 0;
  double time_fraction = 0, self_time_fraction = 0;  // Of all input ops' self time.
  InputOpCategory category = InputOpCategory::kUnknown;
};

struct InputTimeBreakdown {
  double enqueue_us = 0, demanded_file_read_us = 0, advanced_file_read_us = 0, preprocessing_us = 0,
         unclassified_non_enqueue_us = 0;
};

struct InputPipelineAnalysis {
  std::vector<InputOp> ops;  // By self time, as the reference orders them.
  InputTimeBreakdown breakdown;
  bool tf_data_in_use = false;  // Any file read or preprocessing time.
};

InputPipelineAnalysis AnalyzeInputPipeline(const OpMetricsDb& host_ops, const StepSummary& steps);

// A PyTorch trace's host side, which has no tf.data ops: the DataLoader's
// batches fetched in the training process (num_workers=0: loading and
// preprocessing, category Preprocessing) or waited for from worker
// processes (Unknown: what the workers did is not in the trace), and the
// host-to-device copies from pageable and pinned memory (Enqueue); each
// row's time is whole (an annotation's self time would leave out the ops
// it runs), and the breakdown is their sums.
InputPipelineAnalysis AnalyzePyTorchInput(const PyTorchRuntimeFacts& facts);

}  // namespace tfprof
