// Internal to the renderers: text appended in place to one string and
// handed to the stream 64 KiB at a time. A report's rows can run to
// hundreds of thousands (a memory timeline with every point), and a string
// per cell streamed piece by piece took most of the render (session 32).
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

namespace tfprof {

class ChunkedOutput {
 public:
  explicit ChunkedOutput(std::ostream& out) : out_(out) { text_.reserve(kChunk + 4096); }

  // Where to append.
  std::string& text() { return text_; }
  // Hands the text over once a chunk has gathered.
  void FlushIfFull() {
    if (text_.size() >= kChunk) Flush();
  }
  // Hands over what is gathered (the renderer, once it is done).
  void Flush() {
    out_.write(text_.data(), static_cast<std::streamsize>(text_.size()));
    text_.clear();
  }

 private:
  static constexpr size_t kChunk = size_t{1} << 16;
  std::ostream& out_;
  std::string text_;
};

}  // namespace tfprof
