// Reads Chrome trace event JSON (plain or gzip) into a Host: TensorFlow's
// `<host>.trace.json.gz`, TF1 `timeline.json`, PyTorch/Kineto and JAX traces.
//
// Input: `{"traceEvents": [...], ...}` or a bare `[...]` (which may lack its
// closing ']'); the file is streamed in 256 KB blocks and parsed with
// simdjson, so memory stays near the size of the model, not of the file.
// Top-level keys other than traceEvents are skipped, except
// "deviceProperties" (Kineto), "host_name" (-> Host.hostnames) and
// "distributedInfo" (Kineto: its rank -> Host.rank).
//
// Mapping onto the model:
//   pid -> Plane: Plane.id = pid; named by its process_name metadata, else
//     "pid <pid>". TensorFlow names them "/host:CPU" and "/device:GPU:0", as
//     the XPlane reader does. Kineto's process_labels ("GPU 0", "CPU") is
//     kept as the plane stat "labels", and "deviceProperties" fill the
//     DeviceProperties of the plane whose pid is the device id (unless it is
//     labelled other than "GPU ...").
//   (pid, tid) -> Line: Line.id = tid; named by thread_name, else "tid <tid>".
//   String pids and tids ("Spans", "stream 7") get stable synthetic ids from
//   2^48 up, in order of appearance, and are their plane's or line's name
//   when no metadata names it; strings holding a plain integer ("25772", as
//   older Kineto writes tids) are that integer.
//   Order: planes and lines with a process/thread_sort_index first, by it;
//   then the rest in order of first appearance in the file.
//   X -> an event; B/E -> one event, paired per thread by a stack (an E
//   closes the innermost open B, whatever its name; its args are dropped);
//   i/I -> an event of duration 0 on its thread (scope "g"/"p" included).
//   C -> one event per sample on the plane's line "_counters_", the args as
//   stats (also xprof's packed form "entries": [[ts, v1, ...], ...]).
//   Async b/e/n -> events on the plane's line "async <cat>", b/e paired by
//   (cat, id, name).
//   args -> event stats: integers as int64 (uint64 above INT64_MAX, their
//   digits as a string beyond that), other numbers as double, booleans as
//   0/1, strings as strings (TensorFlow writes every arg as a string; they
//   stay strings), objects and arrays as their JSON text; null is dropped.
//   "cat" is the stat "cat"; "id"/"id2" the stat "id"; flow v2 fields
//   bind_id/flow_in/flow_out the stats of those names.
//   Lines are sorted by (start, longer first), ties in file order.
//
// Then chrome_trace_conventions.h maps TensorFlow's trace viewer names
// (long_name) and Kineto's processes, streams, copies and correlation ids
// onto the XPlane conventions (/host:CPU, /device:GPU:<n>, correlation_id).
//
// Time: ts and dur are microseconds. Their decimal text is converted digit
// by digit to whole microseconds plus picoseconds, rounding at the 7th
// decimal, so 3-decimal epoch timestamps (1667559361123456.789) stay exact and
// %.17g noise (16476.700000000001) vanishes; exponent forms go through a
// double. Host.time_origin_ns is the first timed event's ts, floored to
// the microsecond, times 1000; Event.start_ps = ts_ps - time_origin_ns * 1000
// (negative for events before it), which keeps epoch-µs traces in range.
//
// Not read, but counted in the diagnostics (kind: severity): flow events s/t/f
// ("json.flow_events": info), object events N/O/D ("json.object_events":
// info), samples/marks/memory dumps ("json.unsupported_phase": info), other
// metadata ("json.other_metadata": info), unknown phases ("json.unknown_phase":
// warning), and everything that cannot be placed: "json.unmatched_end",
// "json.unclosed_begin", "json.async_unmatched_end",
// "json.async_unclosed_begin", "json.missing_ts", "json.missing_phase",
// "json.non_object_event", "json.bad_field_type" (warnings);
// "json.missing_duration", "json.negative_duration" (warnings: read as 0);
// "json.missing_pid"/"json.missing_tid" (info: placed on 0); "json.null_arg",
// "json.end_args_ignored", "json.unsorted_line" (info); "json.invalid_utf8",
// "json.unterminated_array" (warnings); "json.time_out_of_range",
// "json.too_deep", "json.too_many_stat_names", "json.line_too_large" (errors);
// "read.max_events_reached" (warning, counting the events not read);
// "json.number_out_of_range" (warning: an arg of 1e400 is read as the largest
// double, a pid or tid of 1e400 as the text "1e400").
#pragma once

#include <string>
#include <string_view>

#include "lib/model/diagnostics.h"
#include "lib/model/model.h"
#include "lib/read/read_options.h"

namespace tfprof {

// Throws InputError naming `path` when the file is unreadable, not JSON
// ("invalid JSON at byte N: ..."), or not a trace ("JSON but not a Chrome
// trace: no traceEvents array"). Host.name is the file name without
// .pt.trace.json(.gz), .trace.json(.gz) or .json(.gz).
Host ReadChromeTraceFile(const std::string& path, Diagnostics& diagnostics, const ReadOptions& options = {});

// The same from JSON text already in memory (not gzip); `path` is used in
// messages and for Host.name.
Host ReadChromeTraceText(std::string_view json, const std::string& path, Diagnostics& diagnostics,
                         const ReadOptions& options = {});

}  // namespace tfprof
