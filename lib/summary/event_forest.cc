#include "lib/summary/event_forest.h"

#include <charconv>
#include <map>
#include <span>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "lib/model/diagnostic_kinds.h"
#include "lib/model/xplane_schema.h"
#include "lib/summary/context_links.h"
#include "lib/summary/tf_op_name.h"
#include "lib/util/id_index.h"
#include "lib/util/parallel_for.h"
#include "lib/util/phase_times.h"
#include "lib/util/radix_sort.h"

namespace tfprof::grouping_internal {

Kind KindOfName(std::string_view n) {
  if (n == "TraceContext") return Kind::kTraceContext;
  if (n == "FunctionRun") return Kind::kFunctionRun;
  if (n == "SessionRun") return Kind::kSessionRun;
  if (n == "RunGraph") return Kind::kRunGraph;
  if (n == "ExecutorState::Process") return Kind::kExecutorProcess;
  if (n == "IteratorGetNextOp::DoCompute" || n == "IteratorGetNextAsOptionalOp::DoCompute")
    return Kind::kIteratorGetNext;
  if (n == "EagerExecute") return Kind::kEagerExecute;
  if (n.rfind("InstantiatedCapturedFunction::Run", 0) == 0) return Kind::kCapturedFunction;
  if (n == "ProcessBatch" || n == "OrbaxServing::ProcessBatch") return Kind::kProcessBatch;
  if (n == "BatchingSessionRun") return Kind::kBatchingSessionRun;
  return Kind::kOther;
}

bool IsImplicitRoot(Kind k) {
  return k == Kind::kFunctionRun || k == Kind::kSessionRun || k == Kind::kRunGraph || k == Kind::kExecutorProcess;
}

bool IsLoopOp(std::string_view n) {
  return n == "WhileOp-EvalCond" || n == "WhileOp-StartBody" || n == "ForOp" || n == "ParallelForOp" ||
         n == "ForeverOp";
}

namespace {

// The digits N of a marker named "<name>#<N>" (ProfilerStep#12 -> "12"), or
// empty when the name does not end so.
std::string_view MarkerDigits(std::string_view name) {
  const size_t hash = name.rfind('#');
  if (hash == std::string_view::npos || hash + 1 == name.size()) return {};
  std::string_view digits = name.substr(hash + 1);
  return digits.find_first_not_of("0123456789") == std::string_view::npos ? digits : std::string_view();
}

// The launch of each kernel's correlation id (the last one where several
// share it). The ids the kernels ask for are numbered once (IdIndex: a bit
// table where they are dense, as CUPTI and Kineto number them), and each
// launch is looked up there rather than added: a trace has several
// runtime calls with an id for each one that ran on a GPU (the 1 GB Kineto
// trace: 1.5 M calls, 0.36 M device events), so the walk over millions of
// events never probes a growing hash table per launch. Ids are unsigned
// here (AsUint); IdIndex takes their bits as int64, one to one.
class CorrelationIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  CorrelationIndex(const std::vector<std::pair<uint64_t, uint32_t>>& launches,
                   const std::vector<std::pair<uint32_t, uint64_t>>& kernels) {
    if (launches.empty() || kernels.empty()) return;
    std::vector<int64_t> asked;
    asked.reserve(kernels.size());
    for (const auto& [node, corr] : kernels) asked.push_back(static_cast<int64_t>(corr));
    ids_ = IdIndex(asked);
    launch_of_.assign(ids_.size(), kNone);
    for (const auto& [corr, node] : launches)
      if (const uint32_t n = ids_.Find(static_cast<int64_t>(corr)); n != IdIndex::kNone) launch_of_[n] = node;
  }

  uint32_t Find(uint64_t corr) const {
    const uint32_t n = ids_.Find(static_cast<int64_t>(corr));
    return n == IdIndex::kNone ? kNone : launch_of_[n];
  }

 private:
  IdIndex ids_;
  std::vector<uint32_t> launch_of_;  // Per id number: the last launch with that id, or kNone.
};

}  // namespace

// The stats the walk reads of every event, by what it reads them for.
enum class WalkRole : uint8_t { kNone, kR, kA, kId, kIterNum, kCorr, kPt, kP, kCt, kC, kPid, kCount };

