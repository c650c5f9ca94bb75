#include "lib/read/trace_json_sniff.h"

#include <stdexcept>

#include "lib/model/errors.h"
#include "lib/read/byte_source.h"

namespace tfprof {

bool HasJsonName(const std::string& file_name) {
  for (std::string_view ext : {".json", ".json.gz"})
    if (file_name.size() > ext.size() && std::string_view(file_name).substr(file_name.size() - ext.size()) == ext)
      return true;
  return false;
}

size_t TextStart(std::string_view head) {
  size_t i = head.find_first_not_of(" \t\r\n");
  if (i != std::string_view::npos && head.compare(i, 3, "\xEF\xBB\xBF") == 0)
    i = head.find_first_not_of(" \t\r\n", i + 3);
  return i;
}

bool StartsLikeJson(std::string_view head) {
  const size_t i = TextStart(head);
  return i != std::string_view::npos && (head[i] == '{' || head[i] == '[');
}

bool HoldsTraceJson(std::string_view head) {
  if (!StartsLikeJson(head)) return false;
  const size_t i = TextStart(head);
  // The object form names its event list; the bare-array form (older
  // Kineto, other exporters) starts with an event, whose phase is "ph".
  return head.find("\"traceEvents\"", i) != std::string_view::npos || head.find("\"ph\"", i) != std::string_view::npos;
}

bool LooksLikeTraceJson(const std::string& path) {
  std::string head;
  try {
    head = PeekContent(path, kTraceSniffBytes);  // Inflates no further than it reads.
  } catch (const std::runtime_error&) {          // InputError and the inflater's errors.
    return false;  // Discovery only looks; reading reports what is wrong with a file it was given.
  }
  return HoldsTraceJson(head);
}

}  // namespace tfprof
