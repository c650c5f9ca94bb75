// Internal to event grouping (event_grouping.cc): the event forest the
// reference groups steps on. One node per event of the grouped lines;
// edges from nesting on each thread, from producer/consumer contexts
// between threads, and from kernel launches to their kernels. Groups are
// labelled from step roots through it; eager ops and kernels are marked
// by their nearest EagerExecute.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "lib/model/default_init_allocator.h"
#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/model/stat_finder.h"
#include "lib/model/step_markers.h"
#include "lib/summary/event_grouping.h"

namespace tfprof::grouping_internal {

// The event kinds grouping treats specially.
enum class Kind : uint8_t {
  kOther,
  kTraceContext,
  kFunctionRun,
  kSessionRun,
  kRunGraph,
  kExecutorProcess,
  kIteratorGetNext,
  kEagerExecute,
  kCapturedFunction,
  kKernelLaunch,
  kKernelExecute,
  kProcessBatch,
  kBatchingSessionRun
};

// The kind of an event by its name.
Kind KindOfName(std::string_view n);
// FunctionRun, SessionRun, RunGraph and ExecutorState::Process: roots of a
// step without being named for it.
bool IsImplicitRoot(Kind k);
// A TF loop op's name (WhileOp-EvalCond, ForOp, ...).
bool IsLoopOp(std::string_view n);

// Which event names are step roots (--step-marker, or PyTorch's
// ProfilerStep#N); empty when the capture's own markers are used.
using MarkerTest = std::function<bool(std::string_view)>;
// "ProfilerStep#<digits>" (lib/model/step_markers.h).
using schema::IsProfilerStepName;

// One per event of the lines grouped, in their order (plane, line, event):
// 3 bytes, as there are millions. Where the event lies (Forest::PositionOf)
// and its time are the model's.
// No default values: the walk writes every node (on its own thread's pages).
struct Node {
  Kind kind;
  // A TF op (named "name:Type") or a GPU kernel (a device event with a
  // correlation_id), whose eager mode the reference marks.
  bool may_be_eager;
  // An async event (_a != 0): it nests nothing and is in nothing, though
  // it may lie inside another event's range of nodes (Forest::subtree_end_).
  bool async;
};
static_assert(sizeof(Node) == 3);

using Link = std::pair<uint32_t, uint32_t>;

// Links sorted by their first node, and where the links of each block of
// 256 nodes begin: a node's links are searched for among its block's few
// (the directory is 31 KB per million nodes, in the cache), not among all
// of them, where each step of the search missed the cache. The steps'
// search and the eager marks look up a node's links once for every node
// they reach (tfcpu_100, 0.6 M links: the steps' search 73-77 -> 50-66
// ms, the eager marks 57 -> 31-41 ms).
class LinksByNode {
 public:
  // `links` sorted by first, every first below `nodes`.
  void Assign(std::vector<Link>&& links, size_t nodes);
  // The first link whose first node is `node` or after it.
  const Link* From(uint32_t node) const {
    const size_t block = node >> kBlockBits;
    if (block + 1 >= block_start_.size()) return end();
    return std::lower_bound(links_.data() + block_start_[block], links_.data() + block_start_[block + 1], node,
                            [](const Link& l, uint32_t n) { return l.first < n; });
  }
  const Link* end() const { return links_.data() + links_.size(); }
  void Clear() {
    std::vector<Link>().swap(links_);
    std::vector<size_t>().swap(block_start_);
  }

 private:
  static constexpr unsigned kBlockBits = 8;
  std::vector<Link> links_;
  std::vector<size_t> block_start_;  // Per block, and one past the last: an index into links_.
};

// The event forest: one node per event, edges from nesting on a thread and
// from the links between threads and to the device.
class Forest {
 public:
  Forest(const Host& host, Diagnostics& diag, MarkerTest marker)
      : host_(host), diag_(diag), marker_(std::move(marker)) {}

