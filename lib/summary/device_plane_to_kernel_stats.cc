#include "lib/summary/device_plane_to_kernel_stats.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <optional>
#include <span>
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

// How one plane's events become kernel rows: which convention the plane
// follows and the stats a row is computed from.
class KernelRowReader {
 public:
  KernelRowReader(const Host& host, const Plane& plane, const AnalysisOptions& options)
      : host_(host),
        plane_(plane),
        options_(options),
        details_(host, plane, "kernel_details"),
        tf_op_(host, plane, "tf_op"),
        level0_(host, plane, "level 0"),
        equation_(host, plane, "equation"),
        tf_op_type_(host, plane, "tf_op_type"),
        input_types_(host, plane, "op_input_types"),
        grid_(host, plane, "grid"),
        block_(host, plane, "block"),
        regs_(host, plane, "registers per thread"),
        shmem_(host, plane, "shared memory"),
        occupancy_(host, plane, "est. achieved occupancy %"),
        cat_(host, plane, "cat"),
        kernel_cat_(host.strings.Find("kernel")),
        old_kernel_cat_(host.strings.Find("Kernel")) {
    // Kineto's kernels are its `cat: kernel` events (2021: `Kernel`).
    kineto_ = !details_.exists() &&
              ((grid_.exists() && block_.exists()) ||
               (cat_.exists() && (kernel_cat_ != StringPool::kNotFound || old_kernel_cat_ != StringPool::kNotFound)));
    // A TF1 timeline records neither kernel names nor launch parameters: its
    // kernels are the stream events that are not copies, named by op type.
    tf1_ = !details_.exists() && IsTf1TimelinePlane(host, plane);
    // JAX's kernels are named by their XLA op (not with --compat: see below).
    if (options.compat == Compat::kDefault) xla_.emplace(host, plane);
  }
  // Whether the plane has kernels at all.
  bool any() const { return details_.exists() || kineto_ || tf1_; }
  // XSpace kernels that took no time are not counted, as the reference
  // does; a TF1 timeline's and Kineto's are: times in whole microseconds
  // (TF1, Kineto before 2022) read 0 for a kernel under 1 us, which still
  // ran (a count of the trace's kernel events, as HolisticTraceAnalysis
  // makes, counts it).
  bool counts_zero_durations() const { return tf1_ || kineto_; }
  // The stats Row reads (XlaOpNamer reads hlo_op, hlo_module, hlo_category
  // and tf_op): equal values give an equal row.
  static constexpr std::array<std::string_view, 14> kInputStats = {"kernel_details",
                                                                   "tf_op",
                                                                   "level 0",
                                                                   "equation",
                                                                   "tf_op_type",
                                                                   "op_input_types",
                                                                   "grid",
                                                                   "block",
                                                                   "registers per thread",
                                                                   "shared memory",
                                                                   "est. achieved occupancy %",
                                                                   "hlo_op",
                                                                   "hlo_module",
                                                                   "hlo_category"};
  // A Kineto plane's: its `cat` (a kernel without launch dimensions is one
  // by its category) where the others have kernel_details, which Kineto
  // planes never have (kineto_).
  static constexpr std::array<std::string_view, 14> kKinetoInputStats = [] {
    std::array<std::string_view, 14> names = kInputStats;
    names[0] = "cat";
    return names;
  }();
  std::span<const std::string_view> InputStats() const {
    return kineto_ ? std::span<const std::string_view>(kKinetoInputStats)
                   : std::span<const std::string_view>(kInputStats);
  }

  // The event's row with no occurrence counted; none when it is no kernel.
  std::optional<KernelReport> Row(const Event& e, std::span<const Stat> stats);

 private:
  const Host& host_;
  const Plane& plane_;
  const AnalysisOptions& options_;
  const StatFinder details_, tf_op_, level0_, equation_, tf_op_type_, input_types_;
  const StatFinder grid_, block_, regs_, shmem_, occupancy_, cat_;
  // "kernel" (2021 builds: "Kernel") in the host's pool, or kNotFound.
  const StringId kernel_cat_, old_kernel_cat_;
  bool kineto_ = false, tf1_ = false;
  std::optional<XlaOpNamer> xla_;
};

