// XLA ops (JAX; TensorFlow with XLA when its kernels name no TF op) in
// captures read without the HLO protos: events that carry an `hlo_op` stat,
// counted per HLO op of each XLA module and typed by a category read from the
// op's name (docs/formats/jax.md). The reference (xprof) needs the HLO protos
// to name such ops and leaves them out without them; so do we with
// --compat xprof / tf-legacy.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/model/stat_finder.h"
#include "lib/summary/analysis_options.h"
#include "lib/summary/op_metrics_db.h"

namespace tfprof {

// XLA's category of an HLO op (the strings HloInstruction::ToCategory gives
// with the protos: "loop fusion", "input fusion", "custom fusion",
// "custom-call", "data formatting", "non-fusion elementwise", an opcode such
// as "dot" or "all-reduce"), told from the name XLA gave the instruction:
// "loop_add_fusion.2" is a loop fusion, "gemm_fusion_dot.1" a Triton GEMM
// (custom fusion), "cublas-gemm.3" a cuBLAS custom call, "copy.1" data
// formatting. Names XLA gives to no HLO instruction: "command_buffer*" (a
// command buffer: several ops run as one CUDA graph) is "command buffer"; a
// plain "<...>_fusion" whose kind the name doesn't say is "fusion"; anything
// else not shaped like an opcode is "unknown".
std::string XlaOpCategory(std::string_view hlo_op);

// Whether an HLO op can use Tensor Cores: dots, convolutions and GEMMs (by
// name or category), as the reference asks of TF ops (MatMul, Conv2D...).
bool IsXlaOpTensorCoreEligible(std::string_view hlo_op, std::string_view category);

// A capture JAX wrote: a plane records jax_version / jaxlib_version (JAX
// 0.4.30+ on /host:metadata), or the host dispatched jitted functions
// (PjitFunction(...) events). Its host events are no TensorFlow ops, though
// PjRt's "ThenExecuteCallback:GetEventForComputeStreamSyncPoint" parses as
// one and kernel launches carry XLA's tf_op placeholder "XlaModule:".
bool IsJaxCapture(const Host& host);

// An XLA op as the reports show it.
struct XlaOp {
  std::string name;      // "<hlo_module>/<hlo_op>" ("jit_train_step/gemm_fusion_dot.1"); the op alone without a module.
  std::string category;  // The event's hlo_category stat, else XlaOpCategory(hlo_op).
  bool command_buffer = false;
  bool tensor_core_eligible = false;
};

// Names the XLA ops of one plane's events, once per distinct
// (module, op, category) stat triple.
class XlaOpNamer {
 public:
  XlaOpNamer(const Host& host, const Plane& plane);

  // The XLA op the event ran, or null: no (or an empty) hlo_op stat, or a
  // tf_op stat that names a TensorFlow op ("name:Type": TensorFlow with XLA,
  // whose kernels count for that TF op as usual).
  const XlaOp* Of(std::span<const Stat> stats);
  // Whether the event is a kernel launch or copy call on the host (it has a
  // correlation_id): named by the op whose kernel it launches, but not that op.
  bool IsLaunch(std::span<const Stat> stats) const { return correlation_id_.In(stats).has_value(); }
  // Whether the plane has hlo_op stats at all (most TF captures don't).
  bool any() const { return hlo_op_.exists(); }

 private:
  const Host& host_;
  StatFinder hlo_op_, hlo_module_, hlo_category_, tf_op_, correlation_id_;
  absl::flat_hash_map<std::tuple<StringId, StringId, StringId>, const XlaOp*> by_stats_;
  absl::flat_hash_map<StringId, bool> tf_op_names_tf_op_;
  std::deque<XlaOp> ops_;  // Stable addresses for the pointers handed out.
};

// Device side: one row per XLA op (provenance_is_name, so the TF-op roll-up
// keeps it as it is). An occurrence is a run of consecutive events of the
// op on one stream, split where the module's execution changes
// (scope_range_id, JAX 0.11+): an op that runs several kernels (a cuDNN
// convolution, a cuBLAS GEMM and its split-K reduction, a command buffer)
// ran once.
class XlaDeviceOpsBuilder {
 public:
  XlaDeviceOpsBuilder(const Host& host, const Plane& plane);
  // Counts the event (of line `line`, in the line's time order) if it is an
  // XLA op; false if it is not.
  bool Add(size_t line, const Event& event, std::span<const Stat> stats, OpMetricsDb& db);
  // A non-XLA event on the line: the next XLA event starts a new occurrence.
  void Break(size_t line);
  // Counts of what was read, as diagnostics.
  void Report(std::string_view plane_name, Diagnostics& diagnostics) const;

 private:
  struct LastOp {
    const XlaOp* op = nullptr;
    std::optional<int64_t> scope;
  };
  XlaOpNamer namer_;
  StatFinder scope_range_id_;
  std::vector<LastOp> last_;  // Per line.
  uint64_t events_ = 0, command_buffer_events_ = 0;
};

}  // namespace tfprof
