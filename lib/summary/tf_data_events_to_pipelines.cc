#include "lib/summary/tf_data_events_to_pipelines.h"

#include <algorithm>
#include <array>
#include <optional>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "lib/model/diagnostic_kinds.h"
#include "lib/summary/time_span.h"

namespace tfprof {
namespace {

constexpr std::string_view kHostPlaneName = "/host:CPU";
constexpr std::string_view kDeviceGenerator = "Iterator::Prefetch::Generator";
// The reference gives up below this depth; so do we.
constexpr int kMaxDepth = 100;

// The asynchronous producer/consumer pairs, in the order the reference
// links them (it matters only for which event of a repeated iterator is met
// first, i.e. its start time).
constexpr std::array<std::string_view, 6> kAsyncKinds = {"Prefetch",    "ParallelInterleave", "ParallelMap",
                                                         "MapAndBatch", "ParseExample",       "ParallelBatch"};

enum class EventRole : uint8_t { kOther, kIterator, kGenerator, kProduce, kConsume };

struct NameInfo {
  EventRole role = EventRole::kOther;
  bool tf_data = false;    // Its name is "Iterator:<...>": the walk follows it.
  bool root = false;       // Exactly "Iterator::<X>": one call of a pipeline.
  uint8_t async_kind = 0;  // Index in kAsyncKinds for produce/consume events.
};

NameInfo ClassifyName(std::string_view name) {
  NameInfo info;
  if (name == kDeviceGenerator) {
    info.role = EventRole::kGenerator;
    info.tf_data = true;
    return info;
  }
  // The reference sorts an event into tf.data by the text before its first
  // ':' being "Iterator"; the bare name "Iterator" is an iterator event too,
  // though the walk does not follow it.
  size_t colon = name.find(':');
  if (colon != std::string_view::npos && name.substr(0, colon) == "Iterator") {
    info.role = EventRole::kIterator;
    info.tf_data = true;
    size_t separators = 0;
    for (size_t at = name.find("::"); at != std::string_view::npos; at = name.find("::", at + 2)) ++separators;
    info.root = separators == 1;
    return info;
  }
  if (name == "Iterator") {
    info.role = EventRole::kIterator;
    return info;
  }
  for (size_t k = 0; k < kAsyncKinds.size(); ++k) {
    std::string_view kind = kAsyncKinds[k];
    if (name.size() == kind.size() + 7 && name.substr(0, kind.size()) == kind) {
      std::string_view suffix = name.substr(kind.size());
      if (suffix == "Produce") info.role = EventRole::kProduce;
      if (suffix == "Consume") info.role = EventRole::kConsume;
      info.async_kind = static_cast<uint8_t>(k);
      if (info.role != EventRole::kOther) return info;
    }
  }
  return info;
}

// The short name: the last "::" component.
std::string_view ShortName(std::string_view long_name) {
  size_t at = long_name.rfind("::");
  return at == std::string_view::npos ? long_name : long_name.substr(at + 2);
}

bool IsAsyncIteratorName(std::string_view name) {
  // The reference's list, matched exactly (so ParallelMapV2 is not in it).
  static constexpr std::array<std::string_view, 8> kAsync = {
      "Prefetch",    "ParallelInterleave",       "ParallelMap",  "ParseExample", "MapAndBatch",
      "DataService", "LegacyParallelInterleave", "ParallelBatch"};
  return std::find(kAsync.begin(), kAsync.end(), name) != kAsync.end();
}

// An integer stat read the way the options say (see TfDataOptions).
struct IdReader {
  std::optional<StatKey> key;
  bool xprof_ids = false;

