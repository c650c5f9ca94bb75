#include "lib/summary/host_plane_to_op_metrics.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "lib/model/diagnostic_kinds.h"
#include "lib/model/stat_finder.h"
#include "lib/model/tf1_timeline.h"
#include "lib/model/xplane_schema.h"
#include "lib/summary/tf_op_name.h"
#include "lib/summary/time_span.h"
#include "lib/summary/xla_ops_to_op_metrics.h"

namespace tfprof {
namespace {

// What an op event counts as.
struct OpIdentity {
  std::string_view name, type;
  uint64_t module_id = 0;  // Input-pipeline stage id for stage events.
};

// The begin or end of one op on a thread.
struct Activity {
  int64_t time_ps;
  uint32_t op_id;  // Pairs a begin with its end.
  bool begin;
  const OpIdentity* op;
  bool is_eager;
};

struct OpenOp {
  uint32_t op_id;
  int64_t start_ps;
  uint64_t children_ps = 0;
};

// Pairs begins with ends on one thread, taking them in time order (ties in
// the order they were added). Like the reference, an end pops the stack
// down to its own begin: ops still open above it (a child that ends at the
// same instant as its parent) are dropped, and an end whose begin is gone
// is ignored.
class OpPairing {
 public:
  OpPairing(OpMetricsDb& db, uint64_t& dropped) : db_(db), dropped_(dropped) {}

  void Take(const Activity& a) {
    if (!any_) first_ps_ = a.time_ps;
    any_ = true;
    last_ps_ = a.time_ps;
    if (a.begin) {
      stack_.push_back({a.op_id, a.time_ps});
      return;
    }
    std::optional<OpenOp> match;
    while (!stack_.empty()) {
      OpenOp top = stack_.back();
      stack_.pop_back();
      if (top.op_id == a.op_id) {
        match = top;
        break;
      }
      ++dropped_;
    }
    if (!match) return;
    const uint64_t time = static_cast<uint64_t>(a.time_ps - match->start_ps);
    const uint64_t self = time >= match->children_ps ? time - match->children_ps : 0;
    OpMetrics& m = db_.Lookup(a.op->module_id, a.op->name);
    if (m.category.empty()) m.category = std::string(a.op->type);
    m.num_cores = 1;
    m.is_eager = m.is_eager || a.is_eager;
    m.occurrences += 1;
    m.time_ps += time;
    m.self_time_ps += self;
    db_.total_op_time_ps += self;
    if (!stack_.empty()) stack_.back().children_ps += time;
  }
  // The first and last time taken (the thread's span), when any was.
  bool any() const { return any_; }
  int64_t first_ps() const { return first_ps_; }
  int64_t last_ps() const { return last_ps_; }

 private:
  OpMetricsDb& db_;
  uint64_t& dropped_;
  std::vector<OpenOp> stack_;
  bool any_ = false;
  int64_t first_ps_ = 0, last_ps_ = 0;
};

// Puts a line's ops' begins and ends into time order for OpPairing: the
// order a stable sort by time leaves them in, in the order added (an op's
// begin, then its end). A line in start order whose ops all end no earlier
// than they begin (every line a reader makes) is swept as it is read: its
// begins come in time order, so only the ends still ahead wait, in a heap
// by (time, op id), and an end leaves it before the first begin that is
// not earlier. That holds as many ends as ops are open at once, where
// sorting held two 32-byte activities per op and a merge buffer as large
// (a 1 GB current-TF CPU capture, `op-stats`: 4.67 -> 3.62 s). Any other
// line is sorted.
class ActivityOrder {
 public:
  ActivityOrder(OpPairing& pairing, bool in_start_order) : pairing_(pairing), sweep_(in_start_order) {}