// An event's stats the walk reads, found in one pass over its stats: the
// first of each name, as StatFinder::In finds it. The walk searched the
// stats once for each of them, ten searches an event.
class WalkStats {
 public:
  // `role`: per StatKey of the plane, its WalkRole.
  WalkStats(std::span<const Stat> stats, const std::vector<WalkRole>& role) {
    const size_t roles = role.size();
    for (const Stat& s : stats) {
      const StatKey k = s.key();
      if (k >= roles) continue;
      const auto r = static_cast<unsigned>(role[k]);
      if (r == 0 || (found_ >> r) & 1) continue;
      found_ |= 1u << r;
      stat_[r] = s;
    }
  }
  const Stat* Get(WalkRole r) const {
    const auto i = static_cast<unsigned>(r);
    return (found_ >> i) & 1 ? &stat_[i] : nullptr;
  }

 private:
  uint32_t found_ = 0;
  Stat stat_[static_cast<size_t>(WalkRole::kCount)];
};

// Which kinds, markers and TF ops a plane's event names are: once per name;
// and which of its stats the walk reads.
struct Forest::PlaneNames {
  bool host_plane = false;
  std::vector<Kind> kind_of;
  std::vector<bool> is_marker, is_tf_op;
  std::vector<WalkRole> walk_role;  // Per StatKey.
};

// What walking some lines collects besides the nodes (which it writes in
// place): what the links are made from, in node order.
struct Forest::Walked {
  std::vector<std::pair<uint32_t, std::pair<int64_t, int64_t>>> get_next;  // IteratorGetNext nodes and their keys
  std::vector<std::pair<uint64_t, uint32_t>> launches;  // (correlation id, host node), in capture order
  std::vector<std::pair<uint32_t, uint64_t>> kernels;   // device nodes with a correlation id
  // This piece's events that name a producer or consumer context
  // (ContextBuckets links every piece's once all are walked).
  ContextNotes context_notes;
  std::vector<std::pair<uint32_t, int32_t>> levels;  // Forest::levels_
  // What finding the roots reads of two kinds of node, noted here rather
  // than searched for over every node (Forest::tf_data_ids_, executors_).
  std::vector<int64_t> tf_data_ids;
  std::vector<std::pair<uint32_t, std::pair<int64_t, int64_t>>> executors;

  // Adds what `later` collected from the nodes after these: the same as
  // one walk over both (the context notes stay each piece's own).
  void Join(Walked&& later) {
    get_next.insert(get_next.end(), later.get_next.begin(), later.get_next.end());
    launches.insert(launches.end(), later.launches.begin(), later.launches.end());
    kernels.insert(kernels.end(), later.kernels.begin(), later.kernels.end());
    levels.insert(levels.end(), later.levels.begin(), later.levels.end());
    tf_data_ids.insert(tf_data_ids.end(), later.tf_data_ids.begin(), later.tf_data_ids.end());
    executors.insert(executors.end(), later.executors.begin(), later.executors.end());
  }
};

