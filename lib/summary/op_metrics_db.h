// Per-op time accounting, the intermediate the TensorFlow Stats table, the
// op placement and the overview's top ops all read (the reference's
// OpMetricsDb). One database per side (host, device) per host; hosts combine
// database + database.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace tfprof {

inline constexpr std::string_view kIdleOp = "IDLE";

struct OpMetrics {
  uint64_t module_id = 0;  // 0 for TensorFlow ops (the XLA module id otherwise).
  std::string name;        // Op name, e.g. "sequential/dense/MatMul".
  std::string category;    // Op type, e.g. "MatMul"; "IDLE" for idle time.
  std::string provenance;  // Device ops: the full TF op ("name:type") they ran for.
  // The provenance is the op's name as is and the category its type (ops
  // the capture types explicitly, tf_op_type: PyTorch's aten::addmm).
  bool provenance_is_name = false;
  bool is_eager = false;  // Ran op by op, not inside a tf.function.
  uint64_t occurrences = 0;
  uint64_t time_ps = 0;       // Total (inclusive) time.
  uint64_t self_time_ps = 0;  // Time minus nested ops' time.
  uint32_t num_cores = 0;     // Device ops: on how many devices it ran.
  // Host ops the capture types (PyTorch's): executions during which the
  // op or an op inside it called the device runtime (launched a kernel,
  // a copy, a memset). An op that never did ran on the host.
  uint64_t device_launching_occurrences = 0;

  bool is_idle() const { return name == kIdleOp; }
};

class OpMetricsDb {
 public:
  // The row for (module_id, name), created empty on first use. Rows keep the
  // order they were created in.
  OpMetrics& Lookup(uint64_t module_id, std::string_view name);
  // The same as an index into rows(), which stays valid as rows are added
  // (callers keep it to skip the lookup by name).
  size_t LookupIndex(uint64_t module_id, std::string_view name);
  OpMetrics& Row(size_t index) { return rows_[index]; }

  const std::vector<OpMetrics>& rows() const { return rows_; }
  uint64_t total_time_ps = 0;     // Wall time the database covers (with idle).
  uint64_t total_op_time_ps = 0;  // Sum of self times (without idle).

  // Total time is never below the ops' time, so idle is never negative.
  void SetTotalTime(uint64_t ps) { total_time_ps = std::max(total_op_time_ps, ps); }
  // Appends the IDLE row: total time minus the ops' self time.
  void AddIdle();
  // Appends a row as it is (a stored database read back row by row); as for
  // IDLE, Lookup finds the first row of a key.
  void AppendRow(OpMetrics row);
  // Adds `src`'s rows and totals: metadata from the first side that has it,
  // counts and times summed; num_cores summed when `count_cores`.
  void Combine(const OpMetricsDb& src, bool count_cores);

  // Rows by self time, descending, ties by name; at most `limit` (0: all).
  std::vector<const OpMetrics*> Sorted(size_t limit = 0, bool with_idle = true) const;

 private:
  std::vector<OpMetrics> rows_;
  absl::flat_hash_map<std::pair<uint64_t, std::string>, size_t> index_;
};

}  // namespace tfprof
