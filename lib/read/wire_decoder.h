// A bounds-checked decoder for the protobuf wire format. Every read checks
// the remaining length, so a truncated or corrupted capture ends in a clear
// WireError (with the byte offset) rather than a crash. It never allocates.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tfprof {

class WireError : public std::runtime_error {
 public:
  WireError(const std::string& what, uint64_t offset)
      : std::runtime_error(what + " at byte " + std::to_string(offset)), offset_(offset) {}
  uint64_t offset() const { return offset_; }

 private:
  uint64_t offset_;
};

// clang-format off
enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5 };
// clang-format on

class WireDecoder {
 public:
  // `base_offset` is where `bytes` starts in the file, for error messages.
  WireDecoder(std::string_view bytes, uint64_t base_offset = 0)
      : begin_(reinterpret_cast<const uint8_t*>(bytes.data())),
        p_(begin_),
        end_(begin_ + bytes.size()),
        limit_(end_),
        base_(base_offset) {}

  bool done() const { return p_ >= end_; }
  // The next byte, unread; -1 at the end.
  int PeekByte() const { return p_ < end_ ? *p_ : -1; }
  size_t size() const { return static_cast<size_t>(end_ - begin_); }
  uint64_t offset() const { return base_ + static_cast<uint64_t>(p_ - begin_); }

  // Whether the message's next byte is `tag` followed by a well-formed
  // varint, and that varint; reads nothing and never fails (for a peek
  // whose answer the full decode checks).
  bool PeekTaggedVarint(uint8_t tag, uint64_t* value) const {
    if (p_ >= end_ || *p_ != tag) return false;
    uint64_t v = 0;
    const uint8_t* q = p_ + 1;
    for (int shift = 0; shift < 64 && q < end_; shift += 7, ++q) {
      v |= static_cast<uint64_t>(*q & 0x7f) << shift;
      if (*q < 0x80) {
        *value = v;
        return true;
      }
    }
    return false;
  }

