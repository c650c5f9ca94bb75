// Internal to the XPlane reader: a plane's chunks decoded on worker threads
// while the pre-scan is still framing the plane's later events.
//
// The pre-scan (one thread) cuts each line into chunks of events and hands
// each over as soon as its bytes are framed, before the line is counted to
// its end; the workers decode it meanwhile, and the pre-scan's thread joins
// them once the plane is framed. A chunk taken before its line's event
// array is sized decodes into an array of its own, copied into the line
// once it is; one taken after decodes in place. When a line's last chunk is
// decoded, its chunks' stats (and the events decoded aside) are copied into
// the line's pools, a chunk at a time, on whichever threads are free.
//
// A long line (kEarlyJoinBytes) of several chunks does better, its arrays
// sized from its first chunk's count per wire byte with a quarter to
// spare, unwritten (only what is used is ever touched):
// - events: the pre-scan sizes an array as it hands over the first chunk;
//   chunks taken before the line is counted decode in place into it, and
//   it becomes the line's when the count fits (SizeLine);
// - stats: once every chunk before it is joined, a decoded chunk's stats
//   are copied into a pool so sized, which becomes the line's, and the
//   chunk's own pool is kept for a chunk yet to decode.
// Measured on the 1 GB capture: the arrays of their own and the pools held
// until the line's end were each fresh memory, faulted in, zeroed and given
// back: with the copies, a quarter of `memory`'s CPU. A line denser than
// its first chunk foretold takes the slow way for what did not fit.
//
// The file's pages are mapped once: the pre-scan leaves them mapped and
// the decoders give each chunk's back once decoded. So that the pre-scan
// does not run far ahead with the pages it framed (the memory they take),
// its thread decodes the oldest queued chunk itself whenever the chunks
// handed over and not yet decoded hold more than `lead_bytes`, and more
// are queued than the other threads could take (it never leaves them
// idle). Before, the pre-scan gave pages back as it went and the decoders
// faulted them in again: measured on the 103 MiB T4 capture, the pages
// mapped twice were about a tenth of `op-stats`' CPU
// (docs/performance-history.md, session 27).
//
// What the result does not depend on: which thread decoded which chunk.
// Diagnostics are kept per chunk and merged in hand-over order; the error
// reported is the first chunk's (in hand-over order) that failed, and no
// chunk after it is decoded, as when the chunks are decoded in order.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lib/read/xplane_event_decoder.h"

namespace tfprof::xplane_wire {

// One line's chunks, and what its join waits for.
struct LineJoin {
  Line* line = nullptr;
  // In line order. Appended by the pre-scan only, under the pipeline's
  // mutex (the early join reads it under the mutex meanwhile); read
  // without it by the join, which starts after the pre-scan let go of the
  // line (`left`).
  std::vector<ChunkJob*> chunks;
  // One for the pre-scan's hold until it closes the line, and one per
  // chunk handed over and not yet decoded: the thread that brings it to 0
  // joins the line.
  std::atomic<size_t> left{1};
  // Chunks not yet copied into the line's pools, once the join started:
  // the thread that copies the last one finishes the join.
  std::atomic<size_t> copies_left{0};
  // Guarded by the pipeline's mutex: line->events is sized (chunks taken
  // from now on decode in place); the line was dropped (its chunks are not
  // joined: the pre-scan hands them over again).
  bool sized = false;
  bool dropped = false;
  bool sorted = true;  // Set when the join finishes.
  // The line's wire size, which the early join's pool is sized from.
  uint64_t wire_bytes = 0;
  // Guarded by the pipeline's mutex: the events array the pre-scan sized
  // from the line's first chunk, before the line is counted, for chunks to
  // decode in place; it becomes the line's if the line fits
  // (`early_in_line`), else the chunks decoded into it are copied out at
  // the join.
  std::vector<Event, DefaultInitAllocator<Event>> early_events;
  bool early_in_line = false;
  // Guarded by the pipeline's mutex: the early join. `stats` holds the
  // stats of the first `joined` chunks (`joined_stats` of them), sized by
  // the first (unwritten past them; empty until then); `full` when the
  // next chunk did not fit (the rest join at the line's end).
  StatPool stats;
  size_t joined = 0;
  uint64_t joined_stats = 0;
  bool full = false;
};

class ChunkPipeline {
 public:
  // `threads`: how many threads decode, the pre-scan's among them; with 1,
  // the pre-scan's thread decodes every chunk, in order: in Hand while it
  // runs more than `lead_bytes` ahead, the rest in Finish.
  // `early_join_bytes`: the shortest line whose stats join as its chunks
  // decode.
  // `lead_bytes`: how far ahead of the decoding the pre-scan may run (see
  // above; 0: kLeadBytes).
  ChunkPipeline(const PlaneContext& ctx, SharedBudget& budget, const ReleaseFn& release, const std::string& path,
                size_t threads, uint64_t early_join_bytes, bool in_turn = false, uint64_t lead_bytes = 0);
  // Lines shorter join at their end: a few chunks, whose pools are small,
  // and a line of one chunk takes its pool as it is.
  static constexpr uint64_t kEarlyJoinBytes = 4u << 20;
  // About five chunks of a T4 capture's host line.
  static constexpr uint64_t kLeadBytes = 8u << 20;
  // Stops and joins the workers (on an error of the pre-scan's side).
  ~ChunkPipeline();
  ChunkPipeline(const ChunkPipeline&) = delete;
  ChunkPipeline& operator=(const ChunkPipeline&) = delete;