  // The op `op_id` (numbered from 1 in the order added) from begin_ps to end_ps.
  void Add(int64_t begin_ps, int64_t end_ps, uint32_t op_id, const OpIdentity* op, bool is_eager) {
    const Activity begin{begin_ps, op_id, true, op, is_eager};
    const Activity end{end_ps, op_id, false, op, is_eager};
    if (!sweep_) {
      held_.push_back(begin);
      held_.push_back(end);
      return;
    }
    while (!ends_.empty() && ends_.front().time_ps <= begin_ps) TakeFirstEnd();
    pairing_.Take(begin);
    ends_.push_back(end);
    std::push_heap(ends_.begin(), ends_.end(), Later);
  }
  // Takes what is left, in order.
  void Finish() {
    if (sweep_) {
      while (!ends_.empty()) TakeFirstEnd();
      return;
    }
    std::stable_sort(held_.begin(), held_.end(),
                     [](const Activity& a, const Activity& b) { return a.time_ps < b.time_ps; });
    for (const Activity& a : held_) pairing_.Take(a);
    held_.clear();
  }

 private:
  // The heap's order: the earliest end first, among equal times the one
  // added first (ops are numbered in the order added).
  static bool Later(const Activity& a, const Activity& b) {
    return a.time_ps != b.time_ps ? a.time_ps > b.time_ps : a.op_id > b.op_id;
  }
  void TakeFirstEnd() {
    std::pop_heap(ends_.begin(), ends_.end(), Later);
    pairing_.Take(ends_.back());
    ends_.pop_back();
  }