std::optional<KernelReport> KernelRowReader::Row(const Event& e, std::span<const Stat> stats) {
  const Host& host = host_;
  KernelReport r;
  if (tf1_) {
    std::string_view name = host.Str(plane_.event_metadata[e.metadata].name);
    if (schema::StartsWith(name, "MEMCPY") || schema::StartsWith(name, "MEMSET")) return std::nullopt;
    r.params.block = r.params.grid = {0, 0, 0};  // Not recorded.
  } else if (kineto_) {
    auto g = grid_.In(stats), b = block_.In(stats);
    if (g && b) {
      r.params.grid = KinetoDims(host, *g);
      r.params.block = KinetoDims(host, *b);
    } else {
      // A kernel replayed from a CUDA/HIP graph has no launch of its own,
      // so no dimensions (ROCm: none on the kernel or its hipGraphLaunch).
      auto cat = cat_.In(stats);
      if (!cat || cat->type() != StatType::kString ||
          (cat->AsString() != kernel_cat_ && cat->AsString() != old_kernel_cat_))
        return std::nullopt;
      r.params.block = r.params.grid = {0, 0, 0};  // Not recorded.
    }
    if (auto x = regs_.In(stats)) r.params.registers_per_thread = static_cast<uint32_t>(x->AsInt());
    if (auto x = shmem_.In(stats)) r.params.static_shmem_bytes = static_cast<uint32_t>(x->AsInt());
    if (auto x = occupancy_.In(stats)) r.params.occupancy_pct = x->AsDouble();
    else r.params.occupancy_unknown = true;
  } else {
    auto d = details_.In(stats);
    if (!d || host.Str(d->AsString()).empty()) return std::nullopt;
    r.params = ParseKernelDetails(host.Str(d->AsString()), options_.xprof());
  }
  r.name = std::string(host.Str(plane_.event_metadata[e.metadata].name));
  // TensorFlow's kernel names follow the reference's list; PyTorch's
  // kernels span more libraries and GPU generations.
  if (kineto_) {
    auto types = input_types_.In(stats);
    const StringId types_id = types && types->type() == StatType::kString ? types->AsString() : StringPool::kEmpty;
    r.uses_tensor_core = IsTorchKernelUsingTensorCore(r.name);
    r.precision =
        Narrower(PrecisionNamedIn(r.name),
                 types_id != StringPool::kEmpty ? PrecisionNamedIn(host.Str(types_id)) : ComputePrecision::kUnknown);
  } else {
    r.uses_tensor_core = IsKernelUsingTensorCore(r.name);
  }
  // Older TensorFlow named the op in "level 0" (see device_plane_to_op_metrics.cc).
  auto op = tf_op_.In(stats);
  if (!op && !options_.xprof()) op = level0_.In(stats);
  if (const XlaOp* x = xla_ ? xla_->Of(stats) : nullptr) {
    // JAX: the HLO op, as the op stats name it (the reference shows the
    // module placeholder "XlaModule" without the HLO protos).
    r.op_name = x->name;
    // Inside a command buffer the kernel's own name (XLA names a
    // fusion's kernel after the fusion) is all that tells a GEMM.
    r.op_tensor_core_eligible =
        x->tensor_core_eligible || r.uses_tensor_core || (x->command_buffer && IsXlaOpTensorCoreEligible(r.name, ""));
  } else if (op && !host.Str(op->AsString()).empty()) {
    auto type = tf_op_type_.In(stats);
    r.op_name = std::string(OpFromStats(host.Str(op->AsString()),
                                        type ? host.Str(type->AsString()) : std::string_view(), options_.tf_legacy())
                                .name);
    auto eq = equation_.In(stats);
    r.op_tensor_core_eligible =
        (eq && IsEinsumTensorCoreEligible(host.Str(eq->AsString()))) ||
        (kineto_ ? IsTorchOpTensorCoreEligible(r.op_name) : IsOpTensorCoreEligible(r.op_name)) || r.uses_tensor_core;
  }
  return r;
}

// What decides a kernel event's row, apart from its duration: its metadata
// (the kernel's name) and the raw values of the stats the row is computed
// from. Events with equal inputs get equal rows, so a row is worked out
// (details parsed, Tensor Core patterns searched, the op name parsed) once
// per distinct input, not once per launch: a training capture launches each
// of a few hundred kernels tens of thousands of times.
struct KernelInputs {
  // words[0]: metadata id; words[1]: 4 bits per input stat (0: absent, else
  // the stat's type + 1); then the present stats' values, in order.
  static constexpr size_t kMaxStats = 14;
  std::array<uint64_t, 2 + kMaxStats> words{};
  uint8_t size = 2;
  friend bool operator==(const KernelInputs& a, const KernelInputs& b) {
    return a.size == b.size && std::equal(a.words.begin(), a.words.begin() + a.size, b.words.begin());
  }
  template <typename H>
  friend H AbslHashValue(H h, const KernelInputs& k) {
    return H::combine_contiguous(std::move(h), k.words.data(), k.size);
  }
};

