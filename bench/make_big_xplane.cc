// Makes a large XSpace from a real one by repeating every line's events N
// times, each copy shifted past the previous, until the file reaches a target
// size. Used by scripts/bench/ to measure reading speed and memory on
// gigabyte captures. The output is assembled on the wire by hand because
// protobuf's classes cannot serialize a message of 2 GiB or more.
//
//   make_big_xplane SOURCE.xplane.pb TARGET_MIB OUT.xplane.pb
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "proto/xplane.pb.h"

namespace {

void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void PutField(std::string& out, uint32_t field, const std::string& payload) {
  PutVarint(out, (field << 3) | 2);
  PutVarint(out, payload.size());
  out += payload;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: make_big_xplane SOURCE.xplane.pb TARGET_MIB OUT.xplane.pb\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  tfprof::xplane::XSpace space;
  if (!space.ParseFromString(ss.str())) {
    std::cerr << "cannot parse " << argv[1] << "\n";
    return 1;
  }
  const uint64_t target = std::stoull(argv[2]) << 20;
  // Only the lines are repeated, so size the copies by the lines' bytes.
  uint64_t line_bytes = 0;
  for (const auto& p : space.planes())
    for (const auto& l : p.lines()) line_bytes += l.ByteSizeLong();
  const uint64_t copies = std::max<uint64_t>(1, target / std::max<uint64_t>(line_bytes, 1));

  // Shift each copy by the capture's whole span so copies never overlap.
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const auto& p : space.planes())
    for (const auto& l : p.lines())
      for (const auto& e : l.events()) {
        first = std::min(first, l.timestamp_ns() * 1000 + e.offset_ps());
        last = std::max(last, l.timestamp_ns() * 1000 + e.offset_ps() + e.duration_ps());
      }
  const int64_t shift = (last - first) + 1'000'000;

  std::ofstream out(argv[3], std::ios::binary | std::ios::trunc);
  uint64_t total = 0, events = 0;
  for (const auto& plane : space.planes()) {
    std::string body;
    tfprof::xplane::XPlane head = plane;
    head.clear_lines();
    body = head.SerializeAsString();  // id, name, metadata, stats
    for (const auto& line : plane.lines()) {
      tfprof::xplane::XLine lhead = line;
      lhead.clear_events();
      std::string lbytes = lhead.SerializeAsString();
      tfprof::xplane::XEvent e;
      for (uint64_t k = 0; k < copies; ++k) {
        for (const auto& src : line.events()) {
          e = src;
          e.set_offset_ps(src.offset_ps() + static_cast<int64_t>(k) * shift);
          PutField(lbytes, 4, e.SerializeAsString());
          ++events;
        }
      }
      PutField(body, 3, lbytes);
    }
    std::string framed;
    PutVarint(framed, (1u << 3) | 2);
    PutVarint(framed, body.size());
    out.write(framed.data(), static_cast<std::streamsize>(framed.size()));
    out.write(body.data(), static_cast<std::streamsize>(body.size()));
    total += framed.size() + body.size();
  }
  for (const auto& h : space.hostnames()) {
    std::string f;
    PutField(f, 4, h);
    out.write(f.data(), static_cast<std::streamsize>(f.size()));
    total += f.size();
  }
  std::cerr << "wrote " << argv[3] << ": " << total << " bytes, " << copies << " copies, " << events << " events\n";
  return out ? 0 : 1;
}
