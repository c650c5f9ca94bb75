#include "lib/summary/pytorch_runtime_facts.h"

#include <string_view>
#include <vector>

#include "lib/model/xplane_schema.h"

namespace tfprof {
namespace {

enum class Fact : uint8_t { kNone, kSingleProcessLoader, kWorkerLoader, kPageableH2D, kPinnedH2D, kGraphLaunch };

bool Contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// Decided once per event name (metadata), never per event.
Fact FactOf(std::string_view name) {
  if (name.substr(0, 21) == "enumerate(DataLoader)") {
    if (Contains(name, "_SingleProcessDataLoaderIter")) return Fact::kSingleProcessLoader;
    if (Contains(name, "_MultiProcessingDataLoaderIter")) return Fact::kWorkerLoader;
    return Fact::kNone;
  }
  if (name.substr(0, 11) == "Memcpy HtoD") {
    if (Contains(name, "(Pageable")) return Fact::kPageableH2D;
    if (Contains(name, "(Pinned")) return Fact::kPinnedH2D;
    return Fact::kNone;
  }
  if (name.substr(0, 15) == "cudaGraphLaunch") return Fact::kGraphLaunch;  // Also cudaGraphLaunch_v10000.
  return Fact::kNone;
}

}  // namespace

bool IsPyTorchRuntimeFactName(std::string_view name) { return FactOf(name) != Fact::kNone; }

PyTorchRuntimeFacts CollectPyTorchRuntimeFacts(const Host& host) {
  PyTorchRuntimeFacts f;
  if (host.framework != Framework::kPyTorch) return f;
  for (const Plane& plane : host.planes) {
    std::vector<Fact> facts(plane.event_metadata.size(), Fact::kNone);
    bool any = false;
    for (size_t m = 0; m < facts.size(); ++m) {
      // Copies were renamed to the XPlane's "MEMCPYHtoD"; the Kineto name
      // saying where the bytes came from is the display name.
      const EventMetadata& md = plane.event_metadata[m];
      facts[m] = FactOf(host.Str(md.display_name != StringPool::kEmpty ? md.display_name : md.name));
      any = any || facts[m] != Fact::kNone;
    }
    if (!any) continue;
    for (const Line& line : plane.lines) {
      // Derived lines repeat events of the real ones (as op metrics skip them).
      if (schema::IsDerivedLineId(line.id)) continue;
      for (const Event& e : line.events) {
        const uint64_t ps = static_cast<uint64_t>(e.duration_ps);
        switch (e.metadata < facts.size() ? facts[e.metadata] : Fact::kNone) {
          case Fact::kNone: break;
          case Fact::kSingleProcessLoader: ++f.single_process_loader_calls, f.single_process_loader_ps += ps; break;
          case Fact::kWorkerLoader: ++f.worker_loader_calls, f.worker_loader_ps += ps; break;
          case Fact::kPageableH2D: ++f.pageable_h2d_copies, f.pageable_h2d_ps += ps; break;
          case Fact::kPinnedH2D: ++f.pinned_h2d_copies, f.pinned_h2d_ps += ps; break;
          case Fact::kGraphLaunch: ++f.cuda_graph_launches; break;
        }
      }
    }
  }
  return f;
}

void AddPyTorchRuntimeFacts(PyTorchRuntimeFacts& into, const PyTorchRuntimeFacts& other) {
  into.single_process_loader_calls += other.single_process_loader_calls;
  into.single_process_loader_ps += other.single_process_loader_ps;
  into.worker_loader_calls += other.worker_loader_calls;
  into.worker_loader_ps += other.worker_loader_ps;
  into.pageable_h2d_copies += other.pageable_h2d_copies;
  into.pageable_h2d_ps += other.pageable_h2d_ps;
  into.pinned_h2d_copies += other.pinned_h2d_copies;
  into.pinned_h2d_ps += other.pinned_h2d_ps;
  into.cuda_graph_launches += other.cuda_graph_launches;
}

}  // namespace tfprof
