#include "lib/summary/device_plane_to_kernel_stats.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "lib/model/stat_finder.h"
#include "lib/model/tf1_timeline.h"
#include "lib/model/xplane_schema.h"
#include "lib/summary/tf_op_name.h"
#include "lib/summary/xla_ops_to_op_metrics.h"
#include "lib/util/split.h"

namespace tfprof {
namespace {

bool ParseU32(std::string_view s, uint32_t* out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool ParseDims(std::string_view s, std::array<uint32_t, 3>* out) {
  std::vector<std::string_view> parts = Split(s, ",");
  if (parts.size() != 3) return false;
  std::array<uint32_t, 3> v{};
  for (int i = 0; i < 3; ++i)
    if (!ParseU32(parts[i], &v[i])) return false;
  *out = v;
  return true;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

auto KeyOf(const KernelReport& r) {
  const KernelLaunchParams& p = r.params;
  return std::tie(r.name, p.grid[0], p.grid[1], p.grid[2], p.block[0], p.block[1], p.block[2], p.registers_per_thread,
                  p.static_shmem_bytes, p.dynamic_shmem_bytes, r.uses_tensor_core, r.op_tensor_core_eligible, r.op_name,
                  r.precision);
}

}  // namespace

KernelLaunchParams ParseKernelDetails(std::string_view details, bool xprof_compat) {
  KernelLaunchParams p;
  for (std::string_view token : SplitAny(details, " \n")) {
    std::vector<std::string_view> kv = Split(token, ":");
    if (kv.size() != 2) continue;
    std::string_view key = kv[0], value = kv[1];
    if (key == "regs") ParseU32(value, &p.registers_per_thread);
    else if (key == "static_shared") ParseU32(value, &p.static_shmem_bytes);
    // Older TensorFlow wrote "shm:"; the reference ignores it (and reports
    // 0), we read it as static shared memory (docs/kernel-stats.md).
    else if (key == "shm" && !xprof_compat) ParseU32(value, &p.static_shmem_bytes);
    else if (key == "dynamic_shared") ParseU32(value, &p.dynamic_shmem_bytes);
    else if (key == "block") ParseDims(value, &p.block);
    else if (key == "grid") ParseDims(value, &p.grid);
    else if (key == "occ_pct") {
      double d = 0;
      auto r = std::from_chars(value.data(), value.data() + value.size(), d);
      if (r.ec == std::errc()) p.occupancy_pct = d;
    }
  }
  return p;
}

bool IsKernelUsingTensorCore(std::string_view name) {
  // clang-format off
  static constexpr std::string_view kPatterns[] = {
      "16816", "c1688", "conv1x1", "conv2d_c1_k1", "dgrad_1x1_stride_2x2", "direct_group", "first_layer_wgrad_kernel",
      "h1688", "h884", "hmma", "i16832", "i8816", "s884", "s1688", "xmma_gemm", "xmma_implicit_gemm",
      "xmma_sparse_conv", "xmma_sparse_gemm", "xmma_warp_specialized_implicit_gemm"};
  // clang-format on
  for (std::string_view p : kPatterns)
    if (name.find(p) != std::string_view::npos) return true;
  return false;
}

bool IsOpTensorCoreEligible(std::string_view op) {
  // clang-format off
  static constexpr std::string_view kSuffixes[] = {
      "Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput", "Conv3D", "DepthwiseConv2dNative",
      "DepthwiseConv2dNativeBackpropFilter", "DepthwiseConv2dNativeBackpropInput", "/MatMul", "FusedMatMul",
      "/CudnnRNN", "XlaDot", "XlaDotV2"};
  // clang-format on
  static constexpr std::string_view kInfixes[] = {"BatchMatMul", "CudnnRNNV", "CudnnRNNForward", "CudnnRNNBackprop"};
  for (std::string_view s : kSuffixes)
    if (EndsWith(op, s)) return true;
  for (std::string_view s : kInfixes)
    if (op.find(s) != std::string_view::npos) return true;
  return false;
}

bool IsEinsumTensorCoreEligible(std::string_view equation) {
  if (equation.empty()) return false;
  std::vector<std::string_view> sides = Split(equation, "->");
  if (sides.size() != 2) return false;
  std::vector<std::string_view> inputs = Split(sides[0], ",");
  return inputs.size() == 2;
}

bool IsKinetoGpuPlane(const Host& host, const Plane& plane) {
  return plane.FindStatKey(host.strings, "grid") && plane.FindStatKey(host.strings, "block");
}

namespace {

// "[128, 1, 1]" (a JSON array kept as text) or a number.
std::array<uint32_t, 3> KinetoDims(const Host& host, const Stat& s) {
  std::array<uint32_t, 3> d{1, 1, 1};
  if (s.type() != StatType::kString) {
    d[0] = static_cast<uint32_t>(s.AsInt());
    return d;
  }
  std::string_view text = host.Str(s.AsString());
  size_t i = 0;
  for (size_t k = 0; k < 3; ++k) {
    while (i < text.size() && !std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    uint32_t v = 0;
    auto r = std::from_chars(text.data() + i, text.data() + text.size(), v);
    if (r.ec != std::errc()) break;
    d[k] = v;
    i = static_cast<size_t>(r.ptr - text.data());
  }
  return d;
}

}  // namespace

void KernelStatsDb::AddPlane(const Host& host, const Plane& plane, const AnalysisOptions& options) {
  // JAX's kernels are named by their XLA op (not with --compat: see below).
  std::optional<XlaOpNamer> xla;
  if (options.compat == Compat::kDefault) xla.emplace(host, plane);
  const StatFinder details(host, plane, "kernel_details"), tf_op(host, plane, "tf_op"), level0(host, plane, "level 0"),
      equation(host, plane, "equation");
  const StatFinder tf_op_type(host, plane, "tf_op_type"), input_types(host, plane, "op_input_types");
  const StatFinder grid(host, plane, "grid"), block(host, plane, "block"), regs(host, plane, "registers per thread"),
      shmem(host, plane, "shared memory"), occupancy(host, plane, "est. achieved occupancy %");
  const bool kineto = !details.exists() && grid.exists() && block.exists();
  // A TF1 timeline records neither kernel names nor launch parameters: its
  // kernels are the stream events that are not copies, named by op type.
  const bool tf1 = !details.exists() && IsTf1TimelinePlane(host, plane);
  if (!details.exists() && !kineto && !tf1) return;
  // Rows by key, for captures with many kernel launches.
  absl::flat_hash_map<std::string, std::vector<size_t>> by_name;
  for (size_t i = 0; i < reports_.size(); ++i) by_name[reports_[i].name].push_back(i);
  // Kineto kernels' Tensor Core use and precision by (name, op input
  // types): the name rules scan the (long, templated) name once per pair.
  struct KinetoFacts {
    bool uses_tensor_core;
    ComputePrecision precision;
  };
  absl::flat_hash_map<std::pair<EventMetadataId, StringId>, KinetoFacts> kineto_facts;
  for (const Line& line : plane.lines) {
    if (schema::IsDerivedLineId(line.id)) continue;
    for (size_t i = 0; i < line.events.size(); ++i) {
      const Event& e = line.events[i];
      auto stats = line.EventStats(i);
      KernelReport r;
      if (tf1) {
        // Whole microseconds: a kernel under 1 us reads 0 and still counts.
        std::string_view name = host.Str(plane.event_metadata[e.metadata].name);
        if (schema::StartsWith(name, "MEMCPY") || schema::StartsWith(name, "MEMSET")) continue;
        r.params.block = r.params.grid = {0, 0, 0};  // Not recorded.
      } else if (kineto) {
        auto g = grid.In(stats), b = block.In(stats);
        if (!g || !b || e.duration_ps == 0) continue;
        r.params.grid = KinetoDims(host, *g);
        r.params.block = KinetoDims(host, *b);
        if (auto x = regs.In(stats)) r.params.registers_per_thread = static_cast<uint32_t>(x->AsInt());
        if (auto x = shmem.In(stats)) r.params.static_shmem_bytes = static_cast<uint32_t>(x->AsInt());
        if (auto x = occupancy.In(stats)) r.params.occupancy_pct = x->AsDouble();
      } else {
        auto d = details.In(stats);
        if (!d || host.Str(d->AsString()).empty() || e.duration_ps == 0) continue;
        r.params = ParseKernelDetails(host.Str(d->AsString()), options.xprof());
      }
      ++kernel_events;
      r.name = std::string(host.Str(plane.event_metadata[e.metadata].name));
      // TensorFlow's kernel names follow the reference's list; PyTorch's
      // kernels span more libraries and GPU generations.
      if (kineto) {
        auto types = input_types.In(stats);
        const StringId types_id = types && types->type() == StatType::kString ? types->AsString() : StringPool::kEmpty;
        auto [it, fresh] = kineto_facts.try_emplace({e.metadata, types_id}, KinetoFacts{});
        if (fresh)
          it->second = {
              IsTorchKernelUsingTensorCore(r.name),
              Narrower(PrecisionNamedIn(r.name), types_id != StringPool::kEmpty ? PrecisionNamedIn(host.Str(types_id))
                                                                                : ComputePrecision::kUnknown)};
        r.uses_tensor_core = it->second.uses_tensor_core;
        r.precision = it->second.precision;
      } else {
        r.uses_tensor_core = IsKernelUsingTensorCore(r.name);
      }
      // Older TensorFlow named the op in "level 0" (see device_plane_to_op_metrics.cc).
      auto op = tf_op.In(stats);
      if (!op && !options.xprof()) op = level0.In(stats);
      if (const XlaOp* x = xla ? xla->Of(stats) : nullptr) {
        // JAX: the HLO op, as the op stats name it (the reference shows the
        // module placeholder "XlaModule" without the HLO protos).
        r.op_name = x->name;
        // Inside a command buffer the kernel's own name (XLA names a
        // fusion's kernel after the fusion) is all that tells a GEMM.
        r.op_tensor_core_eligible = x->tensor_core_eligible || r.uses_tensor_core ||
                                    (x->command_buffer && IsXlaOpTensorCoreEligible(r.name, ""));
      } else if (op && !host.Str(op->AsString()).empty()) {
        auto type = tf_op_type.In(stats);
        r.op_name = std::string(OpFromStats(host.Str(op->AsString()),
                                            type ? host.Str(type->AsString()) : std::string_view(), options.tf_legacy())
                                    .name);
        auto eq = equation.In(stats);
        r.op_tensor_core_eligible =
            (eq && IsEinsumTensorCoreEligible(host.Str(eq->AsString()))) ||
            (kineto ? IsTorchOpTensorCoreEligible(r.op_name) : IsOpTensorCoreEligible(r.op_name)) || r.uses_tensor_core;
      }
      // The reference stores nanoseconds truncated from the picoseconds.
      const uint64_t ns = static_cast<uint64_t>(static_cast<double>(e.duration_ps) / 1000.0);
      auto& candidates = by_name[r.name];
      auto hit =
          std::find_if(candidates.begin(), candidates.end(), [&](size_t k) { return KeyOf(reports_[k]) == KeyOf(r); });
      if (hit == candidates.end()) {
        candidates.push_back(reports_.size());
        r.occurrences = 1;
        r.total_ns = r.min_ns = r.max_ns = ns;
        reports_.push_back(std::move(r));
      } else {
        KernelReport& x = reports_[*hit];
        x.occurrences += 1;
        x.total_ns += ns;
        x.min_ns = std::min(x.min_ns, ns);
        x.max_ns = std::max(x.max_ns, ns);
      }
    }
  }
}

void KernelStatsDb::AppendHost(const KernelStatsDb& other) {
  reports_.insert(reports_.end(), other.reports_.begin(), other.reports_.end());
  kernel_events += other.kernel_events;
}

std::vector<KernelReport> KernelStatsDb::Sorted(size_t limit) const {
  std::vector<KernelReport> out = reports_;
  std::stable_sort(out.begin(), out.end(), [](const KernelReport& a, const KernelReport& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return KeyOf(a) < KeyOf(b);
  });
  if (limit && out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace tfprof
