// Is the program input-bound, and why: the tf.data stage (TensorFlow), the
// DataLoader and its copies (PyTorch), gaps between steps.
#include <algorithm>

#include "fmt/format.h"
#include "lib/advise/rules.h"

namespace tfprof {

void InputBoundRule(RuleSink& sink) {
  constexpr std::string_view kId = "input_bound";
  const AdviseInputs& in = sink.in;
  if (std::string why = NoStepsReason(in); !why.empty()) return sink.Undecided(kId, why);
  const double pct = in.overview.bottleneck.input_percent, ms = in.CategoryMs(Category::kInput);
  const double min = sink.Threshold("input_bound.min_percent");
  if (pct < min) return sink.PassBelow(kId, "input", pct, " of the step time", min);
  Finding& f = sink.Fire(kId, ms,
                         fmt::format("Steps wait for input {} of the time: {} of the {} step ({}).", Percent(pct),
                                     Millis(ms), Millis(in.step_ms), in.overview.bottleneck.verdict));
  f.evidence.push_back({"input time, % of the step time", Percent(pct), "overview"});
  f.evidence.push_back({"input time per step (average)", Millis(ms), "steps"});
  if (in.overview.steps.host_to_device_ms.avg > 0)
    f.evidence.push_back(
        {"of which host-to-device copies per step", Millis(in.overview.steps.host_to_device_ms.avg), "input-pipeline"});
  if (in.pytorch) {
    const PyTorchRuntimeFacts& p = in.ops.pytorch;
    if (p.single_process_loader_calls)
      f.evidence.push_back({"DataLoader in the training process (num_workers=0)",
                            fmt::format("{} batches", p.single_process_loader_calls), "advise"});
    f.advice =
        "Load batches in DataLoader worker processes (num_workers > 0, persistent_workers=True, prefetch_factor), "
        "pin them (pin_memory=True) and copy with .to(device, non_blocking=True); move expensive per-sample "
        "preprocessing out of the loop. dataloader_workers and pin_memory say what the trace shows of these.";
    return;
  }
  size_t shown = 0;
  for (const InputOp& op : in.overview.input.ops) {
    if (shown++ == 3) break;
    f.evidence.push_back({"host input op: " + op.name,
                          fmt::format("{} self time, {} of input ops' self time", Millis(op.self_time_ms),
                                      Percent(100 * op.self_time_fraction)),
                          "input-pipeline"});
  }
  if (in.jax) {
    f.advice =
        "Produce batches ahead of the step: a loader that prefetches on other threads (tf.data with "
        ".prefetch(tf.data.AUTOTUNE), grain with worker processes) and puts the next batch on the device while the "
        "current step runs (jax.device_put ahead of time, flax's prefetch_to_device).";
    return;
  }
  f.advice =
      "Make the input pipeline produce batches ahead of the step: end it with .prefetch(tf.data.AUTOTUNE), "
      "parallelise map with num_parallel_calls=tf.data.AUTOTUNE, .cache() what does not change between epochs, "
      "read files in parallel with interleave; move heavy preprocessing offline. tf_data_stage names the slowest "
      "stage.";
}

void TfDataStageRule(RuleSink& sink) {
  constexpr std::string_view kId = "tf_data_stage";
  const AdviseInputs& in = sink.in;
  const TfDataAnalysis& t = in.tf_data;
  if (t.IteratorEvents() == 0)
    return sink.Undecided(kId,
                          "no tf.data iterator events (Iterator::...) in the capture: tf.data is not used, or its "
                          "events were not recorded");
  if (t.bottlenecks.empty()) return sink.Undecided(kId, "tf.data events, but no host input pipeline");
  const TfDataBottleneck& b = t.bottlenecks.front();
  const double latency_us = static_cast<double>(b.max_latency_ps) / 1e6;
  if (!t.input_bound)
    return sink.Pass(kId, fmt::format("the slowest pipeline call took {} (slow from {})", Micros(latency_us),
                                      Micros(static_cast<double>(kTfDataSlowCallPs) / 1e6)));
  if (b.iterator_name.empty())
    return sink.Undecided(
        kId, fmt::format("the slowest call ({}) has no blocking iterator with self time", Micros(latency_us)));
  std::optional<double> ms;
  const double self_ms = static_cast<double>(b.iterator_self_ps) / 1e9;
  if (NoStepsReason(in).empty()) {
    const double input_pct = in.overview.bottleneck.input_percent;
    if (input_pct < sink.Threshold("input_bound.min_percent"))
      return sink.Pass(kId, fmt::format("the slowest call took {} in {}, but steps wait only {} of the time for "
                                        "input (prefetching hides it)",
                                        Micros(latency_us), b.iterator_name, Percent(input_pct)));
    ms = std::min(self_ms, in.CategoryMs(Category::kInput));
  }
  const TfDataBottleneckKind kind = ClassifyTfDataBottleneck(b.iterator_name);
  Finding& f = sink.Fire(kId, ms,
                         fmt::format("tf.data's slowest stage is {} ({}): {} of the slowest {} call.", b.iterator_name,
                                     TfDataBottleneckKindName(kind), Millis(self_ms), Millis(latency_us / 1e3)));
  f.evidence.push_back({"pipeline", b.pipeline + " on " + b.host, "tf-data"});
  f.evidence.push_back({"slowest call's latency", Micros(latency_us), "tf-data"});
  f.evidence.push_back({"bottleneck iterator", b.iterator_long_name, "tf-data"});
  f.evidence.push_back({"its self time in that call", Millis(self_ms), "tf-data"});
  f.advice = TfDataAdvice(kind);
}

void DataLoaderWorkersRule(RuleSink& sink) {
  constexpr std::string_view kId = "dataloader_workers";
  const AdviseInputs& in = sink.in;
  const PyTorchRuntimeFacts& p = in.ops.pytorch;
  if (p.single_process_loader_calls + p.worker_loader_calls == 0)
    return sink.Undecided(kId,
                          "no DataLoader iteration (enumerate(DataLoader)#...) in the trace: the loop does not "
                          "iterate a torch.utils.data.DataLoader while profiled");
  if (p.single_process_loader_calls == 0)
    return sink.Pass(kId, fmt::format("the DataLoader uses worker processes ({} batches)", p.worker_loader_calls));
  if (std::string why = NoStepsReason(in); !why.empty()) return sink.Undecided(kId, why);
  const double ms = in.PerStepMs(static_cast<double>(p.single_process_loader_ps) / 1e9);
  const double pct = in.PercentOfStep(ms), min = sink.Threshold("dataloader_workers.min_percent");
  if (pct < min) return sink.PassBelow(kId, "the main-process DataLoader takes", pct, " of the step time", min);
  Finding& f = sink.Fire(kId, ms,
                         fmt::format("The DataLoader loads every batch in the training process (num_workers=0): {} "
                                     "per step, {} of the step.",
                                     Millis(ms), Percent(pct)));
  f.evidence.push_back({"batches loaded in the main process",
                        fmt::format("{} ({} each on average)", p.single_process_loader_calls,
                                    Millis(static_cast<double>(p.single_process_loader_ps) / 1e9 /
                                           static_cast<double>(p.single_process_loader_calls))),
                        "advise"});
  f.evidence.push_back({"their time, % of the step time", Percent(pct), "advise"});
  f.evidence.push_back({"input time, % of the step time", Percent(in.overview.bottleneck.input_percent), "overview"});
  f.advice =
      "Load batches in worker processes: DataLoader(num_workers=N) (start from the CPU cores per GPU), "
      "persistent_workers=True, prefetch_factor=2 or more; pin_memory=True has the loader copy each batch to pinned "
      "memory for a non-blocking transfer.";
}

void PinMemoryRule(RuleSink& sink) {
  constexpr std::string_view kId = "pin_memory";
  if (NoGpu(sink, kId)) return;
  const AdviseInputs& in = sink.in;
  const PyTorchRuntimeFacts& p = in.ops.pytorch;
  if (p.pageable_h2d_copies + p.pinned_h2d_copies == 0)
    return sink.Pass(kId, "no host-to-device copies with a known source memory in the trace");
  if (p.pageable_h2d_copies == 0)
    return sink.Pass(kId, fmt::format("all {} host-to-device copies read pinned memory", p.pinned_h2d_copies));
  if (std::string why = NoStepsReason(in); !why.empty()) return sink.Undecided(kId, why);
  const double ms = in.PerStepMs(static_cast<double>(p.pageable_h2d_ps) / 1e9);
  const double pct = in.PercentOfStep(ms), min = sink.Threshold("pin_memory.min_percent");
  if (pct < min)
    return sink.Pass(kId, fmt::format("{} pageable host-to-device copies take {} of the step time (fires from {})",
                                      p.pageable_h2d_copies, Percent(pct), Percent(min)));
  Finding& f = sink.Fire(kId, ms,
                         fmt::format("{} host-to-device copies read pageable memory: {} per step; the driver stages "
                                     "them through a pinned buffer and they cannot overlap compute.",
                                     p.pageable_h2d_copies, Millis(ms)));
  f.evidence.push_back({"pageable host-to-device copies", std::to_string(p.pageable_h2d_copies), "advise"});
  f.evidence.push_back({"their GPU time per step", Millis(ms), "advise"});
  f.evidence.push_back({"pinned host-to-device copies", std::to_string(p.pinned_h2d_copies), "advise"});
  f.advice =
      "Pin the batches: DataLoader(pin_memory=True), then tensor.to(device, non_blocking=True); allocate tensors "
      "made in the loop pinned (torch.empty(..., pin_memory=True)).";
}

void StepGapsRule(RuleSink& sink) {
  constexpr std::string_view kId = "step_gaps";
  const AdviseInputs& in = sink.in;
  if (std::string why = NoStepsReason(in); !why.empty()) return sink.Undecided(kId, why);
  if (in.whole_steps)
    return sink.Undecided(kId,
                          "the steps are separate session.run timelines (TF1): the time between them was not "
                          "profiled");
  if (in.gaps == 0) return sink.Undecided(kId, "no two consecutive steps on one host");
  // The gaps' share of the time from one step's start to the next's: the
  // share of the wall time they cost (they lie outside the step time).
  const double pct = 100 * in.gap_ms / (in.gap_ms + in.step_ms), min = sink.Threshold("step_gaps.min_percent");
  if (pct < min)
    return sink.Pass(kId, fmt::format("{} between steps on average, {} of the time from one step's start to the "
                                      "next's (fires from {})",
                                      Millis(in.gap_ms), Percent(pct), Percent(min)));
  Finding& f = sink.Fire(kId, in.gap_ms,
                         fmt::format("{} pass between one step's end and the next one's start on average ({} of the "
                                     "time from one step's start to the next's): the host does something else there.",
                                     Millis(in.gap_ms), Percent(pct)),
                         pct);
  f.evidence.push_back({"average gap between consecutive steps", Millis(in.gap_ms), "steps"});
  f.evidence.push_back({"gaps measured", std::to_string(in.gaps), "steps"});
  f.evidence.push_back({"average step time", Millis(in.step_ms), "overview"});
  f.evidence.push_back({"gaps' share of the time from one step's start to the next's", Percent(pct), "steps"});
  f.advice = in.pytorch || in.jax
                 ? "Look at the gaps in the timeline (tfprof-analyze trace): logging, checkpointing, evaluation, "
                   "host synchronisations (.item(), .cpu(), device_get / block_until_ready) or Python work between "
                   "steps; make them less frequent or move them off the training loop."
                 : "Look at the gaps in the timeline (tfprof-analyze trace): callbacks, checkpoints, summaries "
                   "and logging between steps; make them less frequent (e.g. steps_per_execution in "
                   "Model.compile, fewer TensorBoard writes) or asynchronous.";
}

}  // namespace tfprof
