#include "lib/read/xplane_chunk_pipeline.h"

#include <algorithm>
#include <utility>

namespace tfprof::xplane_wire {
namespace {

// The early arrays: the line's first chunk's stats (or events) per wire
// byte over the whole line, with a quarter more for chunks a little
// denser. A stat or an event takes at least two bytes on the wire; a
// line's stats are counted in 32 bits; and no more than the memory budget
// has room for (`room` slots): a first chunk crafted dense reserves no
// more address space than the read may use.
size_t EarlySlots(uint64_t first_count, uint64_t first_bytes, uint64_t line_bytes, uint64_t room) {
  const double per_byte = static_cast<double>(first_count) / static_cast<double>(std::max<uint64_t>(first_bytes, 1));
  const double want = per_byte * static_cast<double>(line_bytes) * 1.25 + 4096;
  const double most =
      std::min({static_cast<double>(line_bytes) / 2 + 16, static_cast<double>(UINT32_MAX), static_cast<double>(room)});
  return static_cast<size_t>(std::min(want, most));
}

}  // namespace

ChunkPipeline::ChunkPipeline(const PlaneContext& ctx, SharedBudget& budget, const ReleaseFn& release,
                             const std::string& path, size_t threads, uint64_t early_join_bytes, bool in_turn,
                             uint64_t lead_bytes)
    : ctx_(ctx),
      budget_(budget),
      release_(release),
      path_(path),
      threads_(std::max<size_t>(threads, 1)),
      early_join_bytes_(early_join_bytes),
      in_turn_(in_turn && threads_ > 1),
      lead_bytes_(lead_bytes ? lead_bytes : kLeadBytes) {
  for (size_t t = 0; t < threads_; ++t) decoders_.emplace_back(ctx_, nullptr);
  spare_pools_.reserve(threads_);  // Kept under the lock: no allocation there.
  workers_.reserve(threads_ - 1);
  for (size_t t = 1; t < threads_; ++t) workers_.emplace_back([this, t] { Worker(t); });
}

ChunkPipeline::~ChunkPipeline() { Stop(); }

void ChunkPipeline::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (std::thread& t : workers_)
    if (t.joinable()) t.join();
}

LineJoin& ChunkPipeline::OpenLine(Line& line, uint64_t wire_bytes) {
  LineJoin& join = joins_.emplace_back();
  join.line = &line;
  join.wire_bytes = wire_bytes;
  return join;
}

void ChunkPipeline::Hand(LineJoin& join, ChunkJob job) {
  budget_.Charge(Growth::kEvents, sizeof(ChunkJob) + job.LeftOutBytes(), 0);
  ChunkJob& j = jobs_.emplace_back(std::move(job));
  j.seq = next_seq_++;
  join.left.fetch_add(1, std::memory_order_relaxed);
  {
    // Under the lock: the early join reads the line's chunks meanwhile.
    std::lock_guard<std::mutex> lock(mutex_);
    join.chunks.push_back(&j);
  }
  undecoded_bytes_.fetch_add(j.bytes.size(), std::memory_order_relaxed);
  Push({&j, &join, false}, /*front=*/false);
  if (!in_turn_ && undecoded_bytes_.load(std::memory_order_relaxed) > lead_bytes_) DecodeWhileAhead();
  if (in_turn_) {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [&] { return j.decoded || first_failed_ != UINT64_MAX || stopping_; });
  }
}

void ChunkPipeline::DecodeWhileAhead() {
  while (undecoded_bytes_.load(std::memory_order_relaxed) > lead_bytes_) {
    Work work;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // One queued item for each other thread stays for it to take.
      if (queue_.size() < threads_ || !Take(lock, work)) return;
    }
    Run(work, decoders_[0]);
  }
}

void ChunkPipeline::SizeEarly(LineJoin& join, size_t first_events, uint64_t first_bytes) {
  if (join.wire_bytes < early_join_bytes_) return;
  const size_t slots = EarlySlots(first_events, first_bytes, join.wire_bytes, budget_.room() / sizeof(Event));
  std::lock_guard<std::mutex> lock(mutex_);
  try {
    join.early_events.resize(slots);  // Address space only, until written.
  } catch (const std::bad_alloc&) {
    join.early_events = {};
  }
}

