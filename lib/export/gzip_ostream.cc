#include "lib/export/gzip_ostream.h"

#include <isa-l/igzip_lib.h>

#include <cstring>

namespace tfprof {

class GzipOstream::Buf : public std::streambuf {
 public:
  explicit Buf(std::ostream& sink) : sink_(sink), in_(size_t{1} << 20), out_(size_t{1} << 20) {
    isal_deflate_init(&z_);
    z_.gzip_flag = IGZIP_GZIP;
    z_.level = 1;
    level_buf_.resize(ISAL_DEF_LVL1_DEFAULT);
    z_.level_buf = level_buf_.data();
    z_.level_buf_size = static_cast<uint32_t>(level_buf_.size());
    setp(in_.data(), in_.data() + in_.size());
  }

  bool Finish() {
    if (finished_) return ok_;
    finished_ = true;
    Deflate(/*last=*/true);
    sink_.flush();
    return ok_ && static_cast<bool>(sink_);
  }

 protected:
  int_type overflow(int_type ch) override {
    if (finished_ || !Deflate(false)) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return ok_ ? 0 : -1; }

 private:
  // Compresses the buffered input (and ends the stream when `last`).
  bool Deflate(bool last) {
    const size_t n = static_cast<size_t>(pptr() - pbase());
    z_.next_in = reinterpret_cast<uint8_t*>(in_.data());
    z_.avail_in = static_cast<uint32_t>(n);
    z_.end_of_stream = last ? 1 : 0;
    z_.flush = NO_FLUSH;
    do {
      z_.next_out = out_.data();
      z_.avail_out = static_cast<uint32_t>(out_.size());
      if (isal_deflate(&z_) != COMP_OK) ok_ = false;
      const size_t produced = out_.size() - z_.avail_out;
      if (produced) sink_.write(reinterpret_cast<const char*>(out_.data()), static_cast<std::streamsize>(produced));
      if (!sink_) ok_ = false;
    } while (ok_ && (z_.avail_in > 0 || (last && z_.internal_state.state != ZSTATE_END)));
    setp(in_.data(), in_.data() + in_.size());
    return ok_;
  }

  std::ostream& sink_;
  std::vector<char> in_;
  std::vector<uint8_t> out_, level_buf_;
  isal_zstream z_{};
  bool ok_ = true, finished_ = false;
};

GzipOstream::GzipOstream(std::ostream& sink) : std::ostream(nullptr), buf_(std::make_unique<Buf>(sink)) {
  rdbuf(buf_.get());
}

GzipOstream::~GzipOstream() { buf_->Finish(); }

bool GzipOstream::Finish() {
  flush();
  return buf_->Finish();
}

}  // namespace tfprof