  // The pre-scan's side (one thread).
  LineJoin& OpenLine(Line& line, uint64_t wire_bytes);
  // Hands over a chunk of `join`'s line whose bytes are framed (queued;
  // with one thread, decoded in Finish).
  void Hand(LineJoin& join, ChunkJob job);
  // Before a long line is counted, its first chunk framed: an events
  // array for its chunks to decode into, sized from that chunk's events
  // per wire byte.
  void SizeEarly(LineJoin& join, size_t first_events, uint64_t first_bytes);
  // The line's events array is sized (to the kept events of all its
  // chunks): the early one if they fit, else a new one.
  void SizeLine(LineJoin& join, size_t kept_events);
  // No more chunks for the line.
  void CloseLine(LineJoin& join);
  // Drops the chunks handed over for the line so far, decoded or not (the
  // line's id or timestamp changed after its first chunks were handed
  // over): the pre-scan opens the line again.
  void DropLine(LineJoin& join);

  // After the pre-scan: decodes what is left (on this thread too), waits
  // for every chunk, and rethrows the first failed chunk's error (in
  // hand-over order); else merges the chunks' diagnostics into `diag`, in
  // that order, and returns.
  void Finish(Diagnostics& diag);

  // Every chunk handed over, in order, and every line (once Finish
  // returned; dropped ones marked).
  std::deque<ChunkJob>& chunks() { return jobs_; }
  std::deque<LineJoin>& lines() { return joins_; }

 private:
  struct Work {
    ChunkJob* job;
    LineJoin* join;
    bool copy;  // Copy a decoded chunk into its line; else decode it.
  };
  void Worker(size_t index);
  // Takes the next work item under the lock; false when there is none.
  bool Take(std::unique_lock<std::mutex>& lock, Work& work);
  void Run(const Work& work, EventDecoder& decoder);
  void Decode(ChunkJob& job, LineJoin& join, EventDecoder& decoder);
  // The early join: claims (under the lock) the decoded chunks that now
  // follow the joined ones without a gap, and copies their stats in.
  void JoinDecoded(ChunkJob& job, LineJoin& join);
  bool Claim(LineJoin& join, ChunkJob& next);
  // A chunk's stats into `pool` from its `first_stat`, its events' ends
  // moved on by as much; its own pool is kept as a spare if `keep` and
  // there is room, else freed.
  void CopyStats(ChunkJob& job, Stat* pool, bool keep);
  void StartJoin(LineJoin& join);
  void Copy(ChunkJob& job, LineJoin& join);
  void FinishJoin(LineJoin& join);
  void Push(const Work& work, bool front);
  // On the pre-scan's thread: decodes queued chunks while it runs more
  // than lead_bytes_ ahead.
  void DecodeWhileAhead();
  void Stop();

  const PlaneContext& ctx_;
  SharedBudget& budget_;
  const ReleaseFn& release_;
  const std::string& path_;
  const size_t threads_;
  const uint64_t early_join_bytes_;
  const bool in_turn_;  // ReadOptions::decode_in_turn.
  const uint64_t lead_bytes_;
  // Wire bytes of the chunks handed over and not yet decoded (nor
  // dropped from the queue).
  std::atomic<uint64_t> undecoded_bytes_{0};
  std::deque<EventDecoder> decoders_;  // [0]: the pre-scan's thread.
  std::vector<std::thread> workers_;
  std::deque<ChunkJob> jobs_;   // Appended by the pre-scan; elements never move.
  std::deque<LineJoin> joins_;  // Likewise.
  uint64_t next_seq_ = 0;

  std::mutex mutex_;
  std::condition_variable ready_;  // Work queued, or stopping.
  std::condition_variable idle_;   // A work item finished (Finish waits for the last).
  std::deque<Work> queue_;
  size_t running_ = 0;                  // Work items taken and not finished.
  bool closed_ = false;                 // No more work will come: workers leave once the queue is empty.
  bool stopping_ = false;               // Leave now (an error on the pre-scan's side).
  uint64_t first_failed_ = UINT64_MAX;  // The seq of the first chunk that failed.
  // The pools of long lines' chunks once copied, for their chunks yet to
  // decode (still charged to the budget, at their capacity; at most one a
  // thread): fresh memory costs more than the copy it is spared.
  std::vector<StatPool> spare_pools_;
};

}  // namespace tfprof::xplane_wire
