// Placeholder until the streaming reader lands.
#include "lib/read/chrome_trace_reader.h"

#include "lib/model/errors.h"

namespace tfprof {

Host ReadChromeTraceFile(const std::string& path, Diagnostics&, const ReadOptions&) {
  throw InputError(path, "Chrome trace JSON reading is not implemented yet");
}
Host ReadChromeTraceText(std::string_view, const std::string& path, Diagnostics&, const ReadOptions&) {
  throw InputError(path, "Chrome trace JSON reading is not implemented yet");
}

}  // namespace tfprof