  OpPairing& pairing_;
  const bool sweep_;
  std::vector<Activity> ends_;  // Sweeping: the ends still ahead, a heap.
  std::vector<Activity> held_;  // Otherwise: every activity, sorted at the end.
};

// Whether a line's ops can be swept (ActivityOrder): its events in start
// order, none ending before it begins.
bool InStartOrder(const Line& line) {
  int64_t previous = INT64_MIN;
  for (const Event& e : line.events) {
    if (e.start_ps < previous || e.duration_ps < 0) return false;
    previous = e.start_ps;
  }
  return true;
}

// One op typed by the capture (tf_op_type), or a device runtime call
// (op null: an event with a correlation_id), in the line's order.
struct TypedOp {
  int64_t start_ps, end_ps;
  const OpIdentity* op;
  bool launches = false;  // It launched device work itself (a TF1 GPU executor's op).
};

// Ops the capture types (PyTorch's, from Kineto traces) nest by containment:
// taken by start, longer first (the line's order), an op is inside the
// innermost open op that ends after it starts. Their times are whole
// microseconds or nanoseconds, so a child often ends at the same instant as
// its parent (aten::linear and its aten::addmm): the begin/end pairing above,
// kept for TensorFlow's ops as the reference does it, would drop the child.
// A runtime call inside an op marks it and, when it closes, its parent as
// having launched device work.
void ProcessTypedOps(const std::vector<TypedOp>& ops, OpMetricsDb& db) {
  struct Open {
    const TypedOp* op;
    uint64_t children_ps = 0;
    bool launched = false;
  };
  std::vector<Open> stack;
  auto close = [&db](const Open& o) {
    const uint64_t time = static_cast<uint64_t>(o.op->end_ps - o.op->start_ps);
    const uint64_t self = time >= o.children_ps ? time - o.children_ps : 0;
    OpMetrics& m = db.Lookup(o.op->op->module_id, o.op->op->name);
    if (m.category.empty()) m.category = std::string(o.op->op->type);
    m.num_cores = 1;
    m.occurrences += 1;
    m.time_ps += time;
    m.self_time_ps += self;
    m.device_launching_occurrences += o.launched ? 1 : 0;
    db.total_op_time_ps += self;
  };
  auto pop = [&] {
    close(stack.back());
    const bool launched = stack.back().launched;
    stack.pop_back();
    if (launched && !stack.empty()) stack.back().launched = true;
  };
  for (const TypedOp& op : ops) {
    while (!stack.empty() && stack.back().op->end_ps <= op.start_ps) pop();
    if (!op.op) {
      if (!stack.empty()) stack.back().launched = true;
      continue;
    }
    if (!stack.empty()) stack.back().children_ps += static_cast<uint64_t>(op.end_ps - op.start_ps);
    stack.push_back({&op, 0, op.launches});
  }
  while (!stack.empty()) pop();
}

}  // namespace

OpMetricsDb HostPlaneToOpMetrics(const Host& host, const Plane& plane, Diagnostics& diagnostics,
                                 const AnalysisOptions& options, const std::vector<std::vector<bool>>* eager_marks) {
  // Ops by event name, parsed once per name: user TraceMes ("train", ...)
  // parse as unknown and are not ops.
  std::vector<std::optional<OpIdentity>> by_metadata(plane.event_metadata.size());
  const StatFinder typed_by_capture(host, plane, "tf_op_type");
  // Where the capture types its ops (Kineto), other events are not ops
  // whatever their names look like (ProcessGroupNCCL's "nccl:_all_gather_base"
  // annotation is no TF op "nccl" of type "_all_gather_base").
  for (size_t m = 0; m < plane.event_metadata.size() && !typed_by_capture.exists(); ++m) {
    std::string_view name = host.Str(plane.event_metadata[m].name);
    if (name.empty()) continue;
    TfOp op = ParseTfOpFullname(name, options.tf_legacy());
    if (op.category != OpCategory::kUnknown) by_metadata[m] = OpIdentity{op.name, op.type};
  }
  const StatFinder stage_id(host, plane, "_ipl_stage_id"), stage_cat(host, plane, "_ipl_stage_cat");
  const StatFinder is_eager(host, plane, "is_eager"), tf_op(host, plane, "tf_op"),
      tf_op_type(host, plane, "tf_op_type");
  const StatFinder correlation(host, plane, "correlation_id");
  std::vector<bool> is_memory_event(plane.event_metadata.size());
  for (size_t m = 0; m < plane.event_metadata.size(); ++m) {
    std::string_view name = host.Str(plane.event_metadata[m].name);
    is_memory_event[m] = schema::IsAllocatorEvent(name);
  }

  // A JAX capture has no TF ops, whatever its event names and tf_op stats
  // look like (by default only: the references parse them as TF's).
  const bool jax = options.compat == Compat::kDefault && IsJaxCapture(host);
  if (jax) by_metadata.assign(by_metadata.size(), std::nullopt);
  // XLA:CPU ops (JAX on CPU): thunk events with hlo_op stats. The
  // references name XLA ops only from the HLO protos, so not with --compat.
  XlaOpNamer xla(host, plane);
  const bool count_xla = options.compat == Compat::kDefault && xla.any();
  absl::flat_hash_map<const XlaOp*, const OpIdentity*> xla_ops;
  uint64_t xla_events = 0;

  OpMetricsDb result;
  uint64_t dropped = 0, cut_spans = 0;
  // Identities made on the fly (stage ops, tf_op stats) must outlive the
  // activities that point at them.
  std::vector<std::unique_ptr<OpIdentity>> extra;
  absl::flat_hash_map<int64_t, const OpIdentity*> stages;
  absl::flat_hash_map<std::pair<StringId, StringId>, const OpIdentity*> typed_ops;
  // tf_op stat values parsed once per distinct value, not per event.
  absl::flat_hash_map<StringId, const OpIdentity*> ops_by_tf_op;
  std::vector<TypedOp> typed;
  const bool tf1 = IsTf1TimelinePlane(host, plane);
  for (size_t l = 0; l < plane.lines.size(); ++l) {
    const Line& line = plane.lines[l];
    if (schema::IsDerivedLineId(line.id)) continue;
    // A TF1 GPU executor's ops run on the GPU: their host time launched it.
    const bool launch_line = tf1 && IsTf1GpuExecutorLine(host.LineName(line));
    const std::vector<bool>* marks = eager_marks ? &(*eager_marks)[l] : nullptr;
    typed.clear();
    OpMetricsDb line_db;
    OpPairing pairing(line_db, dropped);
    ActivityOrder activities(pairing, InStartOrder(line));
    uint32_t op_id = 0;
    for (size_t i = 0; i < line.events.size(); ++i) {
      const Event& e = line.events[i];
      auto stats = line.EventStats(i);
      // XLA:CPU thunks. XLA:GPU's kernel launch calls carry the hlo_op of
      // their kernel too (with a correlation_id): not the op itself.
      if (const XlaOp* x = count_xla ? xla.Of(stats) : nullptr; x && !xla.IsLaunch(stats)) {
        auto [it, fresh] = xla_ops.try_emplace(x, nullptr);
        if (fresh) {
          extra.push_back(std::make_unique<OpIdentity>(OpIdentity{x->name, x->category, 0}));
          it->second = extra.back().get();
        }
        ++xla_events;
        activities.Add(e.start_ps, e.end_ps(), ++op_id, it->second, false);
        continue;
      }
      // Ops the capture names and types itself (Kineto's cpu_op events):
      // nothing else to read from the event.
      if (auto t = tf_op_type.In(stats); t && !host.Str(t->AsString()).empty()) {
        if (auto s = tf_op.In(stats); s && !host.Str(s->AsString()).empty()) {
          auto [it, fresh] = typed_ops.try_emplace({s->AsString(), t->AsString()}, nullptr);
          if (fresh) {
            TfOp parsed = OpFromStats(host.Str(s->AsString()), host.Str(t->AsString()));
            extra.push_back(std::make_unique<OpIdentity>(OpIdentity{parsed.name, parsed.type, 0}));
            it->second = extra.back().get();
          }
          typed.push_back({e.start_ps, e.end_ps(), it->second, launch_line});
          continue;
        }
      }
      if (tf_op_type.exists() && correlation.In(stats)) typed.push_back({e.start_ps, e.end_ps(), nullptr});
      const OpIdentity* op = nullptr;
      // Input-pipeline stage events are ops named by the event, typed by
      // their stage category, and keyed by stage id.
      if (auto sid = stage_id.In(stats)) {
        if (auto cat = stage_cat.In(stats)) {
          auto [it, fresh] = stages.try_emplace(sid->AsInt(), nullptr);
          if (fresh) {
            extra.push_back(std::make_unique<OpIdentity>(OpIdentity{host.Str(plane.event_metadata[e.metadata].name),
                                                                    host.Str(cat->AsString()),
                                                                    static_cast<uint64_t>(sid->AsInt())}));
            it->second = extra.back().get();
          }
          op = it->second;
        }
      } else if (by_metadata[e.metadata]) {
        op = &*by_metadata[e.metadata];
      }
      if (op) {
        auto eager = is_eager.In(stats);
        bool eager_flag = eager ? eager->type() == StatType::kInt64 && eager->AsInt() != 0 : marks && (*marks)[i];
        activities.Add(e.start_ps, e.end_ps(), ++op_id, op, eager_flag);
      }
      // XLA:CPU and other host events name their TF op in a tf_op stat
      // (TensorFlow's own per-tool files predate this). Allocator events
      // carry the op they allocate for too: xprof counts each as a
      // zero-time host execution of that op, which makes a GPU run look
      // host-bound in the placement (55.7% instead of 14.4% on a corpus T4
      // run); we don't, unless --compat xprof.
      const bool allocation = !options.xprof() && is_memory_event[e.metadata];
      if (auto s = tf_op.In(stats);
          s && !jax && !allocation && !options.tf_legacy() && !host.Str(s->AsString()).empty()) {
        auto [it, fresh] = ops_by_tf_op.try_emplace(s->AsString(), nullptr);
        if (fresh) {
          TfOp parsed = ParseTfOpFullname(host.Str(s->AsString()));
          extra.push_back(std::make_unique<OpIdentity>(OpIdentity{parsed.name, parsed.type, 0}));
          it->second = extra.back().get();
        }
        activities.Add(e.start_ps, e.end_ps(), ++op_id, it->second, false);
      }
    }
    activities.Finish();
    ProcessTypedOps(typed, line_db);
    // The thread's span: its first op's start to its last op's end.
    int64_t first = INT64_MAX, last = INT64_MIN;
    if (pairing.any()) {
      first = pairing.first_ps();
      last = pairing.last_ps();
    }
    for (const TypedOp& t : typed) {
      if (!t.op) continue;
      first = std::min(first, t.start_ps);
      last = std::max(last, t.end_ps);
    }
    bool span_cut = false;
    if (first <= last) line_db.SetTotalTime(static_cast<uint64_t>(SpanPs(first, last, &span_cut)));
    if (span_cut) ++cut_spans;
    line_db.AddIdle();
    result.Combine(line_db, /*count_cores=*/false);
  }
  diagnostics.Add(diag_kind::kOpStatsXlaHostOps, "", xla_events);
  diagnostics.Add(diag_kind::kOpStatsHostOpNotClosed, "", dropped);
  diagnostics.Add(diag_kind::kOpStatsSpanCut, std::string(host.PlaneName(plane)), cut_spans);
  return result;
}

}  // namespace tfprof
