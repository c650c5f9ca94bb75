#include "lib/summary/xla_ops_to_op_metrics.h"

#include <algorithm>
#include <cctype>

#include "lib/model/diagnostic_kinds.h"
#include "lib/model/xplane_schema.h"
#include "lib/summary/tf_op_name.h"

namespace tfprof {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

bool AllDigits(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// XLA tells clones of an instruction apart by ".<n>" ("loop_add_fusion.2";
// ROCm captures show two levels, "cudnn-conv.1.0"); the rest is the name
// the instruction was given for its opcode or fusion.
std::string_view WithoutNumbering(std::string_view name) {
  for (size_t dot; (dot = name.rfind('.')) != std::string_view::npos && dot > 0 && AllDigits(name.substr(dot + 1));)
    name = name.substr(0, dot);
  return name;
}

// An HLO opcode as XLA spells it: "dot", "all-reduce-start", "reduce-window".
bool IsOpcodeShaped(std::string_view s) {
  if (s.empty() || !std::islower(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-';
  });
}

// Opcodes XLA counts as elementwise (HloInstruction::IsElementwise for
// unfused instructions).
bool IsElementwiseOpcode(std::string_view op) {
  // clang-format off
  static constexpr std::string_view kOps[] = {
      "abs", "add", "and", "atan2", "bitcast-convert", "cbrt", "ceil", "clamp", "clz", "compare", "complex", "convert",
      "cosine", "divide", "erf", "exponential", "exponential-minus-one", "floor", "imag", "is-finite", "log",
      "log-plus-one", "logistic", "maximum", "minimum", "multiply", "negate", "not", "or", "popcnt", "power", "real",
      "reduce-precision", "remainder", "round-nearest-afz", "round-nearest-even", "rsqrt", "select",
      "shift-left", "shift-right-arithmetic", "shift-right-logical", "sign", "sine", "sqrt", "stochastic-convert",
      "subtract", "tan", "tanh", "xor"};
  // clang-format on
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

// The words of a name: "gemm_fusion_dot_general" -> gemm, fusion, dot, general.
bool HasWord(std::string_view name, std::string_view word) {
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find_first_of("_-", start);
    if (end == std::string_view::npos) end = name.size();
    if (name.substr(start, end - start) == word) return true;
    start = end + 1;
  }
  return false;
}

// A tf_op stat of the form "name:Type" (TensorFlow's), not XLA's module
// placeholder "XlaModule:" nor a JAX op path.
bool NamesTfOp(std::string_view tf_op) {
  const size_t colon = tf_op.find(':');
  if (colon == std::string_view::npos || colon + 1 == tf_op.size()) return false;
  return ParseTfOpFullname(tf_op).category == OpCategory::kTensorFlow;
}

}  // namespace

std::string XlaOpCategory(std::string_view hlo_op) {
  const std::string_view base = WithoutNumbering(hlo_op);
  if (StartsWith(base, "command_buffer")) return "command buffer";
  if (base == "fusion" || EndsWith(base, "_fusion")) {
    // XLA:GPU names a fusion "<kind>_<root>_fusion"; its custom fusions
    // (Triton GEMMs, XLA:CPU's YNNPACK/XNNPACK fusions) have their own names.
    if (StartsWith(base, "loop_")) return "loop fusion";
    if (StartsWith(base, "input_")) return "input fusion";
    if (StartsWith(base, "output_")) return "output fusion";
    if (StartsWith(base, "gemm_fusion") || StartsWith(base, "triton_") || StartsWith(base, "cutlass_") ||
        StartsWith(base, "cudnn_") || base == "ynn_fusion" || base == "xnn_fusion")
      return "custom fusion";
    return "fusion";  // XLA:CPU's "<op>_<op>_fusion" and older XLA's "fusion.N" say no kind.
  }
  if (StartsWith(base, "gemm_fusion") || StartsWith(base, "triton_")) return "custom fusion";
  // The fusion wrapper pass puts a lone instruction in a loop fusion.
  if (StartsWith(base, "wrapped_")) return "loop fusion";
  if (StartsWith(base, "custom-call") || StartsWith(base, "cublas") || StartsWith(base, "cudnn")) return "custom-call";
  if (base == "copy" || base == "transpose" || base == "reshape" || base == "dynamic-reshape") return "data formatting";
  if (!IsOpcodeShaped(base)) return "unknown";
  if (IsElementwiseOpcode(base)) return "non-fusion elementwise";
  return std::string(base);
}

bool IsXlaOpTensorCoreEligible(std::string_view hlo_op, std::string_view category) {
  if (category == "dot" || StartsWith(category, "convolution")) return true;
  const std::string_view base = WithoutNumbering(hlo_op);
  for (std::string_view w : {"gemm", "dot", "conv", "convolution", "matmul"})
    if (HasWord(base, w)) return true;
  return false;
}

bool IsJaxCapture(const Host& host) {
  for (const Plane& plane : host.planes) {
    if (plane.FindStatKey(host.strings, "jax_version") || plane.FindStatKey(host.strings, "jaxlib_version"))
      return true;
    if (host.PlaneName(plane) != schema::kHostThreadsPlane) continue;
    for (const EventMetadata& m : plane.event_metadata)
      if (StartsWith(host.Str(m.name), "PjitFunction(")) return true;
  }
  return false;
}

XlaOpNamer::XlaOpNamer(const Host& host, const Plane& plane)
    : host_(host),
      hlo_op_(host, plane, "hlo_op"),
      hlo_module_(host, plane, "hlo_module"),
      hlo_category_(host, plane, "hlo_category"),
      tf_op_(host, plane, "tf_op"),
      correlation_id_(host, plane, "correlation_id") {}

const XlaOp* XlaOpNamer::Of(std::span<const Stat> stats) {
  auto op = hlo_op_.In(stats);
  if (!op || host_.Str(op->AsString()).empty()) return nullptr;
  if (auto tf = tf_op_.In(stats)) {
    auto [it, fresh] = tf_op_names_tf_op_.try_emplace(tf->AsString(), false);
    if (fresh) it->second = NamesTfOp(host_.Str(tf->AsString()));
    if (it->second) return nullptr;
  }
  auto module = hlo_module_.In(stats);
  auto category = hlo_category_.In(stats);
  const std::tuple<StringId, StringId, StringId> key{op->AsString(), module ? module->AsString() : StringPool::kEmpty,
                                                     category ? category->AsString() : StringPool::kEmpty};
  auto [it, fresh] = by_stats_.try_emplace(key, nullptr);
  if (fresh) {
    const std::string_view hlo = host_.Str(std::get<0>(key)), mod = host_.Str(std::get<1>(key)),
                           cat = host_.Str(std::get<2>(key));
    XlaOp& x = ops_.emplace_back();
    x.name = mod.empty() ? std::string(hlo) : std::string(mod) + "/" + std::string(hlo);
    x.category = cat.empty() ? XlaOpCategory(hlo) : std::string(cat);
    x.command_buffer = x.category == "command buffer";
    x.tensor_core_eligible = IsXlaOpTensorCoreEligible(hlo, x.category);
    it->second = &x;
  }
  return it->second;
}

XlaDeviceOpsBuilder::XlaDeviceOpsBuilder(const Host& host, const Plane& plane)
    : namer_(host, plane), scope_range_id_(host, plane, "scope_range_id"), last_(plane.lines.size()) {}

bool XlaDeviceOpsBuilder::Add(size_t line, const Event& event, std::span<const Stat> stats, OpMetricsDb& db) {
  const XlaOp* op = namer_.Of(stats);
  if (!op) return false;
  ++events_;
  if (op->command_buffer) ++command_buffer_events_;
  std::optional<int64_t> scope;
  if (auto s = scope_range_id_.In(stats)) scope = s->AsInt();
  LastOp& last = last_[line];
  const bool new_occurrence = last.op != op || last.scope != scope;
  last = {op, scope};
  OpMetrics& m = db.Lookup(0, op->name);
  if (m.category.empty()) {
    m.category = op->category;
    m.provenance = op->name;
    m.provenance_is_name = true;  // The TF-op roll-up keeps the row as it is.
  }
  m.num_cores = 1;
  if (new_occurrence) m.occurrences += 1;
  const uint64_t ps = static_cast<uint64_t>(event.duration_ps);
  m.time_ps += ps;
  m.self_time_ps += ps;  // Device events of one stream don't nest.
  db.total_op_time_ps += ps;
  return true;
}

void XlaDeviceOpsBuilder::Break(size_t line) { last_[line] = {}; }

void XlaDeviceOpsBuilder::Report(std::string_view plane_name, Diagnostics& diagnostics) const {
  diagnostics.Add(diag_kind::kOpStatsXlaOps, plane_name, events_);
  diagnostics.Add(diag_kind::kOpStatsXlaCommandBuffer, plane_name, command_buffer_events_);
}

}  // namespace tfprof