  // `threads`: how many threads may walk the lines; one for fewer nodes
  // than `min_parallel` (GroupingRun::min_parallel_events).
  void Build(size_t threads, size_t min_parallel);
  // The steps: labels from the roots, searched on two threads when
  // `threads` > 1 and there are `min_parallel` nodes or more.
  void Group(EventGroups& out, size_t threads, size_t min_parallel);
  void MarkEager(EventBits& out) const;

 private:
  struct PlaneStats;
  struct PlaneNames;
  struct Walked;
  void WalkNodes(uint32_t from, uint32_t to, const std::vector<PlaneNames>& names, Walked& out);
  void StitchLine(size_t i, std::span<const uint32_t> cuts);
  // The lines whose events are nodes, each with its first node, in node
  // order: a node's place is found by a binary search over lines.
  struct LineNodes {
    uint32_t first_node, plane, line;
  };
  // The index in lines_ of the line holding node n.
  size_t LineOf(uint32_t n) const {
    auto it = std::upper_bound(lines_.begin(), lines_.end(), n,
                               [](uint32_t node, const LineNodes& l) { return node < l.first_node; });
    return static_cast<size_t>(it - lines_.begin()) - 1;  // The first line starts at node 0.
  }
  uint32_t LineLength(size_t i) const {
    return static_cast<uint32_t>(host_.planes[lines_[i].plane].lines[lines_[i].line].events.size());
  }
  // Where a node's event lies in the model.
  EventRef PositionOf(uint32_t n) const {
    const LineNodes& at = lines_[LineOf(n)];
    return EventRef{at.plane, at.line, n - at.first_node};
  }
  const Event& EventOf(const EventRef& at) const { return host_.planes[at.plane].lines[at.line].events[at.event]; }
  int64_t StartOf(uint32_t n) const { return EventOf(PositionOf(n)).start_ps; }
  std::string_view NameOf(uint32_t n) const {
    const EventRef at = PositionOf(n);
    return host_.Str(host_.planes[at.plane].event_metadata[EventOf(at).metadata].name);
  }
  std::optional<Stat> StatOf(StatFinder PlaneStats::*field, uint32_t n) const {
    const EventRef at = PositionOf(n);
    return (stats_[at.plane].*field).In(host_.planes[at.plane].lines[at.line].EventStats(at.event));
  }
  // A link between threads or to the device (nesting is nest_parent_).
  void AddEdge(uint32_t parent, uint32_t child) { edges_.emplace_back(parent, child); }
  // A node's parents in the order the links were made: its nesting parent
  // (made while walking), then the links, in the order they were made.
  template <typename Visit>
  void ForEachParent(uint32_t x, Visit visit) const {
    if (nest_parent_[x] != kNoParent) visit(nest_parent_[x]);
    for (const Link* l = link_parents_.From(x); l != link_parents_.end() && l->first == x; ++l) visit(l->second);
  }
  void MakeAdjacency(size_t threads);
  // Labels x's nesting and what its links reach (`labels`: group_, or
  // the second half's, Group).
  void LabelSubtree(uint32_t x, int32_t id, std::vector<int32_t>& labels, std::deque<uint32_t>& queue) const;
  // Searches from each of `roots` not labelled when met (nor nested in a
  // root of its level), noting each with its id in `searched`: ids from 0,
  // in the order searched.
  void SearchFrom(std::span<const uint32_t> roots, std::vector<int32_t>& labels,
                  const absl::flat_hash_map<uint32_t, const std::vector<uint32_t>*>& members,
                  std::vector<std::pair<uint32_t, int32_t>>& searched) const;
  std::vector<uint32_t> Roots();
  void SortRoots(std::vector<uint32_t>& roots, bool by_level) const;
  std::string GroupName(uint32_t root, int32_t group_id, int64_t* number, bool* numbered_by_name);
  std::vector<uint32_t> Ancestors(uint32_t node) const;
  // What the eager marks know of each node, 2 bits a node: a 1 GB
  // current-TF capture has 37 M nodes, and the marks are made beside the
  // steps' search, at the run's peak (a node id each, 4 bytes, was 148 MB
  // of it).
  class EagerMemo {
   public:
    enum State : unsigned { kUnknown = 0, kVisiting = 1, kNotEager = 2, kEager = 3 };
    explicit EagerMemo(size_t nodes) : words_((nodes + 31) / 32, 0) {}
    State Get(uint32_t n) const { return static_cast<State>((words_[n >> 5] >> Shift(n)) & 3); }
    void Set(uint32_t n, State s) {
      uint64_t& w = words_[n >> 5];
      w = (w & ~(uint64_t{3} << Shift(n))) | (uint64_t{s} << Shift(n));
    }