  std::optional<uint64_t> Read(std::span<const Stat> stats, bool& saw_unsigned, bool* saw_negative = nullptr) const {
    if (!key) return std::nullopt;
    for (const Stat& s : stats) {
      if (s.key() != *key) continue;
      switch (s.type()) {
        case StatType::kInt64:
          if (saw_negative && static_cast<int64_t>(s.bits) < 0) *saw_negative = true;
          return uint64_t{s.bits};  // A copy: binding the packed field to a reference is misaligned.
        case StatType::kUint64: saw_unsigned = true; return xprof_ids ? 0 : s.bits;
        case StatType::kDouble: return xprof_ids ? 0 : static_cast<uint64_t>(s.AsInt());
        default: return 0;  // Present but not a number: the reference reads 0.
      }
    }
    return std::nullopt;
  }
};

// One iterator event (or any event the reference types as an iterator).
struct Node {
  int64_t start_ps;
  int64_t duration_ps;
  uint64_t id;
  uint64_t parent_id;
  EventMetadataId metadata;
  uint32_t line;
  bool has_id;
  bool has_parent;
  bool tf_data;
  bool root;
  bool generator;
  int64_t end_ps() const { return start_ps + duration_ps; }
};

struct ProduceEvent {
  uint8_t kind;
  uint64_t element_id;
  uint32_t first_iterator = UINT32_MAX;  // Its first nested iterator event (a node).
};

struct ConsumeEvent {
  uint8_t kind;
  uint64_t element_id;
  uint32_t consumer;  // The iterator event it is nested in (a node).
};

int64_t Overlap(const Node& a, const Node& b) {
  // Spans touch inclusively in the reference; touching gives 0 either way.
  int64_t begin = std::max(a.start_ps, b.start_ps), end = std::min(a.end_ps(), b.end_ps());
  return end > begin ? end - begin : 0;
}

// The event forest of one host, restricted to what the analysis walks.
class Forest {
 public:
  std::vector<Node> nodes;
  std::vector<uint32_t> child_begin;  // CSR over `children`, indexed by node.
  std::vector<uint32_t> children;

  void Link(std::vector<std::pair<uint32_t, uint32_t>>& edges) {
    // Nesting edges come first, producer links after, each in the order the
    // reference adds them; a stable sort by parent keeps that order.
    std::stable_sort(edges.begin(), edges.end(), [](auto& a, auto& b) { return a.first < b.first; });
    child_begin.assign(nodes.size() + 1, 0);
    for (auto& e : edges) ++child_begin[e.first + 1];
    for (size_t i = 0; i < nodes.size(); ++i) child_begin[i + 1] += child_begin[i];
    children.reserve(edges.size());
    for (auto& e : edges) children.push_back(e.second);
  }
  std::span<const uint32_t> Children(uint32_t n) const {
    return {children.data() + child_begin[n], child_begin[n + 1] - child_begin[n]};
  }
};

// Walks one execution from its root, accumulating per-iterator figures.
// Every event has at most one parent (see BuildForest), so a walk is a tree
// walk, except for a loop back to its root: `visited` (the number of the
// last execution that reached each event) leaves such an edge out.
class ExecutionWalker {
 public:
  ExecutionWalker(const Forest& forest, std::map<uint64_t, TfDataIteratorCall>& calls, int64_t clock_ps,
                  std::vector<uint32_t>& visited, uint32_t execution)
      : forest_(forest), calls_(calls), clock_ps_(clock_ps), visited_(visited), execution_(execution) {}

  void Visit(uint32_t n, bool blocking, int level) {
    if (level > kMaxDepth) {
      cut_ = true;
      return;
    }
    visited_[n] = execution_;
    const Node& node = forest_.nodes[n];
    if (!node.has_id) return;
    auto [it, fresh] = calls_.try_emplace(node.id);
    TfDataIteratorCall& call = it->second;  // std::map: stays valid while children are added.
    if (fresh) {
      call.id = node.id;
      call.start_ps = SaturatingAdd(node.start_ps, clock_ps_);
    }
    call.duration_ps += node.duration_ps;
    int64_t self = node.duration_ps;
    for (uint32_t c : forest_.Children(n)) {
      const Node& child = forest_.nodes[c];
      if (!child.tf_data || visited_[c] == execution_) continue;
      int64_t overlap = Overlap(node, child);
      Visit(c, blocking && overlap > 0, level + 1);
      // Like the reference, assume the children do not overlap each other.
      self -= overlap;
    }
    call.self_ps += self;
    call.blocking = call.blocking || blocking;
    ++call.calls;
  }
  bool cut() const { return cut_; }

