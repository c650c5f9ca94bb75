// Which rank of a distributed PyTorch job wrote a trace: Kineto writes a
// top-level {"distributedInfo": {"backend": "nccl", "rank": 1,
// "world_size": 8, ...}}. Hosts of such traces are named "rank<N>"
// (capture_loader.h), and `--host rank<N>` finds them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tfprof {

// The integer "rank" of a distributedInfo object given as JSON text; none
// when it is missing, null, negative or not an integer.
std::optional<int64_t> RankOfDistributedInfo(std::string_view json);

// What a trace's first 64 KiB say about its rank, read without parsing the
// whole file (Kineto writes distributedInfo before traceEvents; some
// rewritten traces have it at the end, where this says kUnknown).
struct PeekedRank {
  enum State { kUnknown, kNone, kRank } state = kUnknown;
  int64_t rank = 0;
};
PeekedRank PeekRank(const std::string& path);

// The host name of a rank: "rank3"; and whether a name is one.
std::string RankHostName(int64_t rank);
bool IsRankHostName(std::string_view name);

}  // namespace tfprof
