// GpuModelName: the device type the overview reports, as the reference
// (xprof's GpuModelName) names it: Nvidia's architecture by compute
// capability, AMD's GCN architecture from the device name or else its
// family, plain "GPU" for a device that names no vendor.
#include <catch2/catch.hpp>

#include "lib/summary/host_summary.h"

using namespace tfprof;

namespace {

DeviceProperties Device(std::string vendor, int major, int minor, std::string name = "") {
  DeviceProperties d;
  d.vendor = std::move(vendor);
  d.compute_cap_major = major;
  d.compute_cap_minor = minor;
  d.name = std::move(name);
  return d;
}

}  // namespace

TEST_CASE("GpuModelName names Nvidia and AMD devices as the reference does", "[overview]") {
  CHECK(GpuModelName(Device("Nvidia", 7, 5)) == "Nvidia GPU (Turing)");
  CHECK(GpuModelName(Device("Nvidia", 9, 0)) == "Nvidia GPU (Hopper)");
  CHECK(GpuModelName(Device("", 7, 0)) == "GPU");  // Older captures record no vendor.
  // AMD: the architecture the device name starts with, its feature flags cut.
  CHECK(GpuModelName(Device("AMD", 9, 4, "gfx942:sramecc+:xnack-")) == "AMD GPU - gfx942");
  CHECK(GpuModelName(Device("AMD", 9, 5, "gfx950")) == "AMD GPU - gfx950");
  // Else its family (a JAX MI355 capture names no device; Kineto writes the
  // marketing name).
  CHECK(GpuModelName(Device("AMD", 9, 5)) == "AMD GPU - gfx-9XX series");
  CHECK(GpuModelName(Device("AMD", 9, 4, "AMD Instinct MI300X")) == "AMD GPU - gfx-9XX series");
  CHECK(GpuModelName(Device("AMD", 11, 0, "gfx")) == "AMD GPU - gfx-11XX series");
  CHECK(GpuModelName(Device("AMD", 12, 0)) == "AMD GPU");
}
