#include "lib/analyze/input_pipeline_analysis.h"

#include <algorithm>
#include <cctype>

namespace tfprof {
namespace {

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}
bool EndsWith(std::string_view s, std::string_view x) {
  return s.size() >= x.size() && s.substr(s.size() - x.size()) == x;
}
bool Contains(std::string_view s, std::string_view x) { return s.find(x) != std::string_view::npos; }

// Input ops: tf.data iterators, host-to-device copies and infeed, and the
// newer input-pipeline stages. IteratorGetNext is not one: it is where the
// step waits for them.
bool IsInputOp(const OpMetrics& m) {
  const std::string& c = m.category;
  return c.rfind("InfeedEnqueue", 0) == 0 || c == "Dataset" || c == "MemcpyHToD" || EqualsNoCase(c, "enqueue") ||
         EqualsNoCase(c, "read") || EqualsNoCase(c, "preprocessing") || EqualsNoCase(c, "unknown");
}

InputOpCategory Classify(const OpMetrics& m) {
  const std::string& c = m.category;
  if (EqualsNoCase(c, "enqueue")) return InputOpCategory::kEnqueue;
  if (EqualsNoCase(c, "read")) return InputOpCategory::kDemandedFileRead;
  if (EqualsNoCase(c, "preprocessing")) return InputOpCategory::kPreprocessing;
  if (EqualsNoCase(c, "unknown")) return InputOpCategory::kUnknown;
  if (c.rfind("InfeedEnqueue", 0) == 0 || c == "MemcpyHToD") return InputOpCategory::kEnqueue;
  // A dataset that reads files: reading ahead (behind a prefetch,
  // interleave, parallel map or in-memory cache) or on demand.
  const std::string& n = m.name;
  for (std::string_view reader :
       {"::TFRecord", "::TextLine", "::FixedLengthRecord", "::SSTable", "::RecordIO", "::ArrayRecord"})
    if (EndsWith(n, reader)) {
      for (std::string_view ahead : {"::MemoryReader", "::MemoryWriter", "::Interleave", "::Prefetch", "::ParallelMap"})
        if (Contains(n, ahead)) return InputOpCategory::kAdvancedFileRead;
      return InputOpCategory::kDemandedFileRead;
    }
  return InputOpCategory::kPreprocessing;
}

}  // namespace

std::string_view InputOpCategoryName(InputOpCategory c) {
  switch (c) {
    case InputOpCategory::kEnqueue: return "Enqueue";
    case InputOpCategory::kDemandedFileRead: return "Demanded file read";
    case InputOpCategory::kAdvancedFileRead: return "Advanced file read";
    case InputOpCategory::kPreprocessing: return "Preprocessing";
    case InputOpCategory::kUnknown: return "Unknown";
  }
  return "Unknown";
}

InputPipelineAnalysis AnalyzeInputPipeline(const OpMetricsDb& host_ops, const StepSummary& steps) {
  InputPipelineAnalysis a;
  double total_self_ms = 0;
  for (const OpMetrics* m : host_ops.Sorted()) {
    if (!IsInputOp(*m)) continue;
    InputOp op;
    op.name = m->name;
    op.count = m->occurrences;
    op.time_ms = static_cast<double>(m->time_ps) / 1e9;
    op.self_time_ms = static_cast<double>(m->self_time_ps) / 1e9;
    op.category = Classify(*m);
    total_self_ms += op.self_time_ms;
    a.ops.push_back(std::move(op));
  }
  double enqueue = 0, demanded = 0, advanced = 0, preprocessing = 0;
  for (InputOp& op : a.ops) {
    op.time_fraction = total_self_ms > 0 ? op.time_ms / total_self_ms : 0;
    op.self_time_fraction = total_self_ms > 0 ? op.self_time_ms / total_self_ms : 0;
    const double us = op.self_time_ms * 1000;
    switch (op.category) {
      case InputOpCategory::kEnqueue: enqueue += us; break;
      case InputOpCategory::kDemandedFileRead: demanded += us; break;
      case InputOpCategory::kAdvancedFileRead: advanced += us; break;
      case InputOpCategory::kPreprocessing: preprocessing += us; break;
      case InputOpCategory::kUnknown: break;
    }
  }
  // When the host enqueues to the device, the time not spent enqueueing is
  // estimated from the share of the step spent copying to the device;
  // otherwise it is the file reading and preprocessing measured.
  const double classified = demanded + advanced + preprocessing;
  const double ratio =
      steps.step_time_ms.avg > 0 ? std::min(1.0, steps.host_to_device_ms.avg / steps.step_time_ms.avg) : 0.0;
  const double non_enqueue = ratio != 0 ? enqueue * (1 - ratio) / ratio : classified;
  InputTimeBreakdown& b = a.breakdown;
  b.enqueue_us = enqueue;
  if (classified > 0) {
    b.demanded_file_read_us = non_enqueue * demanded / classified;
    b.advanced_file_read_us = non_enqueue * advanced / classified;
    b.preprocessing_us = non_enqueue * preprocessing / classified;
  }
  b.unclassified_non_enqueue_us =
      std::max(0.0, non_enqueue - b.demanded_file_read_us - b.advanced_file_read_us - b.preprocessing_us);
  a.tf_data_in_use = b.demanded_file_read_us > 0 || b.advanced_file_read_us > 0 || b.preprocessing_us > 0;
  return a;
}

InputPipelineAnalysis AnalyzePyTorchInput(const PyTorchRuntimeFacts& f) {
  InputPipelineAnalysis a;
  const struct {
    const char* name;
    uint64_t count, ps;
    InputOpCategory category;
  } rows[] = {
      {"enumerate(DataLoader) in the training process (num_workers=0)", f.single_process_loader_calls,
       f.single_process_loader_ps, InputOpCategory::kPreprocessing},
      {"enumerate(DataLoader) waiting for worker processes", f.worker_loader_calls, f.worker_loader_ps,
       InputOpCategory::kUnknown},
      {"Memcpy HtoD (Pageable -> Device)", f.pageable_h2d_copies, f.pageable_h2d_ps, InputOpCategory::kEnqueue},
      {"Memcpy HtoD (Pinned -> Device)", f.pinned_h2d_copies, f.pinned_h2d_ps, InputOpCategory::kEnqueue},
  };
  double total_ms = 0;
  for (const auto& r : rows) {
    if (r.count == 0) continue;
    InputOp op;
    op.name = r.name;
    op.count = r.count;
    op.time_ms = op.self_time_ms = static_cast<double>(r.ps) / 1e9;
    op.category = r.category;
    total_ms += op.time_ms;
    a.ops.push_back(std::move(op));
  }
  std::stable_sort(a.ops.begin(), a.ops.end(),
                   [](const InputOp& x, const InputOp& y) { return x.self_time_ms > y.self_time_ms; });
  InputTimeBreakdown& b = a.breakdown;
  for (InputOp& op : a.ops) {
    op.time_fraction = op.self_time_fraction = total_ms > 0 ? op.time_ms / total_ms : 0;
    const double us = op.time_ms * 1000;
    if (op.category == InputOpCategory::kEnqueue) b.enqueue_us += us;
    else if (op.category == InputOpCategory::kPreprocessing) b.preprocessing_us += us;
    else b.unclassified_non_enqueue_us += us;
  }
  return a;
}

}  // namespace tfprof