// Walks the nodes [from, to): each event's node, nesting parent and range
// end, written in place (the lines' nodes are numbered beforehand), and
// what the links are made from, into `out`. A part of a line is walked as
// if the line began where the part does (StitchLine nests it in what was
// open before).
void Forest::WalkNodes(uint32_t from, uint32_t to, const std::vector<PlaneNames>& names, Walked& out) {
  size_t i = LineOf(from);
  for (; i < lines_.size() && lines_[i].first_node < to; ++i) {
    const LineNodes& at = lines_[i];
    const Line& line = host_.planes[at.plane].lines[at.line];
    const PlaneNames& pn = names[at.plane];
    const uint32_t first = at.first_node;
    const uint32_t line_end = first + static_cast<uint32_t>(line.events.size());
    std::vector<uint32_t> stack;
    for (uint32_t e = std::max(from, first) - first; e < std::min(to, line_end) - first; ++e) {
      const Event& ev = line.events[e];
      const uint32_t n = first + e;
      Node node{pn.kind_of[ev.metadata], pn.is_tf_op[ev.metadata], false};
      const WalkStats stats(line.EventStats(e), pn.walk_role);
      int32_t level = 0;
      if (marker_) level = pn.is_marker[ev.metadata] ? 1 : 0;
      else if (const Stat* r = stats.Get(WalkRole::kR)) level = static_cast<int32_t>(r->AsInt());
      else if (node.kind == Kind::kTraceContext) level = 1;
      else if (node.kind == Kind::kProcessBatch) level = 2;
      else if (node.kind == Kind::kBatchingSessionRun) level = 1;
      if (level != 0) out.levels.emplace_back(n, level);
      if (const Stat* c = stats.Get(WalkRole::kCorr)) {
        if (pn.host_plane) {
          if (node.kind == Kind::kOther) node.kind = Kind::kKernelLaunch;
          out.launches.emplace_back(c->AsUint(), n);
        } else {
          // An event typed by its name is not a KernelExecute for the
          // reference's eager marks (it still links to its launch here).
          node.may_be_eager = node.may_be_eager || node.kind == Kind::kOther;
          node.kind = Kind::kKernelExecute;
          out.kernels.emplace_back(n, c->AsUint());
        }
      }
      if (node.kind == Kind::kExecutorProcess || node.kind == Kind::kIteratorGetNext) {
        const Stat *id = stats.Get(WalkRole::kId), *it = stats.Get(WalkRole::kIterNum);
        if (id && it) {
          std::pair<int64_t, int64_t> key{id->AsInt(), it->AsInt()};
          if (node.kind == Kind::kExecutorProcess) out.executors.emplace_back(n, key);
          else out.get_next.emplace_back(n, key);
        }
      }
      if (node.kind == Kind::kCapturedFunction)
        if (const Stat* id = stats.Get(WalkRole::kId)) out.tf_data_ids.push_back(id->AsInt());
      const Stat* pid_stat = stats.Get(WalkRole::kPid);
      const int64_t pid = pid_stat ? pid_stat->AsInt() : 0;
      if (const Stat* pt = stats.Get(WalkRole::kPt))
        if (const Stat* pv = stats.Get(WalkRole::kP)) out.context_notes.Add(pt->AsInt(), pv->AsInt(), pid, n, false);
      if (const Stat* ct = stats.Get(WalkRole::kCt))
        if (const Stat* cv = stats.Get(WalkRole::kC)) out.context_notes.Add(ct->AsInt(), cv->AsInt(), pid, n, true);
      nest_parent_[n] = kNoParent;
      // Nesting: the nearest open event that contains this one is its
      // parent. Async events (_a) take no part.
      if (const Stat* a = stats.Get(WalkRole::kA); a && a->AsInt() != 0) {
        node.async = true;
        nodes_[n] = node;
        subtree_end_[n] = n + 1;
        continue;
      }
      nodes_[n] = node;
      while (!stack.empty()) {
        const Event& top = line.events[stack.back() - first];
        if (top.start_ps <= ev.start_ps && ev.end_ps() <= top.end_ps()) break;
        subtree_end_[stack.back()] = n;  // The first event it does not contain.
        stack.pop_back();
      }
      if (!stack.empty()) nest_parent_[n] = stack.back();
      stack.push_back(n);
    }
    for (uint32_t open : stack) subtree_end_[open] = line_end;
  }
}

// Nests the parts of line `i` after each of `cuts` (where walk pieces
// began inside it, in order) as one walk of the whole line would have: a
// part's events that found no parent in it are nested in the events still
// open before it, which each closes as it would have. What is open at the
// end of a part is the nesting chain of its last event that takes part in
// nesting (the stack of a walk is always such a chain).
void Forest::StitchLine(size_t i, std::span<const uint32_t> cuts) {
  const LineNodes& at = lines_[i];
  const Line& line = host_.planes[at.plane].lines[at.line];
  const uint32_t first = at.first_node;
  const uint32_t line_end = first + static_cast<uint32_t>(line.events.size());
  auto contains = [&](uint32_t outer, uint32_t inner) {
    const Event& o = line.events[outer - first];
    const Event& e = line.events[inner - first];
    return o.start_ps <= e.start_ps && e.end_ps() <= o.end_ps();
  };
  std::vector<uint32_t> open;  // Outermost first.
  uint32_t part_start = first;
  for (size_t k = 0; k <= cuts.size(); ++k) {
    const uint32_t part_end = k < cuts.size() ? cuts[k] : line_end;
    for (uint32_t n = part_start; n < part_end && !open.empty(); ++n) {
      if (nodes_[n].async || nest_parent_[n] != kNoParent) continue;
      while (!open.empty() && !contains(open.back(), n)) {
        subtree_end_[open.back()] = n;  // The first event it does not contain.
        open.pop_back();
      }
      if (!open.empty()) nest_parent_[n] = open.back();
    }
    uint32_t last = part_end;
    while (last > part_start && nodes_[last - 1].async) --last;
    if (last > part_start) {  // Else nothing of the part was pushed or popped.
      open.clear();
      for (uint32_t x = last - 1; x != kNoParent; x = nest_parent_[x]) open.push_back(x);
      std::reverse(open.begin(), open.end());
    }
    part_start = part_end;
  }
}