// Reads an event's KernelInputs in one pass over its stats: a table from
// the plane's stat keys to input positions.
class KernelInputReader {
 public:
  KernelInputReader(const Host& host, const Plane& plane, std::span<const std::string_view> names) {
    static_assert(KernelRowReader::kInputStats.size() <= KernelInputs::kMaxStats &&
                  KernelRowReader::kKinetoInputStats.size() <= KernelInputs::kMaxStats);
    position_of_key_.assign(plane.stat_metadata.size(), -1);
    int8_t position = 0;
    for (std::string_view name : names) {
      if (auto key = plane.FindStatKey(host.strings, name); key && *key < position_of_key_.size())
        position_of_key_[*key] = position;
      ++position;
    }
  }
  KernelInputs Of(EventMetadataId metadata, std::span<const Stat> stats) const {
    std::array<const Stat*, KernelInputs::kMaxStats> found{};
    for (const Stat& s : stats) {
      const StatKey k = s.key();
      if (k >= position_of_key_.size() || position_of_key_[k] < 0) continue;
      const Stat*& slot = found[static_cast<size_t>(position_of_key_[k])];
      if (!slot) slot = &s;  // The first, as StatFinder reads it.
    }
    KernelInputs in;
    in.words[0] = metadata;
    for (size_t i = 0; i < found.size(); ++i) {
      if (!found[i]) continue;
      in.words[1] |= (static_cast<uint64_t>(found[i]->type()) + 1) << (4 * i);
      in.words[in.size++] = found[i]->bits;
    }
    return in;
  }

 private:
  std::vector<int8_t> position_of_key_;
};

}  // namespace

void KernelStatsDb::AddPlane(const Host& host, const Plane& plane, const AnalysisOptions& options) {
  KernelRowReader rows(host, plane, options);
  if (!rows.any()) return;
  const KernelInputReader inputs(host, plane, rows.InputStats());
  // Rows by key, to find the row of a new input (several inputs can share a
  // row: kernel details that differ only in ignored parts).
  absl::flat_hash_map<std::string, std::vector<size_t>> by_name;
  for (size_t i = 0; i < reports_.size(); ++i) by_name[reports_[i].name].push_back(i);
  auto row_index = [&](KernelReport r) {
    auto& candidates = by_name[r.name];
    auto hit =
        std::find_if(candidates.begin(), candidates.end(), [&](size_t k) { return KeyOf(reports_[k]) == KeyOf(r); });
    if (hit != candidates.end()) return *hit;
    candidates.push_back(reports_.size());
    reports_.push_back(std::move(r));
    return reports_.size() - 1;
  };
  // The row of each distinct input met on this plane (kNotAKernel: none).
  constexpr size_t kNotAKernel = SIZE_MAX;
  absl::flat_hash_map<KernelInputs, size_t> row_of;
  for (const Line& line : plane.lines) {
    if (schema::IsDerivedLineId(line.id)) continue;
    for (size_t i = 0; i < line.events.size(); ++i) {
      const Event& e = line.events[i];
      if (e.duration_ps == 0 && !rows.counts_zero_durations()) continue;
      auto stats = line.EventStats(i);
      auto [memo, fresh] = row_of.try_emplace(inputs.Of(e.metadata, stats), kNotAKernel);
      if (fresh) {
        if (std::optional<KernelReport> r = rows.Row(e, stats)) memo->second = row_index(std::move(*r));
      }
      if (memo->second == kNotAKernel) continue;
      ++kernel_events;
      // The reference stores nanoseconds truncated from the picoseconds.
      const uint64_t ns = static_cast<uint64_t>(static_cast<double>(e.duration_ps) / 1000.0);
      KernelReport& x = reports_[memo->second];
      x.min_ns = x.occurrences == 0 ? ns : std::min(x.min_ns, ns);
      x.max_ns = x.occurrences == 0 ? ns : std::max(x.max_ns, ns);
      x.occurrences += 1;
      x.total_ns += ns;
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