   private:
    static unsigned Shift(uint32_t n) { return (n & 31) * 2; }
    std::vector<uint64_t> words_;
  };
  EagerMemo::State EagerStateOf(uint32_t eager_execute) const;
  EagerMemo::State NearestEagerState(uint32_t node, EagerMemo& memo, std::vector<uint32_t>& chain) const;
  uint32_t NearestEagerExecuteBfs(uint32_t node) const;

  const Host& host_;
  Diagnostics& diag_;
  const MarkerTest marker_;  // --step-marker: these events are the roots.
  std::vector<Node, DefaultInitAllocator<Node>> nodes_;
  // The nodes with a root level other than 0 (_r, or what their kind or
  // --step-marker implies) and their levels, by node: a few per step, so
  // kept apart rather than in every node.
  std::vector<std::pair<uint32_t, int32_t>> levels_;
  int32_t RootLevel(uint32_t n) const {
    auto it = std::lower_bound(levels_.begin(), levels_.end(), std::pair<uint32_t, int32_t>{n, INT32_MIN});
    return it != levels_.end() && it->first == n ? it->second : 0;
  }
  std::vector<LineNodes> lines_;
  static constexpr uint32_t kNoParent = UINT32_MAX;
  // Nesting, one parent at most per node: 4 bytes a node, not an edge.
  std::vector<uint32_t, DefaultInitAllocator<uint32_t>> nest_parent_;
  std::vector<std::pair<uint32_t, uint32_t>> edges_;  // The links (parent, child), until MakeAdjacency.
  // The links' (child, parent), by child, each child's in the order made.
  LinksByNode link_parents_;
  // The links' (parent, child), by parent: for the steps' search, which
  // only needs who is reachable.
  LinksByNode link_children_;
  // The step ids of tf.data's captured functions (InstantiatedCapturedFunction::Run
  // with an `id`), and the ExecutorState::Process nodes with an `id` and an
  // `iter_num`, in node order, with those: noted by the walk for Roots.
  absl::flat_hash_set<int64_t> tf_data_ids_;
  std::vector<std::pair<uint32_t, std::pair<int64_t, int64_t>>> executors_;
  // Events are in start order with the longer first, so a node's nested
  // descendants are the nodes after it up to subtree_end_ (not the async
  // ones among them): the steps' search labels a whole range at a time
  // instead of keeping a list of children (4 bytes a node, not 8).
  std::vector<uint32_t, DefaultInitAllocator<uint32_t>> subtree_end_;
  std::vector<int32_t> group_;
  bool has_eager_execute_ = false;
  // TF1 loop mode: each iteration's first event and all its events.
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> loop_members_;
  // Per-plane stat finders, built once: those read of a few nodes after
  // the walk (which reads every event's through its own table, WalkStats).
  struct PlaneStats {
    StatFinder id, iter_num, step_num, graph_type, is_func;
    PlaneStats(const Host& h, const Plane& pl)
        : id(h, pl, "id"),
          iter_num(h, pl, "iter_num"),
          step_num(h, pl, "step_num"),
          graph_type(h, pl, "graph_type"),
          is_func(h, pl, "is_func") {}
  };
  std::vector<PlaneStats> stats_;
};

}  // namespace tfprof::grouping_internal