void Forest::Build(size_t threads, size_t min_parallel) {
  // The lines' nodes are numbered first, so that pieces of the lines can be
  // walked on several threads, each writing its own nodes.
  size_t nodes = 0;
  std::vector<PlaneNames> names(host_.planes.size());
  for (uint32_t p = 0; p < host_.planes.size(); ++p) {
    const Plane& plane = host_.planes[p];
    stats_.emplace_back(host_, plane);
    PlaneNames& pn = names[p];
    pn.host_plane = host_.PlaneName(plane) == schema::kHostThreadsPlane;
    const size_t m_count = plane.event_metadata.size();
    pn.kind_of.resize(m_count);
    pn.is_marker.resize(m_count);
    pn.is_tf_op.resize(m_count);
    for (size_t m = 0; m < m_count; ++m) {
      std::string_view name = host_.Str(plane.event_metadata[m].name);
      pn.kind_of[m] = KindOfName(name);
      if (marker_) pn.is_marker[m] = marker_(name);
      // The reference types TF-op-named events TfOpRun (current op-name
      // rules, whatever --compat says: this is its grouping, not op stats).
      pn.is_tf_op[m] = pn.kind_of[m] == Kind::kOther && ParseTfOpFullname(name).category == OpCategory::kTensorFlow;
      has_eager_execute_ = has_eager_execute_ || pn.kind_of[m] == Kind::kEagerExecute;
    }
    pn.walk_role.assign(plane.stat_metadata.size(), WalkRole::kNone);
    for (const auto& [name, role] : {std::pair{"_r", WalkRole::kR},
                                     {"_a", WalkRole::kA},
                                     {"id", WalkRole::kId},
                                     {"iter_num", WalkRole::kIterNum},
                                     {"correlation_id", WalkRole::kCorr},
                                     {"_pt", WalkRole::kPt},
                                     {"_p", WalkRole::kP},
                                     {"_ct", WalkRole::kCt},
                                     {"_c", WalkRole::kC},
                                     {"_pid", WalkRole::kPid}})
      if (const std::optional<StatKey> key = plane.FindStatKey(host_.strings, name); key && *key < pn.walk_role.size())
        pn.walk_role[*key] = role;
    for (uint32_t l = 0; l < plane.lines.size(); ++l) {
      const Line& line = plane.lines[l];
      if (schema::IsDerivedLineId(line.id) || line.events.empty()) continue;
      lines_.push_back(LineNodes{static_cast<uint32_t>(nodes), p, l});
      nodes += line.events.size();
    }
  }
  // Every entry is written by the walk: sized without being filled.
  nodes_.resize(nodes);
  nest_parent_.resize(nodes);
  subtree_end_.resize(nodes);

  // Pieces of as many nodes each, four a thread, taken by the threads as
  // they come free and joined in node order. They cut lines anywhere: the
  // cost of an event differs by thread (a thread-pool line names a context
  // with nearly every event, the Python thread rarely), and one thread
  // may hold most events, so pieces of whole lines left a thread idle
  // (tfcpu_100: 40 and 85 ms).
  threads = std::max<size_t>(threads, 1);
  if (nodes == 0 || nodes < min_parallel) threads = 1;  // Starting a thread costs more.
  const size_t pieces = threads == 1 ? 1 : threads * 4;
  std::vector<uint32_t> piece_start;
  for (size_t k = 0; k <= pieces; ++k) piece_start.push_back(static_cast<uint32_t>(nodes * k / pieces));
  std::vector<Walked> walked(pieces);
  ParallelFor(pieces, threads, [&](size_t t) { WalkNodes(piece_start[t], piece_start[t + 1], names, walked[t]); });
  // Each line cut by pieces, nested as one walk of it would have.
  for (size_t k = 1; k < pieces;) {
    const size_t i = LineOf(piece_start[k]);
    const uint32_t line_end = lines_[i].first_node + LineLength(i);
    std::vector<uint32_t> cuts;
    for (; k < pieces && piece_start[k] < line_end; ++k)
      if (piece_start[k] > lines_[i].first_node) cuts.push_back(piece_start[k]);
    if (!cuts.empty()) StitchLine(i, cuts);
  }
  // Each piece's context notes, kept as they are, in node order.
  std::vector<ContextNotes> context_pieces;
  for (Walked& w : walked)
    if (!w.context_notes.empty()) context_pieces.push_back(std::move(w.context_notes));
  Walked all = std::move(walked[0]);
  for (size_t t = 1; t < walked.size(); ++t) all.Join(std::move(walked[t]));
  walked.clear();
  levels_ = std::move(all.levels);
  tf_data_ids_.insert(all.tf_data_ids.begin(), all.tf_data_ids.end());
  executors_ = std::move(all.executors);

  // Each get-next's executor: the last of its step (id, iter_num).
  std::map<std::pair<int64_t, int64_t>, uint32_t> executor_by_step;
  for (const auto& [n, key] : executors_) executor_by_step[key] = n;
  for (const auto& [n, key] : all.get_next)
    if (auto it = executor_by_step.find(key); it != executor_by_step.end()) AddEdge(it->second, n);
  const CorrelationIndex launch_by_correlation(all.launches, all.kernels);
  std::vector<std::pair<uint64_t, uint32_t>>().swap(all.launches);
  uint64_t unmatched = 0;
  for (const auto& [n, corr] : all.kernels) {
    if (const uint32_t launch = launch_by_correlation.Find(corr); launch != CorrelationIndex::kNone) AddEdge(launch, n);
    else ++unmatched;
  }
  diag_.Add(diag_kind::kGroupingKernelWithoutLaunch, "", unmatched);
  // Per context, its producers (in node order) are parents of its
  // consumers (in node order).
  ContextBuckets(context_pieces, threads, min_parallel).ForEachLink([this](uint32_t p, uint32_t c) { AddEdge(p, c); });
  PhaseTimer adjacency_phase("grouping: adjacency");
  MakeAdjacency(threads);
}