// The early array shrinks in place, its chunks' events where they are;
// the workers write through pointers into it, which the lock keeps from
// moving while they are handed out.
void ChunkPipeline::SizeLine(LineJoin& join, size_t kept_events) {
  std::lock_guard<std::mutex> lock(mutex_);
  Line& line = *join.line;
  if (!join.early_events.empty() && kept_events <= join.early_events.size()) {
    join.early_events.resize(kept_events);
    line.events.swap(join.early_events);
    join.early_in_line = true;
    // What its chunks charged is now the line's (charged whole by the
    // reader); a chunk not yet charged gives it back at once (Decode).
    for (ChunkJob* job : join.chunks)
      if (job->early_charged) {
        budget_.Release(Growth::kEvents, job->kept_events * sizeof(Event));
        job->early_charged = false;
      }
  } else {
    line.events.resize(kept_events);
  }
  join.sized = true;
}

void ChunkPipeline::CloseLine(LineJoin& join) {
  if (join.left.fetch_sub(1, std::memory_order_acq_rel) == 1) StartJoin(join);
}

void ChunkPipeline::DropLine(LineJoin& join) {
  std::lock_guard<std::mutex> lock(mutex_);
  join.dropped = true;
  for (ChunkJob* j : join.chunks) j->dropped = true;
}

void ChunkPipeline::Push(const Work& work, bool front) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (front) queue_.push_front(work);
    else queue_.push_back(work);
  }
  ready_.notify_one();
  idle_.notify_all();
}

bool ChunkPipeline::Take(std::unique_lock<std::mutex>&, Work& work) {
  while (!queue_.empty()) {
    work = queue_.front();
    queue_.pop_front();
    // After a failure nothing later is decoded (nor copied: the read fails).
    const bool skip =
        (first_failed_ != UINT64_MAX && (work.copy || work.job->seq > first_failed_)) || work.join->dropped;
    if (skip) {
      if (!work.copy) undecoded_bytes_.fetch_sub(work.job->bytes.size(), std::memory_order_relaxed);
      continue;
    }
    if (!work.copy) {
      ChunkJob& job = *work.job;
      LineJoin& join = *work.join;
      job.decoded_aside = !join.sized;
      if (!job.decoded_aside) job.out = join.line->events.data() + job.first_event;
      if (job.decoded_aside && job.first_event + job.kept_events <= join.early_events.size()) {
        job.decoded_aside = false;
        job.in_early = true;
        job.out = join.early_events.data() + job.first_event;
      }
      if (join.wire_bytes >= early_join_bytes_ && !spare_pools_.empty()) {
        job.stats = std::move(spare_pools_.back());
        spare_pools_.pop_back();
        job.stats_charged = job.stats.capacity();
      }
    }
    ++running_;
    return true;
  }
  return false;
}

void ChunkPipeline::Worker(size_t index) {
  for (;;) {
    Work work;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [&] { return stopping_ || closed_ || !queue_.empty(); });
      if (stopping_) return;
      if (!Take(lock, work)) {
        if (closed_) return;
        continue;
      }
    }
    Run(work, decoders_[index]);
  }
}

void ChunkPipeline::Run(const Work& work, EventDecoder& decoder) {
  // A chunk taken to decode is no longer ahead of the decoding, however
  // its decoding ends.
  const uint64_t taken_bytes = work.copy ? 0 : work.job->bytes.size();
  try {
    if (work.copy) Copy(*work.job, *work.join);
    else Decode(*work.job, *work.join, decoder);
  } catch (...) {
    decoder.diag = Diagnostics();
    std::lock_guard<std::mutex> lock(mutex_);
    work.job->error = std::current_exception();
    first_failed_ = std::min(first_failed_, work.job->seq);
  }
  undecoded_bytes_.fetch_sub(taken_bytes, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --running_;
  }
  idle_.notify_all();
}

void ChunkPipeline::Decode(ChunkJob& job, LineJoin& join, EventDecoder& decoder) {
  if (job.decoded_aside) {
    budget_.Charge(Growth::kEvents, job.kept_events * sizeof(Event), 0);
    job.own_events.resize(job.kept_events);
    job.out = job.own_events.data();
  }
  if (job.in_early) {
    budget_.Charge(Growth::kEvents, job.kept_events * sizeof(Event), 0);
    std::lock_guard<std::mutex> lock(mutex_);
    if (join.early_in_line) budget_.Release(Growth::kEvents, job.kept_events * sizeof(Event));
    else job.early_charged = true;
  }
  PopulateForWrite(job.out, job.kept_events * sizeof(Event));
  decoder.DecodeChunk(job, budget_, release_);
  job.diag = std::move(decoder.diag);
  decoder.diag = Diagnostics();
  JoinDecoded(job, join);
  if (join.left.fetch_sub(1, std::memory_order_acq_rel) == 1) StartJoin(join);
}