 private:
  const Forest& forest_;
  std::map<uint64_t, TfDataIteratorCall>& calls_;
  int64_t clock_ps_;
  std::vector<uint32_t>& visited_;
  uint32_t execution_;
  bool cut_ = false;
};

// Builds the nodes and the nesting/producer edges of one plane.
Forest BuildForest(const Host& host, const Plane& plane, const TfDataOptions& options, TfDataHost& out) {
  std::vector<NameInfo> names(plane.event_metadata.size());
  for (size_t m = 0; m < names.size(); ++m) names[m] = ClassifyName(host.Str(plane.event_metadata[m].name));
  IdReader id{plane.FindStatKey(host.strings, "id"), options.xprof_ids};
  IdReader parent_id{plane.FindStatKey(host.strings, "parent_id"), options.xprof_ids};
  IdReader element_id{plane.FindStatKey(host.strings, "element_id"), options.xprof_ids};
  std::optional<StatKey> async_key = plane.FindStatKey(host.strings, "_a");

  Forest forest;
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  std::vector<ProduceEvent> produces;
  std::vector<ConsumeEvent> consumes;
  // The open events of a thread: index into nodes/produces, by role.
  struct Open {
    int64_t start_ps, end_ps;
    EventRole role;
    uint32_t index;
  };
  std::vector<Open> stack;
  for (uint32_t l = 0; l < plane.lines.size(); ++l) {
    const Line& line = plane.lines[l];
    stack.clear();
    for (size_t i = 0; i < line.events.size(); ++i) {
      const Event& e = line.events[i];
      const NameInfo& info = names[e.metadata];
      std::span<const Stat> stats = line.EventStats(i);
      bool saw_unsigned = false;
      Open cur{e.start_ps, e.end_ps(), info.role, UINT32_MAX};
      if (info.role == EventRole::kIterator || info.role == EventRole::kGenerator) {
        Node n{};
        n.start_ps = e.start_ps;
        n.duration_ps = e.duration_ps;
        n.metadata = e.metadata;
        n.line = l;
        n.tf_data = info.tf_data;
        n.root = info.root && info.role == EventRole::kIterator;
        n.generator = info.role == EventRole::kGenerator;
        if (auto v = id.Read(stats, saw_unsigned, &out.signed_ids)) n.has_id = true, n.id = *v;
        if (auto v = parent_id.Read(stats, saw_unsigned, &out.signed_ids)) n.has_parent = true, n.parent_id = *v;
        cur.index = static_cast<uint32_t>(forest.nodes.size());
        forest.nodes.push_back(n);
        ++out.iterator_events;
        if (saw_unsigned) ++out.unsigned_ids;
      } else if (info.role == EventRole::kProduce) {
        if (auto v = element_id.Read(stats, saw_unsigned)) {
          cur.index = static_cast<uint32_t>(produces.size());
          produces.push_back({info.async_kind, *v});
        }
      }
      // The nearest open event that contains this one is its parent.
      bool async = false;
      if (async_key)
        for (const Stat& s : stats)
          if (s.key() == *async_key) async = s.AsInt() != 0;
      if (async) continue;  // The reference leaves async events out of nesting.
      while (!stack.empty() && !(stack.back().start_ps <= cur.start_ps && cur.end_ps <= stack.back().end_ps))
        stack.pop_back();
      if (!stack.empty()) {
        const Open& parent = stack.back();
        bool cur_is_node = cur.role == EventRole::kIterator || cur.role == EventRole::kGenerator;
        if (parent.index != UINT32_MAX && cur_is_node) {
          if (parent.role == EventRole::kIterator || parent.role == EventRole::kGenerator) {
            edges.emplace_back(parent.index, cur.index);
          } else if (parent.role == EventRole::kProduce && produces[parent.index].first_iterator == UINT32_MAX) {
            produces[parent.index].first_iterator = cur.index;
          }
        }
        if (cur.role == EventRole::kConsume && parent.index != UINT32_MAX &&
            (parent.role == EventRole::kIterator || parent.role == EventRole::kGenerator)) {
          if (auto v = element_id.Read(stats, saw_unsigned)) consumes.push_back({info.async_kind, *v, parent.index});
        }
      }
      stack.push_back(cur);
    }
  }

  // Producer links: the iterator that made element E for iterator P is the
  // first iterator event inside a <Kind>Produce{element_id=E} whose
  // parent_id is P; it becomes a child of the iterator event holding the
  // matching <Kind>Consume{element_id=E}.
  std::stable_sort(produces.begin(), produces.end(), [](auto& a, auto& b) { return a.kind < b.kind; });
  std::stable_sort(consumes.begin(), consumes.end(), [](auto& a, auto& b) { return a.kind < b.kind; });
  absl::flat_hash_map<std::pair<uint64_t, uint64_t>, std::vector<uint32_t>> producers;
  for (const ProduceEvent& p : produces) {
    if (p.first_iterator == UINT32_MAX) continue;
    const Node& it = forest.nodes[p.first_iterator];
    if (!it.has_parent) continue;
    producers[{it.parent_id, p.element_id}].push_back(p.first_iterator);
  }
  // A producer event made one element for one consumer. Where several
  // consumers claim it (element ids repeated, or forged into a loop), the
  // reference links it under each: an event is then reached along many
  // paths, or round a cycle until the depth limit, for every root call (a
  // 25 KB capture took 52 s). It goes under the first consumer only, so
  // that every event has at most one parent and each walk is linear.
  std::vector<bool> claimed(forest.nodes.size());
  for (const ConsumeEvent& c : consumes) {
    const Node& consumer = forest.nodes[c.consumer];
    if (!consumer.has_id) continue;
    auto found = producers.find({consumer.id, c.element_id});
    if (found == producers.end()) {
      ++out.unmatched_consumes;
      continue;
    }
    for (uint32_t p : found->second) {
      if (claimed[p]) {
        ++out.shared_producer_links;
        continue;
      }
      claimed[p] = true;
      edges.emplace_back(c.consumer, p);
      ++out.linked_producers;
    }
  }
  forest.Link(edges);
  return forest;
}

}  // namespace

bool IsTfDataEventName(std::string_view name) {
  const NameInfo info = ClassifyName(name);
  return info.role != EventRole::kOther || info.tf_data;
}

TfDataHost SummarizeTfData(const Host& host, const TfDataOptions& options, Diagnostics& diagnostics) {
  TfDataHost out;
  out.source = host.name;
  out.named_by_capture = !host.hostnames.empty() && !host.hostnames[0].empty();
  out.host = out.named_by_capture ? host.hostnames[0] : host.name;
  const Plane* plane = host.FindPlane(kHostPlaneName);
  if (plane == nullptr) return out;
  out.has_host_plane = true;

  int64_t clock_ps = 0;
  if (__builtin_mul_overflow(host.time_origin_ns, int64_t{1000}, &clock_ps)) {
    clock_ps = 0;
    out.absolute_clock = false;
  }

  Forest forest = BuildForest(host, *plane, options, out);

  // Iterator metadata: the first event of each id names it; iterator events
  // first, then the device-pipeline generators, whose parents are the roots
  // of device input pipelines.
  std::set<uint64_t> device_roots;
  absl::flat_hash_map<uint64_t, std::vector<uint32_t>> roots;
  std::vector<uint64_t> root_ids;
  auto note_iterator = [&](const Node& n) {
    auto [it, fresh] = out.iterators.try_emplace(n.id);
    if (!fresh) return false;
    TfDataIterator& meta = it->second;
    meta.id = n.id;
    meta.parent_id = n.has_parent ? n.parent_id : 0;
    meta.long_name = std::string(host.Str(plane->event_metadata[n.metadata].name));
    meta.name = std::string(ShortName(meta.long_name));
    meta.is_async = IsAsyncIteratorName(meta.name);
    return true;
  };
  for (uint32_t i = 0; i < forest.nodes.size(); ++i) {
    const Node& n = forest.nodes[i];
    if (n.generator || !n.has_id) continue;
    note_iterator(n);
    if (n.root) {
      auto& list = roots[n.id];
      if (list.empty()) root_ids.push_back(n.id);
      list.push_back(i);
    }
  }
  for (const Node& n : forest.nodes)
    if (n.generator && n.has_id && note_iterator(n) && n.has_parent) device_roots.insert(n.parent_id);

  // One pipeline per root iterator id. The reference numbers them in hash
  // order; we number them by root id so that names are stable.
  std::sort(root_ids.begin(), root_ids.end());
  int64_t host_count = 0, device_count = 0;
  std::vector<uint32_t> visited(forest.nodes.size(), 0);
  uint32_t execution = 0;  // Numbers the walks from 1, for `visited`.
  for (uint64_t root_id : root_ids) {
    TfDataPipeline p;
    p.root_id = root_id;
    p.source = host.name;
    bool device = device_roots.count(root_id) > 0;
    p.kind = device ? TfDataPipelineKind::kDevice : TfDataPipelineKind::kHost;
    p.name = device ? "Device:" + std::to_string(device_count++) : "Host:" + std::to_string(host_count++);
    std::vector<uint32_t>& calls = roots[root_id];
    std::stable_sort(calls.begin(), calls.end(),
                     [&](uint32_t a, uint32_t b) { return forest.nodes[a].duration_ps > forest.nodes[b].duration_ps; });
    int64_t sum = 0;
    p.min_ps = INT64_MAX;
    for (uint32_t r : calls) {
      const Node& root = forest.nodes[r];
      std::map<uint64_t, TfDataIteratorCall> per_iterator;
      ExecutionWalker walker(forest, per_iterator, clock_ps, visited, ++execution);
      walker.Visit(r, /*blocking=*/true, 0);
      if (walker.cut()) ++out.visit_limit_hits;
      TfDataExecution ex;
      ex.start_ps = SaturatingAdd(root.start_ps, clock_ps);  // A corrupt clock must not overflow.
      ex.duration_ps = root.duration_ps;
      for (auto& [iid, call] : per_iterator) {
        // Strictly more self time than the best so far, starting from 0.
        if (call.blocking && call.self_ps > ex.bottleneck_self_ps) {
          ex.bottleneck_id = iid;
          ex.bottleneck_self_ps = call.self_ps;
          ex.has_bottleneck = true;
        }
        ex.iterators.push_back(call);
      }
      sum += root.duration_ps;
      p.min_ps = std::min(p.min_ps, root.duration_ps);
      p.max_ps = std::max(p.max_ps, root.duration_ps);
      if (root.duration_ps > kTfDataSlowCallPs) ++p.slow_calls;
      p.executions.push_back(std::move(ex));
    }
    p.avg_ps = sum / static_cast<int64_t>(calls.size());
    out.pipelines.push_back(std::move(p));
  }

  if (out.visit_limit_hits) diagnostics.Add(diag_kind::kTfdataWalkLimit, host.name, out.visit_limit_hits);
  if (out.shared_producer_links)
    diagnostics.Add(diag_kind::kTfdataSharedProducer, host.name, out.shared_producer_links);
  if (out.unmatched_consumes) diagnostics.Add(diag_kind::kTfdataUnmatchedConsume, host.name, out.unmatched_consumes);
  return out;
}

uint64_t TfDataAnalysis::IteratorEvents() const {
  uint64_t n = 0;
  for (const TfDataHost& h : hosts) n += h.iterator_events;
  return n;
}

void CombineTfData(TfDataAnalysis& analysis, TfDataHost host) {
  auto same = std::find_if(analysis.hosts.begin(), analysis.hosts.end(),
                           [&](const TfDataHost& h) { return h.host == host.host; });
  if (same == analysis.hosts.end()) {
    analysis.hosts.push_back(std::move(host));
    return;
  }
  // Two capture files with one host name (two processes on one machine, or
  // a copied file): the reference keys its per-host result by name, so the
  // second file's result lands in the first's.
  TfDataHost& into = *same;
  if (std::find(analysis.merged_hosts.begin(), analysis.merged_hosts.end(), into.host) == analysis.merged_hosts.end())
    analysis.merged_hosts.push_back(into.host);
  into.source += "," + host.source;
  for (auto& [id, meta] : host.iterators) into.iterators.try_emplace(id, std::move(meta));
  // New pipelines are numbered again from 0 for each file, counting only the
  // ones the host did not have yet (the reference's counter restarts per file).
  int64_t host_count = 0, device_count = 0;
  for (TfDataPipeline& p : host.pipelines) {
    auto known = std::find_if(into.pipelines.begin(), into.pipelines.end(),
                              [&](const TfDataPipeline& q) { return q.root_id == p.root_id; });
    if (known == into.pipelines.end()) {
      bool device = p.kind == TfDataPipelineKind::kDevice;
      p.name = device ? "Device:" + std::to_string(device_count++) : "Host:" + std::to_string(host_count++);
      into.pipelines.push_back(std::move(p));
      continue;
    }
    for (TfDataExecution& ex : p.executions) known->executions.push_back(std::move(ex));
    known->min_ps = p.min_ps;
    known->avg_ps = p.avg_ps;
    known->max_ps = p.max_ps;
    known->slow_calls = p.slow_calls;
  }
  into.iterator_events += host.iterator_events;
  into.unsigned_ids += host.unsigned_ids;
  into.linked_producers += host.linked_producers;
  into.unmatched_consumes += host.unmatched_consumes;
  into.visit_limit_hits += host.visit_limit_hits;
  into.shared_producer_links += host.shared_producer_links;
  into.absolute_clock = into.absolute_clock && host.absolute_clock;
  into.signed_ids = into.signed_ids || host.signed_ids;
}

void FinalizeTfData(TfDataAnalysis& analysis) {
  analysis.bottlenecks.clear();
  for (const TfDataHost& h : analysis.hosts) {
    for (const TfDataPipeline& p : h.pipelines) {
      if (p.kind == TfDataPipelineKind::kDevice || p.executions.empty()) continue;
      const TfDataExecution& slowest = p.executions.front();
      TfDataBottleneck b;
      b.host = h.host;
      b.pipeline = p.name;
      b.root_id = p.root_id;
      b.root_id_text = TfDataIdText(p.root_id, h.signed_ids);
      b.max_latency_ps = p.max_ps;
      // With no blocking self time the reference falls back on iterator 0.
      b.iterator_id = slowest.bottleneck_id;
      b.iterator_self_ps = slowest.bottleneck_self_ps;
      if (auto it = h.iterators.find(b.iterator_id); it != h.iterators.end()) {
        b.iterator_name = it->second.name;
        b.iterator_long_name = it->second.long_name;
      }
      analysis.bottlenecks.push_back(std::move(b));
    }
  }
  std::stable_sort(
      analysis.bottlenecks.begin(), analysis.bottlenecks.end(),
      [](const TfDataBottleneck& a, const TfDataBottleneck& b) { return a.max_latency_ps > b.max_latency_ps; });
  analysis.input_bound =
      !analysis.bottlenecks.empty() && analysis.bottlenecks.front().max_latency_ps > kTfDataSlowCallPs;
  analysis.finalized = true;
}

std::string TfDataIdText(uint64_t id, bool signed_ids) {
  return signed_ids ? std::to_string(static_cast<int64_t>(id)) : std::to_string(id);
}

TfDataBottleneckKind ClassifyTfDataBottleneck(std::string_view name) {
  using K = TfDataBottleneckKind;
  static const absl::flat_hash_map<std::string_view, K> kKinds = {
      // Sources reading storage or memory.
      {"TFRecord", K::kSlowSource},
      {"SSTable", K::kSlowSource},
      {"RecordIO", K::kSlowSource},
      {"Spanner", K::kSlowSource},
      {"TFColumn", K::kSlowSource},
      {"SleepwalkRemoteDataset", K::kSlowSource},
      {"TextLine", K::kSlowSource},
      {"StitchedTimelineDataset", K::kSlowSource},
      {"DateKeyDataset", K::kSlowSource},
      {"CapacitorProto", K::kSlowSource},
      {"LMDB", K::kSlowSource},
      {"ExternalDataset", K::kSlowSource},
      {"PearModel", K::kSlowSource},
      {"FixedLengthRecordV2", K::kSlowSource},
      {"FromTensor", K::kSlowSource},
      {"TensorSlice", K::kSlowSource},
      {"Generator", K::kSlowSource},
      {"SyntheticDatasetOp", K::kSlowSource},
      {"DataService", K::kSlowDataService},
      // Sources on other machines.
      {"GuzzlerDataGuzzlerRemoteDataset", K::kSlowRemoteSource},
      {"ReverbDataset", K::kSlowRemoteSource},
      {"DatasetSampleGame", K::kSlowRemoteSource},
      {"Courier", K::kSlowRemoteSource},
      {"ReverbEpisodeDataset", K::kSlowRemoteSource},
      // Exact names only, as in the reference: ParallelMapV2, MapAndBatch,
      // BatchV2 ... fall through to kOther.
      {"Map", K::kTransformationWithParallelVersion},
      {"Interleave", K::kTransformationWithParallelVersion},
      {"Filter", K::kTransformationWithoutParallelVersion},
      {"Batch", K::kTransformationWithoutParallelVersion},
      {"Unbatch", K::kTransformationWithoutParallelVersion}};
  auto it = kKinds.find(name);
  return it == kKinds.end() ? K::kOther : it->second;
}

std::string_view TfDataBottleneckKindName(TfDataBottleneckKind kind) {
  switch (kind) {
    case TfDataBottleneckKind::kSlowSource: return "slow source";
    case TfDataBottleneckKind::kSlowDataService: return "slow tf.data service";
    case TfDataBottleneckKind::kSlowRemoteSource: return "slow remote source";
    case TfDataBottleneckKind::kTransformationWithParallelVersion: return "transformation with a parallel version";
    case TfDataBottleneckKind::kTransformationWithoutParallelVersion: return "sequential transformation";
    case TfDataBottleneckKind::kOther: return "other";
  }
  return "other";
}

std::string TfDataAdvice(TfDataBottleneckKind kind) {
  const std::string guide = "https://www.tensorflow.org/guide/";
  const std::string playbook = guide + "data_performance_analysis";
  const std::string cache =
      "2. Consider adding cache after this transformation if your data fits into memory and "
      "it is appropriate (e.g. no randomness such as shuffle upstream); see " +
      guide + "data_performance#caching. ";
  switch (kind) {
    case TfDataBottleneckKind::kSlowSource:
      return "1. Check the locality of the host and the input data: ideally the same cell, or at least the same "
             "region. 2. Parallelize reading from this dataset source; see " +
             playbook + "#source_datasets and " + guide + "data_performance#parallelizing_data_extraction.";
    case TfDataBottleneckKind::kSlowDataService:
      return "1. Fetching data from the tf.data service took a while: profile the tf.data service worker. "
             "2. See https://www.tensorflow.org/api_docs/python/tf/data/experimental/service for the service. "
             "3. See " +
             playbook + " for other suggestions.";
    case TfDataBottleneckKind::kSlowRemoteSource:
      return "1. The remote data source is slow: profile its host. 2. See " + playbook + " for other suggestions.";
    case TfDataBottleneckKind::kTransformationWithParallelVersion:
      return "1. Parallelize this transformation with num_parallel_calls=tf.data.AUTOTUNE; see " + guide +
             "data_performance#parallelizing_data_transformation. " + cache + "3. More in " + playbook +
             "#transformation_datasets.";
    case TfDataBottleneckKind::kTransformationWithoutParallelVersion:
      return "1. This transformation is inherently sequential: add outer parallelism by running several copies "
             "of the input pipeline over sharded inputs and combining the results; see " +
             playbook + "#transformation_datasets. " + cache + "3. More in " + playbook +
             "#3_are_you_reaching_high_cpu_utilization.";
    case TfDataBottleneckKind::kOther: break;
  }
  return "See " + playbook + " for suggestions.";
}

}  // namespace tfprof
