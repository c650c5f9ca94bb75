// Builds small XSpace captures in code for tests, through the classes protoc
// generates from proto/xplane.proto (independent of the hand-written reader
// under test).
//
//   XSpaceBuilder space;
//   auto& host = space.Plane("/host:CPU");
//   host.Line(1, "python3", /*timestamp_ns=*/1000)
//       .Event("train", 0, 5'000'000, {{"step_num", int64_t{1}}, {"_r", int64_t{1}}});
//   std::string bytes = space.Serialize();
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "proto/xplane.pb.h"

namespace tfprof::testing {

// A microsecond in the picoseconds events are built with.
inline constexpr int64_t kUs = 1'000'000;

// A stat value: integers, unsigned, double, or a string (written as
// str_value, or as ref_value when wrapped in Ref).
struct Ref {
  std::string value;
};
using StatValue = std::variant<int64_t, uint64_t, double, std::string, Ref>;
using StatList = std::vector<std::pair<std::string, StatValue>>;

class PlaneBuilder;

class LineBuilder {
 public:
  LineBuilder(PlaneBuilder& plane, xplane::XLine* line) : plane_(plane), line_(line) {}
  // offset_ps is relative to the line's timestamp_ns.
  LineBuilder& Event(const std::string& name, int64_t offset_ps, int64_t duration_ps, const StatList& stats = {});
  xplane::XLine* proto() { return line_; }

 private:
  PlaneBuilder& plane_;
  xplane::XLine* line_;
};

class PlaneBuilder {
 public:
  explicit PlaneBuilder(xplane::XPlane* plane) : plane_(plane) {}
  LineBuilder Line(int64_t id, const std::string& name, int64_t timestamp_ns = 0);
  PlaneBuilder& Stat(const std::string& name, const StatValue& value);

  int64_t EventMetadataId(const std::string& name);
  int64_t StatMetadataId(const std::string& name);
  void FillStat(xplane::XStat* stat, const std::string& name, const StatValue& value);
  xplane::XPlane* proto() { return plane_; }

 private:
  xplane::XPlane* plane_;
  std::map<std::string, int64_t> event_ids_, stat_ids_;
};

class XSpaceBuilder {
 public:
  PlaneBuilder& Plane(const std::string& name, int64_t id = 0);
  XSpaceBuilder& Hostname(const std::string& h) {
    space_.add_hostnames(h);
    return *this;
  }
  xplane::XSpace& proto() { return space_; }
  std::string Serialize() const { return space_.SerializeAsString(); }
  // Writes the capture to a fresh temporary file and returns its path.
  std::string WriteTemp(const std::string& file_name) const;

 private:
  xplane::XSpace space_;
  std::vector<std::unique_ptr<PlaneBuilder>> planes_;
};

// A fresh empty folder under the system temp dir, removed at exit.
std::string TempDir();

// Protobuf wire bytes written by hand, for messages the builder cannot make
// (fields out of number order, a oneof with several values, huge counts).
namespace wire {
inline std::string Varint(uint64_t v) {
  std::string out;
  for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>((v & 0x7f) | 0x80));
  out.push_back(static_cast<char>(v));
  return out;
}
inline std::string VarintField(uint32_t field, uint64_t v) { return Varint(uint64_t{field} << 3) + Varint(v); }
inline std::string BytesField(uint32_t field, const std::string& bytes) {
  return Varint((uint64_t{field} << 3) | 2) + Varint(bytes.size()) + bytes;
}
}  // namespace wire

}  // namespace tfprof::testing