// Whichever thread decodes the chunk that closes a gap copies in every
// chunk the gap held back; the line's join (StartJoin) waits for it, as it
// waits for the decoding.
void ChunkPipeline::JoinDecoded(ChunkJob& job, LineJoin& join) {
  std::vector<ChunkJob*> claimed;
  Stat* pool = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job.decoded = true;
    if (join.dropped || join.full || join.wire_bytes < early_join_bytes_) return;
    while (join.joined < join.chunks.size() && join.chunks[join.joined]->decoded &&
           Claim(join, *join.chunks[join.joined])) {
      claimed.push_back(join.chunks[join.joined]);
      ++join.joined;
    }
    pool = join.stats.data();
  }
  for (ChunkJob* c : claimed) CopyStats(*c, pool, /*keep=*/true);
}

// Under the lock. The first chunk sizes the pool; a chunk that does not
// fit ends the early join.
bool ChunkPipeline::Claim(LineJoin& join, ChunkJob& next) {
  const size_t n = next.stats.size();
  if (join.stats.empty()) {
    // A line of one chunk takes the chunk's pool as it is (StartJoin).
    if (next.last) return false;
    const size_t slots = EarlySlots(n, next.bytes.size(), join.wire_bytes, budget_.room() / sizeof(Stat));
    try {
      join.stats.resize(slots);  // Address space only, until written.
    } catch (const std::bad_alloc&) {
      join.full = true;
      return false;
    }
  }
  if (join.joined_stats + n > join.stats.size()) {
    join.full = true;
    return false;
  }
  next.first_stat = join.joined_stats;
  join.joined_stats += n;
  next.stats_joined = true;
  return true;
}

void ChunkPipeline::CopyStats(ChunkJob& job, Stat* pool, bool keep) {
  const size_t n = job.stats.size();
  budget_.Charge(Growth::kStats, n * sizeof(Stat), n);
  PopulateForWrite(pool + job.first_stat, n * sizeof(Stat));
  std::copy_n(job.stats.data(), n, pool + job.first_stat);
  if (job.first_stat != 0) {
    const auto base = static_cast<uint32_t>(job.first_stat);
    for (size_t i = 0; i < job.kept_events; ++i) job.out[i].stats_end += base;
  }
  job.stats.clear();
  if (keep) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (spare_pools_.size() < threads_) {
      // A spare stays charged at its capacity.
      if (job.stats_charged > job.stats.capacity())
        budget_.Release(Growth::kStats, (job.stats_charged - job.stats.capacity()) * sizeof(Stat));
      spare_pools_.push_back(std::move(job.stats));
      job.stats = StatPool();
      job.stats_charged = 0;  // Now the spare's.
      return;
    }
  }
  StatPool().swap(job.stats);
  budget_.Release(Growth::kStats, job.stats_charged * sizeof(Stat));
  job.stats_charged = 0;
}

// Every chunk of the line is decoded: its pools go into the line's. A
// line of one chunk decoded in place takes the chunk's stats pool as it
// is; a line whose chunks all joined early takes the early join's pool;
// otherwise the line's pool is sized (unwritten), what joined early is
// copied to its start and the other chunks into it in parallel, the first
// here, the others queued ahead of any decoding (they give up their pools
// and finish the line). Each chunk's events decoded aside are copied in too.
void ChunkPipeline::StartJoin(LineJoin& join) {
  Line& line = *join.line;
  const size_t n = join.chunks.size();
  if (n == 0) return;
  if (n == 1 && join.joined == 0 && !join.chunks[0]->decoded_aside && !join.chunks[0]->in_early) {
    ChunkJob& job = *join.chunks[0];
    budget_.Charge(Growth::kStats, 0, job.stats.size());
    line.stats.swap(job.stats);
    job.stats_charged = 0;  // Now the line's.
    join.sorted = line.IsSorted();
    return;
  }
  // After the chunks joined early.
  uint64_t total = join.joined_stats;
  for (size_t c = join.joined; c < n; ++c) {
    join.chunks[c]->first_stat = total;
    total += join.chunks[c]->stats.size();
  }
  if (total > UINT32_MAX) throw InputError(path_, "a line has more than 4 billion stats; not supported");
  if (join.joined == n) {
    join.stats.resize(total);  // Gives back no memory: what is past `total` was never written.
    line.stats.swap(join.stats);
  } else {
    line.stats.resize(total);
    std::copy_n(join.stats.data(), join.joined_stats, line.stats.data());
    StatPool().swap(join.stats);
  }
  join.copies_left.store(n, std::memory_order_relaxed);
  for (size_t c = n; c-- > 1;) Push({join.chunks[c], &join, true}, /*front=*/true);
  Copy(*join.chunks[0], join);
}