void LinksByNode::Assign(std::vector<Link>&& links, size_t nodes) {
  links_ = std::move(links);
  const size_t blocks = (nodes >> kBlockBits) + 1;
  block_start_.assign(blocks + 1, 0);
  size_t at = 0;
  for (size_t b = 0; b <= blocks; ++b) {
    while (at < links_.size() && (links_[at].first >> kBlockBits) < b) ++at;
    block_start_[b] = at;
  }
  block_start_[blocks] = links_.size();
}

void Forest::MakeAdjacency(size_t threads) {
  std::vector<Link> by_child, by_parent;
  by_child.reserve(edges_.size());
  for (const auto& [p, c] : edges_) by_child.emplace_back(c, p);
  by_parent.swap(edges_);
  // The two sorts side by side: a current TF capture links about one event
  // in six. The contexts' links come bucket by bucket, in no order of node
  // (context_links.h): std::stable_sort took twice as long over them as it
  // did over links made in id order, a radix sort takes the same time
  // whatever the order.
  const size_t sorts = threads > 1 && by_parent.size() >= (size_t{1} << 16) ? 2 : 1;
  ParallelFor(2, sorts, [&](size_t i) {
    std::vector<Link>& links = i == 0 ? by_child : by_parent;
    StableRadixSortByFirst(links);
    (i == 0 ? link_parents_ : link_children_).Assign(std::move(links), nodes_.size());
  });
}

std::vector<uint32_t> Forest::Ancestors(uint32_t node) const {
  std::vector<uint32_t> out;
  absl::flat_hash_set<uint32_t> seen{node};
  std::deque<uint32_t> queue{node};
  while (!queue.empty()) {
    uint32_t x = queue.front();
    queue.pop_front();
    ForEachParent(x, [&](uint32_t parent) {
      if (seen.insert(parent).second) {
        out.push_back(parent);
        queue.push_back(parent);
      }
    });
  }
  return out;
}

constexpr uint32_t kNoNode = UINT32_MAX;  // No EagerExecute above.

// The reference's search: breadth first through the parents, in the order
// the links were made, the node itself first.
uint32_t Forest::NearestEagerExecuteBfs(uint32_t node) const {
  absl::flat_hash_set<uint32_t> seen{node};
  std::deque<uint32_t> queue{node};
  while (!queue.empty()) {
    uint32_t x = queue.front();
    queue.pop_front();
    if (nodes_[x].kind == Kind::kEagerExecute) return x;
    ForEachParent(x, [&](uint32_t parent) {
      if (seen.insert(parent).second) queue.push_back(parent);
    });
  }
  return kNoNode;
}

// Whether EagerExecute `e` (or none, kNoNode) makes what it runs eager:
// is_func = 0 (without is_func it counts as a compiled function's).
Forest::EagerMemo::State Forest::EagerStateOf(uint32_t e) const {
  if (e == kNoNode) return EagerMemo::kNotEager;
  const auto is_func = StatOf(&PlaneStats::is_func, e);
  return is_func && is_func->AsInt() == 0 ? EagerMemo::kEager : EagerMemo::kNotEager;
}

