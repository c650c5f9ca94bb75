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
  // AMD: the device name, its feature flags cut (xprof 2.24.2 on the
  // corpus's JAX MI300X capture, which names no device: "AMD GPU - gfx942").
  CHECK(GpuModelName(Device("AMD", 9, 4, "gfx942:sramecc+:xnack-")) == "AMD GPU - gfx942");
  CHECK(GpuModelName(Device("AMD", 9, 0, "gfx90a")) == "AMD GPU - gfx90a");
  CHECK(GpuModelName(Device("AMD", 9, 4, "AMD Instinct MI300X")) == "AMD GPU - AMD Instinct MI300X");  // Kineto's.
  // Else the one architecture of its compute capability, else its family.
  CHECK(GpuModelName(Device("AMD", 9, 4)) == "AMD GPU - gfx942");
  CHECK(GpuModelName(Device("AMD", 9, 5)) == "AMD GPU - gfx950");          // xprof 2.24.2 on an MI355 capture.
  CHECK(GpuModelName(Device("AMD", 9, 0)) == "AMD GPU - gfx-9XX series");  // gfx908 or gfx90a.
  CHECK(GpuModelName(Device("AMD", 11, 0)) == "AMD GPU - gfx-11XX series");
  CHECK(GpuModelName(Device("AMD", 12, 0)) == "AMD GPU");
}
