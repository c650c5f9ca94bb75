#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "lib/read/wire_decoder.h"

using namespace tfprof;

namespace {

// The protobuf encoding of v: 7 bits per byte, low bits first, the high
// bit set on every byte but the last.
std::string Encode(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

}  // namespace

TEST_CASE("Varints of every length decode, whole words ahead or at the end of the message", "[wire]") {
  // One value per encoded length (1 to 10 bytes), with every 7-bit group
  // non-zero so a misplaced group shows, and the extremes.
  std::vector<uint64_t> values = {0, 1, 0x7f, 0x80, 0x3fff, 0x4000};
  for (int bytes = 1; bytes <= 10; ++bytes) {
    uint64_t v = 0;
    for (int g = 0; g < bytes && 7 * g < 64; ++g) v |= uint64_t{0x55 + static_cast<unsigned>(g)} << (7 * g);
    values.push_back(v);
    if (bytes < 10) values.push_back((uint64_t{1} << (7 * bytes)) - 1);  // All ones in `bytes` bytes.
  }
  values.push_back(UINT64_MAX);
  values.push_back(static_cast<uint64_t>(int64_t{-1}));
  values.push_back(static_cast<uint64_t>(INT64_MIN));
  for (uint64_t v : values) {
    const std::string enc = Encode(v);
    INFO("value " << v << " in " << enc.size() << " bytes");
    // Alone (fewer than 8 bytes after it: the byte-by-byte path), and
    // followed by padding (one load), and then a second varint behind it.
    for (size_t pad : {0, 1, 7, 9, 16}) {
      const std::string bytes = enc + std::string(pad, '\x01');
      WireDecoder d(bytes);
      CHECK(d.Varint() == v);
      CHECK(d.offset() == enc.size());
      if (pad > 0) CHECK(d.Varint() == 1);
    }
  }
}

TEST_CASE("Varints that run past the message or past 10 bytes fail", "[wire]") {
  const std::string truncated = "\xff\xff\xff";  // Every byte says more follows.
  WireDecoder t(truncated);
  CHECK_THROWS_WITH(t.Varint(), Catch::Contains("truncated varint"));
  const std::string eleven = std::string(11, '\xff') + std::string(8, '\x00');
  WireDecoder m(eleven);
  CHECK_THROWS_WITH(m.Varint(), Catch::Contains("more than 10 bytes"));
  // Eight continuation bytes then the end: the one-load path sees no last
  // byte and hands over to the checked loop.
  const std::string eight(8, '\x80');
  WireDecoder e(eight);
  CHECK_THROWS_WITH(e.Varint(), Catch::Contains("truncated varint"));
}

namespace {

// A message holding `inner` as field 1, then 16 more bytes of its own.
std::string InParent(const std::string& inner) {
  return "\x0a" + Encode(inner.size()) + inner + std::string(16, '\x01');
}

// The sub-message of field 1 at the start of `parent`.
WireDecoder FirstSubMessage(WireDecoder& parent) {
  uint32_t field;
  WireType type;
  REQUIRE(parent.NextField(&field, &type));
  return parent.Message();
}

}  // namespace

TEST_CASE("A sub-message's varints load past its end but never read past it", "[wire]") {
  // A parent holding a sub-message (field 1) whose last varint is cut by
  // the sub-message's end, followed by more parent bytes: the one-load
  // decode reads into them, and must still fail where the sub-message ends,
  // with the offset the byte-by-byte decode would give.
  for (int cut = 1; cut <= 9; ++cut) {
    INFO("varint cut after " << cut << " bytes");
    const std::string varint = Encode(UINT64_MAX);  // 10 bytes: cuts of 8 and 9 too.
    const std::string inner = "\x08" + varint.substr(0, static_cast<size_t>(cut));
    const std::string parent = InParent(inner);
    WireDecoder d(parent);
    WireDecoder sub = FirstSubMessage(d);
    REQUIRE(sub.Varint() == 8);  // The tag: field 1, varint.
    CHECK_THROWS_WITH(sub.Varint(), Catch::Contains("truncated varint at byte " + std::to_string(2 + inner.size())));
  }
  // Varints of every length that end exactly at the sub-message's end, with
  // parent bytes behind: read whole, and the sub-message is then done.
  for (uint64_t v : {uint64_t{5}, uint64_t{300}, uint64_t{1} << 20, uint64_t{1} << 40, uint64_t{1} << 55,
                     uint64_t{1} << 60, UINT64_MAX, static_cast<uint64_t>(int64_t{-2})}) {
    const std::string inner = "\x08" + Encode(v);
    const std::string parent = InParent(inner);
    WireDecoder d(parent);
    WireDecoder sub = FirstSubMessage(d);
    REQUIRE(sub.Varint() == 8);
    CHECK(sub.Varint() == v);
    CHECK(sub.done());
    CHECK(d.Varint() == 1);  // The parent goes on after the sub-message.
  }
}