  // A varint at p, before end, into *value: past it, or null when it runs
  // past end or past 64 bits. Never fails (for a scan that leaves what it
  // does not take to the full decode).
  static const uint8_t* TryVarint(const uint8_t* p, const uint8_t* end, uint64_t* value) {
    uint64_t v = 0;
    for (int shift = 0; p < end; shift += 7) {
      const uint8_t b = *p++;
      if (shift == 63 && b > 1) return nullptr;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) {
        *value = v;
        return p;
      }
      if (shift == 63) return nullptr;
    }
    return nullptr;
  }

  // Past a varint at p, as TryVarint: where 8 bytes are left, its last byte
  // found in one load (times take 3 to 8 bytes; a byte loop mispredicts).
  static const uint8_t* TrySkipVarint(const uint8_t* p, const uint8_t* end) {
    if (end - p >= 8) {
      uint64_t x;
      std::memcpy(&x, p, 8);
      const uint64_t stops = ~x & 0x8080808080808080ull;
      if (stops != 0) return p + __builtin_ctzll(stops) / 8 + 1;
    }
    uint64_t ignored;
    return TryVarint(p, end, &ignored);
  }

  // Reads the next field's tag. Returns false at the end of the message.
  inline __attribute__((always_inline)) bool NextField(uint32_t* field, WireType* type) {
    if (p_ >= end_) return false;
    uint64_t tag = Varint();
    *field = static_cast<uint32_t>(tag >> 3);
    *type = static_cast<WireType>(tag & 7);
    if (__builtin_expect(*field == 0, 0)) Fail("field number 0 (not a protobuf message)");
    return true;
  }

  // Most varints on the wire are one or two bytes (tags, ids, small values):
  // those take a byte or two of checks; longer ones the one-load decode.
  inline __attribute__((always_inline)) uint64_t Varint() {
    if (__builtin_expect(p_ < end_, 1)) {
      const uint64_t b0 = p_[0];
      if (b0 < 0x80) {
        p_ += 1;
        return b0;
      }
      if (end_ - p_ >= 2) {
        const uint64_t b1 = p_[1];
        if (b1 < 0x80) {
          p_ += 2;
          return (b0 & 0x7f) | (b1 << 7);
        }
      }
    }
    return VarintSlow();
  }
  inline __attribute__((always_inline)) int64_t Int64() { return static_cast<int64_t>(Varint()); }

  uint64_t Fixed64() {
    if (end_ - p_ < 8) Fail("truncated fixed64");
    uint64_t v;
    std::memcpy(&v, p_, 8);
    p_ += 8;
    return v;
  }
  double Double() {
    uint64_t b = Fixed64();
    double d;
    std::memcpy(&d, &b, sizeof d);
    return d;
  }

  // A length-delimited payload (string, bytes or sub-message).
  inline __attribute__((always_inline)) std::string_view Bytes() {
    uint64_t n = Varint();
    if (__builtin_expect(n > static_cast<uint64_t>(end_ - p_), 0)) FailLength(n);
    std::string_view out(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return out;
  }
  [[noreturn]] __attribute__((noinline)) void FailLength(uint64_t n) const {
    Fail("length " + std::to_string(n) + " runs past the end of its message (" + std::to_string(end_ - p_) +
         " bytes left)");
  }
  // The part of this message between two offsets (as offset() reports them),
  // e.g. to hand a run of fields to another thread.
  WireDecoder Slice(uint64_t from, uint64_t to) const {
    if (from < base_ || to < from || to - base_ > static_cast<uint64_t>(end_ - begin_)) Fail("bad slice");
    return Within(begin_ + (from - base_), to - from, from);
  }

  // A sub-message, as a decoder that reports offsets within the file.
  inline __attribute__((always_inline)) WireDecoder Message() {
    std::string_view b = Bytes();
    const auto* at = reinterpret_cast<const uint8_t*>(b.data());
    return Within(at, b.size(), base_ + static_cast<uint64_t>(at - begin_));
  }

  void Skip(WireType type) {
    switch (type) {
      case kVarint: Varint(); return;
      case kFixed64: Advance(8); return;
      case kFixed32: Advance(4); return;
      case kLengthDelimited: Bytes(); return;
      default: Fail("unsupported wire type " + std::to_string(static_cast<int>(type)));
    }
  }

  // Checks a field has the wire type its schema says, so a corrupted byte
  // can't make us misread a length as a number or the reverse.
  inline void Expect(WireType got, WireType want, const char* what) {
    if (__builtin_expect(got != want, 0))
      Fail(std::string("field '") + what + "' has wire type " + std::to_string(static_cast<int>(got)) + ", expected " +
           std::to_string(static_cast<int>(want)));
  }

  [[noreturn]] void Fail(const std::string& what) const { throw WireError(what, offset()); }

  // For a caller that decodes a common field layout by hand: the next byte,
  // the end of this message, the end of the outermost buffer (loads may
  // reach that far), and a jump forward to a point within the message.
  const uint8_t* cursor() const { return p_; }
  const uint8_t* message_end() const { return end_; }
  const uint8_t* buffer_end() const { return limit_; }
  void JumpTo(const uint8_t* q) {
    if (__builtin_expect(q < p_ || q > end_, 0)) Fail("jump outside the message");
    p_ = q;
  }
  // Asks for the bytes `ahead` of the cursor (clamped to the buffer) to be
  // brought into the cache: for a sequential reader whose next reads
  // depend on what it is reading.
  void PrefetchAhead(size_t ahead) const {
    __builtin_prefetch(static_cast<size_t>(limit_ - p_) > ahead ? p_ + ahead : limit_ - 1);
  }

  // The value of a varint that must fill exactly `n` bytes at `at` (1 to
  // 8; for 3 to 8, `at` + 8 must lie within the outermost buffer): every
  // byte but the last has its continuation bit. False for any other bytes
  // (`value` is then meaningless).
  static inline __attribute__((always_inline)) bool ExactVarint(const uint8_t* at, size_t n, uint64_t* value) {
    // One or two bytes (small counts, ids, types): no compaction.
    if (n == 1) {
      *value = at[0];
      return at[0] < 0x80;
    }
    if (n == 2) {
      *value = (at[0] & 0x7fu) | (static_cast<uint64_t>(at[1]) << 7);
      return at[0] >= 0x80 && at[1] < 0x80;
    }
    uint64_t x;
    std::memcpy(&x, at, 8);
    const uint64_t stops = ~x & 0x8080808080808080ull;
    if (stops == 0 || static_cast<size_t>(__builtin_ctzll(stops)) != n * 8 - 1) return false;
    if (n < 8) x &= (uint64_t{1} << (n * 8)) - 1;
    *value = Compact(x);
    return true;
  }
  // The same for 9 or 10 bytes (a negative int64, a uint64 from 2^56 up),
  // `at` + 10 within the outermost buffer; Varint decodes them with it (of
  // a tenth byte only its lowest bit counts, the rest lies past 64 bits).
  static inline __attribute__((always_inline)) bool ExactLongVarint(const uint8_t* at, size_t n, uint64_t* value) {
    uint64_t x;
    std::memcpy(&x, at, 8);
    if ((~x & 0x8080808080808080ull) != 0) return false;  // Ends within eight bytes.
    const uint64_t b8 = at[8];
    if (n == 9) {
      *value = Compact(x) | (b8 << 56);
      return b8 < 0x80;
    }
    const uint64_t b9 = at[9];
    *value = Compact(x) | ((b8 & 0x7f) << 56) | (b9 << 63);
    return n == 10 && b8 >= 0x80 && b9 < 0x80;
  }

 private:
  // Timestamps, durations and 64-bit ids take 3 to 8 bytes. With 8 bytes
  // left they are decoded from one load, without a branch per byte (the
  // lengths vary event to event, so a byte loop mispredicts). Inline: every
  // event has two or three of them.
  inline __attribute__((always_inline)) uint64_t VarintSlow() {
    // The load may reach past this message's end, into the buffer the
    // outermost decoder was given (never past it): the last varint of a
    // small message (an event's duration) then needs no byte loop either.
    if (__builtin_expect(limit_ - p_ >= 8, 1)) {
      uint64_t x;
      static_assert(std::endian::native == std::endian::little, "the one-load varint reads little-endian");
      std::memcpy(&x, p_, 8);
      const uint64_t stops = ~x & 0x8080808080808080ull;  // High bit clear: a varint's last byte.
      if (__builtin_expect(stops != 0, 1)) {
        const int bits = __builtin_ctzll(stops) + 1;  // Through the last byte's high bit.
        if (__builtin_expect(bits / 8 > end_ - p_, 0)) {
          p_ = end_;  // Where the byte loop would have stopped.
          Fail("truncated varint");
        }
        p_ += bits / 8;
        if (bits < 64) x &= (uint64_t{1} << bits) - 1;
        return Compact(x);
      }
      // Nine or ten bytes: a negative int64 (or a uint64 from 2^56 up), as
      // some stats hold: the eight loaded bytes and one or two more.
      if (limit_ - p_ >= 10 && end_ - p_ >= 9) {
        uint64_t v;
        if (ExactLongVarint(p_, 9, &v)) {
          p_ += 9;
          return v;
        }
        if (end_ - p_ >= 10 && ExactLongVarint(p_, 10, &v)) {
          p_ += 10;
          return v;
        }
      }
    }
    return VarintTail();
  }
  // The 7-bit groups of eight varint bytes, without their continuation
  // bits: 7 → 14 → 28 → 56 bits.
  static inline __attribute__((always_inline)) uint64_t Compact(uint64_t x) {
    x &= 0x7f7f7f7f7f7f7f7full;
    x = ((x & 0x7f007f007f007f00ull) >> 1) | (x & 0x007f007f007f007full);
    x = ((x & 0x3fff00003fff0000ull) >> 2) | (x & 0x00003fff00003fffull);
    x = ((x & 0x0fffffff00000000ull) >> 4) | (x & 0x000000000fffffffull);
    return x;
  }
  // 9 or 10 bytes (negative int64s), or near the end of the message.
  __attribute__((noinline)) uint64_t VarintTail() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) Fail("truncated varint");
      uint8_t b = *p_++;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
    Fail("malformed varint (more than 10 bytes)");
  }

  void Advance(size_t n) {
    if (static_cast<size_t>(end_ - p_) < n) Fail("truncated field");
    p_ += n;
  }

  // A decoder for `size` bytes at `at` inside this one's buffer: same limit.
  WireDecoder Within(const uint8_t* at, size_t size, uint64_t base) const {
    WireDecoder d(std::string_view(reinterpret_cast<const char*>(at), size), base);
    d.limit_ = limit_;
    return d;
  }

  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
  const uint8_t* limit_;  // End of the outermost buffer: loads may read up to here.
  uint64_t base_;
};

}  // namespace tfprof