// The state of the node's nearest EagerExecute, shared along chains of
// single parents (nesting on a thread, a kernel's launch), where the search
// from a node is the search from its parent: millions of kernels and ops
// then cost one step each. Nodes with several parents (producer/consumer
// links) take the full search.
Forest::EagerMemo::State Forest::NearestEagerState(uint32_t node, EagerMemo& memo, std::vector<uint32_t>& chain) const {
  chain.clear();
  uint32_t x = node;
  EagerMemo::State found;
  while (true) {
    if (const EagerMemo::State known = memo.Get(x); known != EagerMemo::kUnknown) {
      // Visiting: a cycle without EagerExecute.
      found = known == EagerMemo::kVisiting ? EagerMemo::kNotEager : known;
      break;
    }
    size_t parents = 0;
    uint32_t parent = 0;
    ForEachParent(x, [&](uint32_t p) {
      ++parents;
      parent = p;
    });
    if (nodes_[x].kind == Kind::kEagerExecute || parents != 1) {
      found = EagerStateOf(nodes_[x].kind == Kind::kEagerExecute ? x
                           : parents == 0                        ? kNoNode
                                                                 : NearestEagerExecuteBfs(x));
      memo.Set(x, found);
      break;
    }
    memo.Set(x, EagerMemo::kVisiting);
    chain.push_back(x);
    x = parent;  // The only one.
  }
  for (uint32_t c : chain) memo.Set(c, found);
  return found;
}

// An op or kernel is eager when its nearest EagerExecute has is_func = 0;
// without is_func the EagerExecute counts as a compiled function's.
void Forest::MarkEager(EventBits& out) const {
  if (!has_eager_execute_) return;
  EagerMemo memo(nodes_.size());
  std::vector<uint32_t> chain;
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    if (!nodes_[i].may_be_eager) continue;
    if (NearestEagerState(i, memo, chain) != EagerMemo::kEager) continue;
    if (out.empty()) {
      out.resize(host_.planes.size());
      for (size_t p = 0; p < host_.planes.size(); ++p) {
        out[p].resize(host_.planes[p].lines.size());
        for (size_t l = 0; l < host_.planes[p].lines.size(); ++l)
          out[p][l].assign(host_.planes[p].lines[l].events.size(), false);
      }
    }
    const EventRef at = PositionOf(i);
    out[at.plane][at.line][at.event] = true;
  }
}

std::vector<uint32_t> Forest::Roots() {
  // Roots whose step id is a tf.data function's are not steps.
  const absl::flat_hash_set<int64_t>& tf_data_ids = tf_data_ids_;
  if (marker_) {
    std::vector<uint32_t> roots;
    for (const auto& [i, level] : levels_)
      if (level > 0) roots.push_back(i);
    SortRoots(roots, false);
    return roots;
  }
  // TensorFlow 1 loops: the iterations of ExecutorState::Process
  // (same step id, iter_num > 0 somewhere) are the steps.
  std::map<std::pair<int64_t, int64_t>, std::vector<uint32_t>> iterations;
  for (const auto& [i, key] : executors_) iterations[key].push_back(i);
  absl::flat_hash_set<int64_t> looping;
  for (const auto& [key, v] : iterations)
    if (key.second != 0) looping.insert(key.first);
  if (!looping.empty()) {
    std::vector<uint32_t> roots;
    for (auto& [key, v] : iterations) {
      if (!looping.contains(key.first)) continue;
      auto first =
          *std::min_element(v.begin(), v.end(), [&](uint32_t a, uint32_t b) { return StartOf(a) < StartOf(b); });
      roots.push_back(first);
      loop_members_.emplace_back(first, v);
    }
    SortRoots(roots, false);
    return roots;
  }

  std::vector<uint32_t> roots;
  for (const auto& [i, level] : levels_) {
    if (level <= 0) continue;
    if (!tf_data_ids.empty())
      if (auto id = StatOf(&PlaneStats::id, i); id && tf_data_ids.contains(id->AsInt())) continue;
    roots.push_back(i);
  }
  SortRoots(roots, true);
  return roots;
}

// A stable sort by (root level, highest first, when `by_level`; start), on
// keys made once: a start is a search over the lines, not to be repeated
// in every comparison (a 1 GB capture has hundreds of thousands of roots).
void Forest::SortRoots(std::vector<uint32_t>& roots, bool by_level) const {
  struct Key {
    int32_t level;  // Negated, the highest first (roots have levels above 0).
    int64_t start;
    size_t place;  // Before the sort: equal keys keep their order.
    uint32_t node;
  };
  std::vector<Key> keys;
  keys.reserve(roots.size());
  for (size_t i = 0; i < roots.size(); ++i)
    keys.push_back(Key{by_level ? -RootLevel(roots[i]) : 0, StartOf(roots[i]), i, roots[i]});
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    return std::tie(a.level, a.start, a.place) < std::tie(b.level, b.start, b.place);
  });
  for (size_t i = 0; i < keys.size(); ++i) roots[i] = keys[i].node;
}

