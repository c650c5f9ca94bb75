// Captures built in code read back by the XSpace reader, and op-database rows
// by name: what the op-metrics tests share.
#pragma once

#include <string_view>

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/read/xplane_reader.h"
#include "lib/summary/op_metrics_db.h"
#include "tests/support/xspace_builder.h"

namespace tfprof::testing {

// `b` serialised and read as a file named t.xplane.pb would be (the reader's
// diagnostics are dropped: these captures are well formed).
inline Host ReadBuilt(const XSpaceBuilder& b) {
  Diagnostics d;
  return ReadXSpaceBytes(b.Serialize(), "t.xplane.pb", d);
}

// The row named `name` (any module), or null.
inline const OpMetrics* OpRow(const OpMetricsDb& db, std::string_view name) {
  for (const OpMetrics& m : db.rows())
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace tfprof::testing
