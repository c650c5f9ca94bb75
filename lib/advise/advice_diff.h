// `diff BASE NEW` and `report BASE NEW`: which advisor findings appeared,
// went away or changed severity between two runs, so a change that fixes
// (or causes) an input-bound step or a straggler says so by name.
#pragma once

#include <string>

#include "lib/advise/finding.h"
#include "lib/report/report.h"
#include "lib/summary/run_summary.h"

namespace tfprof {

// Table `findings`: one row per rule that fired in either run, in the new
// run's order (then the resolved ones in the base's): `change` is new,
// resolved, worse, better or same (by severity).
Table FindingsDiffTable(const Advice& base, const Advice& next);
// One line for the report's head: "findings: 1 new (input_bound), 0 resolved".
std::string FindingsDiffLine(const Table& findings);

// Advises both runs (default thresholds) and adds the head line and the
// `findings` table to `diff`'s report (`diff` and `report BASE NEW`).
void AddFindingsDiff(const RunSummary& base, const RunSummary& next, Report& diff);

}  // namespace tfprof
