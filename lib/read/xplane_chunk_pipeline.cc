#include "lib/read/xplane_chunk_pipeline.h"

#include <algorithm>
#include <utility>

namespace tfprof::xplane_wire {

ChunkPipeline::ChunkPipeline(const PlaneContext& ctx, SharedBudget& budget, const ReleaseFn& release,
                             const std::string& path, size_t threads)
    : ctx_(ctx), budget_(budget), release_(release), path_(path), threads_(std::max<size_t>(threads, 1)) {
  for (size_t t = 0; t < threads_; ++t) decoders_.emplace_back(ctx_, nullptr);
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

LineJoin& ChunkPipeline::OpenLine(Line& line) {
  LineJoin& join = joins_.emplace_back();
  join.line = &line;
  return join;
}

void ChunkPipeline::Hand(LineJoin& join, ChunkJob job) {
  budget_.Charge(Growth::kEvents, sizeof(ChunkJob), 0);
  ChunkJob& j = jobs_.emplace_back(std::move(job));
  j.seq = next_seq_++;
  join.chunks.push_back(&j);
  join.left.fetch_add(1, std::memory_order_relaxed);
  Push({&j, &join, false}, /*front=*/false);
}

void ChunkPipeline::MarkSized(LineJoin& join) {
  std::lock_guard<std::mutex> lock(mutex_);
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
    if (first_failed_ != UINT64_MAX && (work.copy || work.job->seq > first_failed_)) continue;
    if (work.join->dropped) continue;
    if (!work.copy) {
      ChunkJob& job = *work.job;
      job.decoded_aside = !work.join->sized;
      if (!job.decoded_aside) job.out = work.join->line->events.data() + job.first_event;
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
  try {
    if (work.copy) Copy(*work.job, *work.join);
    else Decode(*work.job, *work.join, decoder);
  } catch (...) {
    decoder.diag = Diagnostics();
    std::lock_guard<std::mutex> lock(mutex_);
    work.job->error = std::current_exception();
    first_failed_ = std::min(first_failed_, work.job->seq);
  }
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
  decoder.DecodeChunk(job, budget_, release_);
  job.diag = std::move(decoder.diag);
  decoder.diag = Diagnostics();
  if (join.left.fetch_sub(1, std::memory_order_acq_rel) == 1) StartJoin(join);
}

// Every chunk of the line is decoded: its pools go into the line's. A
// line of one chunk decoded in place takes the chunk's stats pool as it
// is; otherwise the line's pool is sized (unwritten) and the chunks are
// copied into it in parallel, the first here, the others queued ahead of
// any decoding (they free their pools and finish the line).
void ChunkPipeline::StartJoin(LineJoin& join) {
  Line& line = *join.line;
  const size_t n = join.chunks.size();
  if (n == 0) return;
  if (n == 1 && !join.chunks[0]->decoded_aside) {
    ChunkJob& job = *join.chunks[0];
    budget_.Charge(Growth::kStats, 0, job.stats.size());
    line.stats.swap(job.stats);
    job.stats_charged = 0;  // Now the line's.
    join.sorted = line.IsSorted();
    return;
  }
  uint64_t total = 0;
  for (ChunkJob* job : join.chunks) {
    job->first_stat = total;
    total += job->stats.size();
  }
  if (total > UINT32_MAX) throw InputError(path_, "a line has more than 4 billion stats; not supported");
  line.stats.resize(total);
  join.copies_left.store(n, std::memory_order_relaxed);
  for (size_t c = n; c-- > 1;) Push({join.chunks[c], &join, true}, /*front=*/true);
  Copy(*join.chunks[0], join);
}

// One chunk into its line: the events it decoded aside, its stats (their
// ends counted from the line's first stat), and whether they are in order.
void ChunkPipeline::Copy(ChunkJob& job, LineJoin& join) {
  Line& line = *join.line;
  Event* events = line.events.data() + job.first_event;
  if (job.decoded_aside) {
    std::copy_n(job.own_events.data(), job.kept_events, events);
    decltype(job.own_events)().swap(job.own_events);
    budget_.Release(Growth::kEvents, job.kept_events * sizeof(Event));
    job.decoded_aside = false;
  }
  const size_t n = job.stats.size();
  budget_.Charge(Growth::kStats, n * sizeof(Stat), n);
  std::copy_n(job.stats.data(), n, line.stats.data() + job.first_stat);
  if (job.first_stat != 0) {
    const auto base = static_cast<uint32_t>(job.first_stat);
    for (size_t i = 0; i < job.kept_events; ++i) events[i].stats_end += base;
  }
  StatPool().swap(job.stats);
  budget_.Release(Growth::kStats, job.stats_charged * sizeof(Stat));
  job.stats_charged = 0;
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
  // The chunks of dropped lines: what they hold goes, uncounted.
  for (ChunkJob& job : jobs_) {
    if (!job.dropped) continue;
    if (job.decoded_aside) budget_.Release(Growth::kEvents, job.kept_events * sizeof(Event));
    budget_.Release(Growth::kStats, job.stats_charged * sizeof(Stat));
    job = ChunkJob{};
    job.dropped = true;
  }
  for (const ChunkJob& job : jobs_)
    if (!job.dropped) diag.Merge(job.diag);
}

}  // namespace tfprof::xplane_wire