// "<prefix> <number>": the prefix is a graph_type found on the root or its
// ancestors, else the root's name unless it is an implicit root
// (FunctionRun, ...); the number is iter_num, else step_num, else the id.
// A marker root named "<name>#<N>" is the name itself, numbered N.
std::string Forest::GroupName(uint32_t root, int32_t group_id, int64_t* number, bool* numbered_by_name) {
  std::vector<uint32_t> chain{root};
  for (uint32_t a : Ancestors(root)) chain.push_back(a);
  auto find = [&](StatFinder PlaneStats::*field) -> std::optional<Stat> {
    for (uint32_t x : chain)
      if (auto s = StatOf(field, x)) return s;
    return std::nullopt;
  };
  const Node& r = nodes_[root];
  if (marker_) {
    // PyTorch's "ProfilerStep#12" already says which step it is.
    std::string_view name = NameOf(root);
    if (std::string_view digits = MarkerDigits(name); !digits.empty()) {
      // N beyond 64 bits (a 40,000-digit "step") leaves the group id.
      int64_t n = 0;
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
      *numbered_by_name = ec == std::errc() && end == digits.data() + digits.size();
      *number = *numbered_by_name ? n : group_id;
      return std::string(name);
    }
  }
  std::string prefix;
  if (auto g = find(&PlaneStats::graph_type)) {
    const Stat& s = *g;
    prefix = s.type() == StatType::kString ? std::string(host_.Str(s.AsString())) : std::to_string(s.AsInt());
  } else if (!IsImplicitRoot(r.kind)) {
    prefix = std::string(NameOf(root));
  }
  *number = group_id;
  if (auto it = find(&PlaneStats::iter_num)) *number = it->AsInt();
  else if (auto st = find(&PlaneStats::step_num)) *number = st->AsInt();
  return prefix.empty() ? std::to_string(*number) : prefix + " " + std::to_string(*number);
}

// What the reference's breadth-first search labels from x through nesting:
// x and every unlabelled node nested in it, except below a labelled one.
// Whatever is labelled has its whole nesting labelled (the search never
// stops part way down a nesting), so a labelled node's range is skipped.
// The links of each node labelled are queued. Which nodes a search labels
// does not depend on the order it meets them in, so ranges give the same
// groups as a queue of children.
//
// On two threads (Group), each half of the roots is searched on its own,
// into its own labels, and the first half's labels win. Why that gives
// the one thread's labels: a node's label is the first root, in order,
// whose search reaches it (a search that meets a labelled node stops
// there, but what lies past it was labelled by the search that labelled
// it, from an earlier root). The first half's roots all come before the
// second's, so where the first half reaches a node, its label is the
// first half's, as alone; elsewhere it is the second half's own first,
// from a root that no first-half search reached (one that was reached
// has all it reaches reached too: not so in TF1 loop mode, which Group
// searches on one thread).
void Forest::LabelSubtree(uint32_t x, int32_t id, std::vector<int32_t>& labels, std::deque<uint32_t>& queue) const {
  const uint32_t end = subtree_end_[x];
  const Link* link = link_children_.From(x);
  const Link* const last = link_children_.end();
  for (uint32_t z = x; z < end;) {
    if (labels[z] != kNoGroup) {
      z = subtree_end_[z];
      if (z < end) link = link_children_.From(z);
      continue;
    }
    if (z != x && nodes_[z].async) {  // In the range, not in the nesting.
      ++z;
      continue;
    }
    labels[z] = id;
    while (link != last && link->first < z) ++link;
    for (; link != last && link->first == z; ++link)
      if (labels[link->second] == kNoGroup) queue.push_back(link->second);
    ++z;
  }
}

void Forest::SearchFrom(std::span<const uint32_t> roots, std::vector<int32_t>& labels,
                        const absl::flat_hash_map<uint32_t, const std::vector<uint32_t>*>& members,
                        std::vector<std::pair<uint32_t, int32_t>>& searched) const {
  std::deque<uint32_t> queue;
  int32_t next = 0;
  for (const uint32_t root : roots) {
    if (labels[root] != kNoGroup) continue;
    if (members.empty()) {
      // A root inside another root of the same level (FunctionRun in a
      // Keras "train" step) is part of that step.
      bool nested = false;
      for (uint32_t a : Ancestors(root))
        if (RootLevel(a) == RootLevel(root)) nested = true;
      if (nested) continue;
    }
    const int32_t id = next++;
    queue.assign({root});
    if (auto it = members.find(root); it != members.end())
      queue.insert(queue.end(), it->second->begin(), it->second->end());
    while (!queue.empty()) {
      const uint32_t x = queue.front();
      queue.pop_front();
      if (labels[x] != kNoGroup) continue;  // Another step's (or already done): not re-labelled.
      LabelSubtree(x, id, labels, queue);
    }
    searched.emplace_back(root, id);
  }
}

