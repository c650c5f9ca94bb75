// A std::ostream that gzips what is written to it into another stream, with
// ISA-L's deflate (level 1: the one ISA-L is fastest at; a trace export is
// written once and read by Perfetto, so speed matters more than the last
// few percent of size). Memory is the two buffers, whatever is written.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <streambuf>
#include <vector>

namespace tfprof {

class GzipOstream : public std::ostream {
 public:
  explicit GzipOstream(std::ostream& sink);
  ~GzipOstream() override;
  GzipOstream(const GzipOstream&) = delete;
  GzipOstream& operator=(const GzipOstream&) = delete;

  // Compresses what is buffered, ends the gzip stream and flushes the sink;
  // false when the sink failed. Called by the destructor if not before.
  bool Finish();

 private:
  class Buf;
  std::unique_ptr<Buf> buf_;
};

}  // namespace tfprof