// One chunk into its line: its stats unless they joined early (their
// ends counted from the line's first stat), the events it decoded aside,
// and whether they are in order.
void ChunkPipeline::Copy(ChunkJob& job, LineJoin& join) {
  Line& line = *join.line;
  if (!job.stats_joined) CopyStats(job, line.stats.data(), join.wire_bytes >= early_join_bytes_);
  Event* events = line.events.data() + job.first_event;
  if (job.in_early && !join.early_in_line) {
    std::copy_n(job.out, job.kept_events, events);
    budget_.Release(Growth::kEvents, job.kept_events * sizeof(Event));
    job.in_early = job.early_charged = false;
    job.out = events;  // The early array goes when the line's join finishes.
  }
  if (job.decoded_aside) {
    std::copy_n(job.own_events.data(), job.kept_events, events);
    decltype(job.own_events)().swap(job.own_events);
    budget_.Release(Growth::kEvents, job.kept_events * sizeof(Event));
    job.decoded_aside = false;
    job.out = events;
  }
  job.sorted = std::is_sorted(events, events + job.kept_events, EventBefore);
  if (join.copies_left.fetch_sub(1, std::memory_order_acq_rel) == 1) FinishJoin(join);
}

// The line is in order when each chunk is, and each chunk's first event
// does not come before the event ahead of it.
void ChunkPipeline::FinishJoin(LineJoin& join) {
  const Line& line = *join.line;
  bool sorted = true;
  for (const ChunkJob* job : join.chunks) {
    sorted = sorted && job->sorted;
    if (job->first_event > 0 && job->kept_events > 0)
      sorted = sorted && !EventBefore(line.events[job->first_event], line.events[job->first_event - 1]);
  }
  join.sorted = sorted;
  decltype(join.early_events)().swap(join.early_events);  // Copied out, if it was not the line's.
}

void ChunkPipeline::Finish(Diagnostics& diag) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  ready_.notify_all();
  // This thread works too until nothing is queued or running (a running
  // item may queue a line's copies).
  for (;;) {
    Work work;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      idle_.wait(lock, [&] { return !queue_.empty() || running_ == 0; });
      if (!Take(lock, work)) {
        if (running_ == 0) break;
        continue;
      }
    }
    Run(work, decoders_[0]);
  }
  Stop();
  // The first failure, whichever line it was of: a dropped line's chunk
  // fails on the same bytes when handed over again.
  if (first_failed_ != UINT64_MAX) std::rethrow_exception(jobs_[first_failed_].error);
  // The chunks of dropped lines: what they hold goes, uncounted; and the
  // spare pools.
  for (LineJoin& join : joins_) {
    if (!join.dropped) continue;
    budget_.Release(Growth::kStats, join.joined_stats * sizeof(Stat));
    StatPool().swap(join.stats);
    decltype(join.early_events)().swap(join.early_events);
  }
  for (StatPool& pool : spare_pools_) budget_.Release(Growth::kStats, pool.capacity() * sizeof(Stat));
  spare_pools_.clear();
  for (ChunkJob& job : jobs_) {
    if (!job.dropped) continue;
    if (job.decoded_aside || job.early_charged) budget_.Release(Growth::kEvents, job.kept_events * sizeof(Event));
    budget_.Release(Growth::kEvents, job.LeftOutBytes());  // A chunk dropped before it was decoded.
    budget_.Release(Growth::kStats, job.stats_charged * sizeof(Stat) + job.records_charged * sizeof(AllocatorStats));
    job = ChunkJob{};
    job.dropped = true;
  }
  for (const ChunkJob& job : jobs_)
    if (!job.dropped) diag.Merge(job.diag);
}

}  // namespace tfprof::xplane_wire