void Forest::Group(EventGroups& out, size_t threads, size_t min_parallel) {
  // Room for every event: the labels become the result's ids, derived
  // lines' events added after them in place.
  size_t events = 0;
  for (const Plane& pl : host_.planes) events += pl.EventCount();
  group_.reserve(events);
  const std::vector<uint32_t> roots = Roots();
  absl::flat_hash_map<uint32_t, const std::vector<uint32_t>*> members;
  for (const auto& [first, v] : loop_members_) members[first] = &v;
  // Two halves of the roots searched side by side, when there is enough to
  // search (the steps' search was a current-TF capture's longest stretch
  // on one thread, 1 GB: 0.55 s), of about as many nested nodes each (the
  // ranges of roots may hold each other's). Not in TF1 loop mode: there a
  // root's search also starts from its iteration's other events, which a
  // search that reaches the root does not take, so a reached root's reach
  // is not all reached.
  size_t split = roots.size();
  if (threads > 1 && nodes_.size() >= std::max<size_t>(min_parallel, 1) && roots.size() >= 2 && members.empty()) {
    uint64_t total = 0, so_far = 0;
    for (uint32_t root : roots) total += subtree_end_[root] - root;
    for (split = 0; split + 1 < roots.size() && so_far < total / 2; ++split)
      so_far += subtree_end_[roots[split]] - roots[split];
  }
  const std::span<const uint32_t> all(roots);
  // Each searched root with its label, in root order; the second half's
  // numbered from 0 as alone, in labels of its own.
  std::vector<std::pair<uint32_t, int32_t>> searched, second;
  std::vector<int32_t> second_labels;
  ParallelFor(split < roots.size() ? 2 : 1, 2, [&](size_t half) {
    std::vector<int32_t>& labels = half == 0 ? group_ : second_labels;
    labels.assign(nodes_.size(), kNoGroup);
    SearchFrom(half == 0 ? all.first(split) : all.subspan(split), labels, members, half == 0 ? searched : second);
  });
  if (!second.empty()) {
    // A second-half root that the first half reached is not a step; those
    // kept take the ids after the first half's, in order.
    std::vector<int32_t> final_id(second.size(), kNoGroup);
    for (const auto& [root, id] : second) {
      if (group_[root] != kNoGroup) continue;
      final_id[static_cast<size_t>(id)] = static_cast<int32_t>(searched.size());
      searched.emplace_back(root, static_cast<int32_t>(searched.size()));
    }
    ParallelFor(2, 2, [&](size_t half) {
      const size_t from = half * group_.size() / 2, to = (half + 1) * group_.size() / 2;
      for (size_t n = from; n < to; ++n)
        if (group_[n] == kNoGroup && second_labels[n] != kNoGroup)
          group_[n] = final_id[static_cast<size_t>(second_labels[n])];
    });
  }
  std::vector<int32_t>().swap(second_labels);
  for (const auto& [root, id] : searched) {
    StepGroup g;
    g.id = id;
    g.name = GroupName(root, id, &g.step_number, &g.numbered_by_name);
    if (!IsImplicitRoot(nodes_[root].kind)) {
      g.named_root = PositionOf(root);
    }
    out.groups.push_back(std::move(g));
  }

  // Write back; on GPU planes, device events the links did not reach take
  // the step of the device event before them in time.
  std::vector<std::pair<uint32_t, uint32_t>> grouped_lines;
  grouped_lines.reserve(lines_.size());
  for (const LineNodes& l : lines_) grouped_lines.emplace_back(l.plane, l.line);
  out.group.Adopt(host_, std::move(group_), grouped_lines);
  group_ = {};
  // What only the steps' search reads is freed: before the eager marks
  // take their own memory when they come after, 4 bytes a node (beside
  // the search, the small nodes make room for them).
  decltype(subtree_end_)().swap(subtree_end_);
  link_children_.Clear();
  if (out.groups.empty()) return;
  for (size_t p = 0; p < host_.planes.size(); ++p) {
    const Plane& plane = host_.planes[p];
    if (!schema::IsGpuPlane(host_.PlaneName(plane))) continue;
    int32_t last = kNoGroup;
    for (auto [l, e] : DeviceEventsInStartOrder(plane)) {
      int32_t& g = out.group.At(p, l, e);
      if (g == kNoGroup) g = last;
      else last = g;
    }
  }
}

}  // namespace tfprof::grouping_internal
