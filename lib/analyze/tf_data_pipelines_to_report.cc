#include "lib/analyze/tf_data_pipelines_to_report.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "fmt/format.h"

namespace tfprof {
namespace {

double Us(int64_t ps) { return static_cast<double>(ps) / 1e6; }
std::string UsText(int64_t ps) { return fmt::format("{:.1f} us", Us(ps)); }

// Which pipeline and call the graph shows.
struct Choice {
  const TfDataHost* host = nullptr;
  const TfDataPipeline* pipeline = nullptr;
  int64_t execution = 0;
};

const TfDataPipeline* FindPipeline(const TfDataHost& h, uint64_t root_id) {
  for (const TfDataPipeline& p : h.pipelines)
    if (p.root_id == root_id) return &p;
  return nullptr;
}

Choice Choose(const TfDataAnalysis& a, const TfDataReportOptions& o) {
  Choice c;
  if (o.pipeline.empty()) {
    if (!a.bottlenecks.empty()) {
      const TfDataBottleneck& top = a.bottlenecks.front();
      for (const TfDataHost& h : a.hosts)
        if (h.host == top.host && (c.pipeline = FindPipeline(h, top.root_id))) {
          c.host = &h;
          break;
        }
    } else {
      // Only device pipelines: draw the slowest one.
      for (const TfDataHost& h : a.hosts)
        for (const TfDataPipeline& p : h.pipelines)
          if (!p.executions.empty() && (!c.pipeline || p.max_ps > c.pipeline->max_ps)) c.host = &h, c.pipeline = &p;
    }
  } else {
    std::vector<Choice> found;
    for (const TfDataHost& h : a.hosts)
      for (const TfDataPipeline& p : h.pipelines)
        if (o.pipeline == h.host + "/" + p.name || o.pipeline == p.name ||
            o.pipeline == TfDataIdText(p.root_id, h.signed_ids))
          found.push_back({&h, &p, 0});
    std::string all;
    for (const TfDataHost& h : a.hosts)
      for (const TfDataPipeline& p : h.pipelines)
        all += (all.empty() ? "" : ", ") + h.host + "/" + p.name + " (root id " +
               TfDataIdText(p.root_id, h.signed_ids) + ")";
    if (found.empty())
      throw std::invalid_argument("--pipeline " + o.pipeline + " names no input pipeline (pipelines: " + all + ")");
    if (found.size() > 1)
      throw std::invalid_argument("--pipeline " + o.pipeline +
                                  " names several input pipelines; give a root id (pipelines: " + all + ")");
    c = found.front();
  }
  if (c.pipeline == nullptr) return c;
  const int64_t n = static_cast<int64_t>(c.pipeline->executions.size());
  if (o.execution < 0 || o.execution >= n)
    throw std::invalid_argument(fmt::format("--execution {} is out of range: {}/{} has {} execution(s), 0 = slowest",
                                            o.execution, c.host->host, c.pipeline->name, n));
  c.execution = o.execution;
  return c;
}

Table SummaryTable(const TfDataAnalysis& a) {
  Table t{"summary", "Input-bound ranking: each host pipeline's slowest call and its bottleneck", {}, {}};
  t.Add({"host", "host", ColumnType::kString, 0, 40})
      .Add({"pipeline", "pipeline"})
      .Add({"root_id", "root id"})
      .Add({"max_latency_us", "slowest call (us)", ColumnType::kDouble, 3}, "us")
      .Add({"bottleneck", "bottleneck"})
      .Add({"long_name", "long name", ColumnType::kString, 0, 60})
      .Add({"bottleneck_self_us", "bottleneck self (us)", ColumnType::kDouble, 3}, "us")
      .Add({"advice_kind", "kind"})
      .Add({"advice", "advice", ColumnType::kString, 0, 50});
  for (const TfDataBottleneck& b : a.bottlenecks) {
    TfDataBottleneckKind kind = ClassifyTfDataBottleneck(b.iterator_name);
    t.AddRow()
        .Set("host", b.host)
        .Set("pipeline", b.pipeline)
        .Set("root_id", b.root_id_text)
        .Set("max_latency_us", Us(b.max_latency_ps))
        .Set("bottleneck", b.iterator_name)
        .Set("long_name", b.iterator_long_name)
        .Set("bottleneck_self_us", Us(b.iterator_self_ps))
        .Set("advice_kind", std::string(TfDataBottleneckKindName(kind)))
        .Set("advice", TfDataAdvice(kind));
  }
  return t;
}

Table PipelinesTable(const TfDataAnalysis& a) {
  Table t{"pipelines", "Input pipelines (one call = one GetNext of the root iterator)", {}, {}};
  t.Add({"host", "host", ColumnType::kString, 0, 40})
      .Add({"pipeline", "pipeline"})
      .Add({"type", "type"})
      .Add({"root_id", "root id"})
      .Add({"calls", "calls", ColumnType::kInt}, "count")
      .Add({"min_us", "min (us)", ColumnType::kDouble, 3}, "us")
      .Add({"avg_us", "avg (us)", ColumnType::kDouble, 3}, "us")
      .Add({"max_us", "max (us)", ColumnType::kDouble, 3}, "us")
      .Add({"slow_calls", "calls > 50 us", ColumnType::kInt}, "count")
      .Add({"slowest_bottleneck", "bottleneck of slowest"})
      .Add({"source", "capture file host", ColumnType::kString, 0, 40});
  for (const TfDataHost& h : a.hosts)
    for (const TfDataPipeline& p : h.pipelines) {
      std::string bottleneck;
      if (!p.executions.empty() && p.executions.front().has_bottleneck)
        if (auto it = h.iterators.find(p.executions.front().bottleneck_id); it != h.iterators.end())
          bottleneck = it->second.name;
      t.AddRow()
          .Set("host", h.host)
          .Set("pipeline", p.name)
          .Set("type", std::string(p.kind == TfDataPipelineKind::kHost ? "host" : "device"))
          .Set("root_id", TfDataIdText(p.root_id, h.signed_ids))
          .Set("calls", static_cast<int64_t>(p.executions.size()))
          .Set("min_us", Us(p.min_ps))
          .Set("avg_us", Us(p.avg_ps))
          .Set("max_us", Us(p.max_ps))
          .Set("slow_calls", p.slow_calls)
          .Set("slowest_bottleneck", bottleneck)
          .Set("source", p.source);
    }
  return t;
}

// The iterators of one execution as a tree (by their parent ids), and the
// edges between them.
void GraphTables(const Choice& c, Table& nodes, Table& edges) {
  nodes = Table{"graph", "", {}, {}};
  nodes.Add({"host", "host", ColumnType::kString, 0, 30})
      .Add({"pipeline", "pipeline"})
      .Add({"execution", "execution", ColumnType::kInt})
      .Add({"depth", "depth", ColumnType::kInt})
      .Add({"tree", "iterator"})
      .Add({"id", "id"})
      .Add({"parent_id", "parent id"})
      .Add({"name", "name"})
      .Add({"long_name", "long name", ColumnType::kString, 0, 60})
      .Add({"start_us", "start (us)", ColumnType::kDouble, 3}, "us")
      .Add({"duration_us", "total (us)", ColumnType::kDouble, 3}, "us")
      .Add({"self_us", "self (us)", ColumnType::kDouble, 3}, "us")
      .Add({"calls", "calls", ColumnType::kInt}, "count")
      .Add({"async", "async", ColumnType::kBool})
      .Add({"critical_path", "critical path", ColumnType::kBool})
      .Add({"bottleneck", "bottleneck", ColumnType::kBool});
  edges = Table{"graph_edges", "Edges of the graph (parent -> child iterator)", {}, {}};
  edges.Add({"from", "from"})
      .Add({"to", "to"})
      .Add({"critical_path", "critical path", ColumnType::kBool})
      .Add({"async", "made ahead by an async parent", ColumnType::kBool});
  edges.detail = true;
  if (c.pipeline == nullptr) {
    nodes.title = "Iterator graph";
    return;
  }
  const TfDataExecution& ex = c.pipeline->executions[c.execution];
  nodes.title =
      fmt::format("Iterator graph of {}/{}, execution {} of {} ({}; {} total){}", c.host->host, c.pipeline->name,
                  c.execution, c.pipeline->executions.size(), c.execution == 0 ? "the slowest" : "0 = slowest",
                  UsText(ex.duration_ps), "; critical path = blocking the root");

  std::map<uint64_t, const TfDataIteratorCall*> by_id;
  for (const TfDataIteratorCall& it : ex.iterators) by_id[it.id] = &it;
  auto meta = [&](uint64_t id) -> const TfDataIterator* {
    auto it = c.host->iterators.find(id);
    return it == c.host->iterators.end() ? nullptr : &it->second;
  };
  // Children by parent id; an iterator whose parent is not in this
  // execution (or is itself) starts a tree of its own.
  std::map<uint64_t, std::vector<const TfDataIteratorCall*>> kids;
  std::vector<const TfDataIteratorCall*> tops;
  for (const TfDataIteratorCall& it : ex.iterators) {
    const TfDataIterator* m = meta(it.id);
    uint64_t parent = m ? m->parent_id : 0;
    if (m && parent != 0 && parent != it.id && by_id.count(parent)) kids[parent].push_back(&it);
    else tops.push_back(&it);
  }
  auto order = [&](const TfDataIteratorCall* a, const TfDataIteratorCall* b) {
    // The pipeline's root first, then by start time.
    bool ra = a->id == c.pipeline->root_id, rb = b->id == c.pipeline->root_id;
    if (ra != rb) return ra;
    return a->start_ps != b->start_ps ? a->start_ps < b->start_ps : a->id < b->id;
  };
  std::sort(tops.begin(), tops.end(), order);
  for (auto& [id, list] : kids) std::sort(list.begin(), list.end(), order);

  // Depth-first, children in start order; an edge is written when its
  // child is placed, so edges follow the tree's order too.
  struct Pending {
    const TfDataIteratorCall* it;
    int64_t depth;
    const TfDataIteratorCall* parent;
  };
  std::set<uint64_t> seen;
  std::vector<Pending> stack;
  for (auto it = tops.rbegin(); it != tops.rend(); ++it) stack.push_back({*it, 0, nullptr});
  // Iterators caught in a parent cycle (possible with merged ids) are not
  // reachable from any top; they start trees of their own at the end.
  size_t next_unseen = 0;
  std::vector<const TfDataIteratorCall*> all(ex.iterators.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = &ex.iterators[i];
  std::sort(all.begin(), all.end(), order);
  while (true) {
    if (stack.empty()) {
      while (next_unseen < all.size() && seen.count(all[next_unseen]->id)) ++next_unseen;
      if (next_unseen == all.size()) break;
      stack.push_back({all[next_unseen], 0, nullptr});
    }
    Pending at = stack.back();
    stack.pop_back();
    if (!seen.insert(at.it->id).second) continue;
    const TfDataIterator* m = meta(at.it->id);
    std::string name = m ? m->name : "?";
    bool has_parent = m && m->parent_id != 0;
    nodes.AddRow()
        .Set("host", c.host->host)
        .Set("pipeline", c.pipeline->name)
        .Set("execution", c.execution)
        .Set("depth", at.depth)
        .Set("tree", std::string(2 * at.depth, ' ') + name)
        .Set("id", TfDataIdText(at.it->id, c.host->signed_ids))
        .Set("parent_id", has_parent ? TfDataIdText(m->parent_id, c.host->signed_ids) : std::string())
        .Set("name", name)
        .Set("long_name", m ? m->long_name : std::string())
        .Set("start_us", Us(at.it->start_ps))
        .Set("duration_us", Us(at.it->duration_ps))
        .Set("self_us", Us(at.it->self_ps))
        .Set("calls", at.it->calls)
        .Set("async", m ? m->is_async : false)
        .Set("critical_path", at.it->blocking)
        .Set("bottleneck", ex.has_bottleneck && at.it->id == ex.bottleneck_id);
    if (at.parent) {
      const TfDataIterator* pm = meta(at.parent->id);
      edges.AddRow()
          .Set("from", TfDataIdText(at.parent->id, c.host->signed_ids))
          .Set("to", TfDataIdText(at.it->id, c.host->signed_ids))
          .Set("critical_path", at.parent->blocking && at.it->blocking)
          .Set("async", pm != nullptr && pm->is_async);
    }
    if (auto k = kids.find(at.it->id); k != kids.end())
      for (auto child = k->second.rbegin(); child != k->second.rend(); ++child)
        stack.push_back({*child, at.depth + 1, at.it});
  }
}

// The iterator graph as nodes and edges of the report's `graph` and
// `graph_edges` tables: the critical path bold, the bottleneck singled out,
// edges made ahead by an asynchronous parent dashed.
Graph TfDataGraph() {
  Graph g;
  g.name = "tf.data input pipeline";
  g.node_table = "graph";
  g.node_id = "id";
  g.label_columns = {"name", "self_us", "duration_us", "calls"};
  g.bold_column = "critical_path";
  g.highlight_column = "bottleneck";
  g.edge_table = "graph_edges";
  g.edge_bold_column = "critical_path";
  g.edge_dashed_column = "async";
  return g;
}

}  // namespace

Report BuildTfDataReport(const TfDataAnalysis& a, const TfDataReportOptions& o) {
  Report r;
  r.command = "tf-data";
  Choice choice = Choose(a, o);

  size_t pipelines = 0, device = 0;
  for (const TfDataHost& h : a.hosts)
    for (const TfDataPipeline& p : h.pipelines) {
      ++pipelines;
      if (p.kind == TfDataPipelineKind::kDevice) ++device;
    }
  r.lines.push_back(fmt::format("{} tf.data input pipeline(s) ({} device) on {} host(s), from {} iterator events.",
                                pipelines, device, a.hosts.size(), a.IteratorEvents()));
  if (!a.bottlenecks.empty()) {
    const TfDataBottleneck& top = a.bottlenecks.front();
    const TfDataHost* host = nullptr;
    for (const TfDataHost& h : a.hosts)
      if (h.host == top.host && FindPipeline(h, top.root_id)) host = &h;
    const TfDataPipeline* p = host ? FindPipeline(*host, top.root_id) : nullptr;
    r.lines.push_back(a.input_bound
                          ? "Verdict: INPUT BOUND - a tf.data input pipeline call took longer than 50 us."
                          : "Verdict: not input bound - no tf.data input pipeline call took longer than 50 us "
                            "(the job could still be input bound on workers this profile did not capture).");
    if (p)
      r.lines.push_back(
          fmt::format("Most input-bound: host {}, pipeline {} (root iterator {}): slowest call {}; "
                      "{} call(s), average {}, {} slower than 50 us.",
                      top.host, top.pipeline, top.root_id_text, UsText(top.max_latency_ps), p->executions.size(),
                      UsText(p->avg_ps), p->slow_calls));
    if (!top.iterator_name.empty()) {
      TfDataBottleneckKind kind = ClassifyTfDataBottleneck(top.iterator_name);
      r.lines.push_back(fmt::format("Bottleneck: {} ({}), {} of its own time in the slowest call ({}).",
                                    top.iterator_name, top.iterator_long_name, UsText(top.iterator_self_ps),
                                    TfDataBottleneckKindName(kind)));
      r.lines.push_back("What to do: " + TfDataAdvice(kind));
    } else {
      r.lines.push_back("Bottleneck: none (no iterator on the critical path had time of its own).");
    }
  } else if (device > 0) {
    r.lines.push_back(
        "Only device input pipelines (fed by Iterator::Prefetch::Generator) were captured; like the TensorFlow "
        "Profiler, the bottleneck ranking covers host pipelines only, so there is no verdict.");
  }

  r.tables.push_back(SummaryTable(a));
  r.tables.push_back(PipelinesTable(a));
  Table nodes, edges;
  GraphTables(choice, nodes, edges);
  r.tables.push_back(std::move(nodes));
  r.tables.push_back(std::move(edges));
  r.graphs.push_back(TfDataGraph());

  uint64_t unsigned_ids = 0;
  for (const TfDataHost& h : a.hosts) unsigned_ids += h.unsigned_ids;
  if (o.xprof_ids)
    r.notes.push_back(
        "--compat xprof: iterator ids were read as the TensorFlow Profiler reads them: ids of 2^63 or more (stored "
        "unsigned) count as 0, so those iterators are merged into one node '0' named after the first of them.");
  else if (unsigned_ids > 0)
    r.notes.push_back(fmt::format(
        "{} iterator events carry ids of 2^63 or more. The TensorFlow Profiler reads those as 0 and merges the "
        "iterators into one, which changes its graph and bottleneck self time (not the pipeline latencies); we "
        "keep them apart. --compat xprof reproduces the Profiler's numbers.",
        unsigned_ids));
  for (const std::string& h : a.merged_hosts)
    r.notes.push_back("Several capture files carry the host name '" + h +
                      "'; as in the TensorFlow Profiler their pipelines are reported under that one host (a "
                      "pipeline present in both gets the calls of both, and the figures of the last file).");
  bool epoch_clock = std::any_of(a.hosts.begin(), a.hosts.end(), [](const TfDataHost& h) { return !h.absolute_clock; });
  if (epoch_clock)
    r.notes.push_back("Start times are relative to the host's first trace line (the capture uses an epoch clock).");
  r.notes.push_back(
      "Times are in microseconds with fractions; the TensorFlow Profiler shows whole microseconds, truncated.");
  return r;
}

}  // namespace tfprof
