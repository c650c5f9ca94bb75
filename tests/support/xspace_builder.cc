#include "tests/support/xspace_builder.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace tfprof::testing {

LineBuilder& LineBuilder::Event(const std::string& name, int64_t offset_ps, int64_t duration_ps,
                                const StatList& stats) {
  xplane::XEvent* e = line_->add_events();
  e->set_metadata_id(plane_.EventMetadataId(name));
  e->set_offset_ps(offset_ps);
  e->set_duration_ps(duration_ps);
  for (const auto& [k, v] : stats) plane_.FillStat(e->add_stats(), k, v);
  return *this;
}

LineBuilder PlaneBuilder::Line(int64_t id, const std::string& name, int64_t timestamp_ns) {
  xplane::XLine* l = plane_->add_lines();
  l->set_id(id);
  l->set_name(name);
  l->set_timestamp_ns(timestamp_ns);
  return LineBuilder(*this, l);
}

PlaneBuilder& PlaneBuilder::Stat(const std::string& name, const StatValue& value) {
  FillStat(plane_->add_stats(), name, value);
  return *this;
}

namespace {

// The id of `name` in `ids`, numbered from `first_id` in order of first use;
// the first use also adds its entry to the plane's `metadata` map.
template <typename MetadataMap>
int64_t MetadataId(std::map<std::string, int64_t>& ids, int64_t first_id, MetadataMap& metadata,
                   const std::string& name) {
  auto [it, fresh] = ids.emplace(name, static_cast<int64_t>(ids.size()) + first_id);
  if (fresh) {
    auto& m = metadata[it->second];
    m.set_id(it->second);
    m.set_name(name);
  }
  return it->second;
}

}  // namespace

int64_t PlaneBuilder::EventMetadataId(const std::string& name) {
  return MetadataId(event_ids_, 1, *plane_->mutable_event_metadata(), name);
}

int64_t PlaneBuilder::StatMetadataId(const std::string& name) {
  // Stat ids start at 1000 so tests notice if event and stat ids get mixed up.
  return MetadataId(stat_ids_, 1000, *plane_->mutable_stat_metadata(), name);
}

void PlaneBuilder::FillStat(xplane::XStat* stat, const std::string& name, const StatValue& value) {
  stat->set_metadata_id(StatMetadataId(name));
  if (auto* i = std::get_if<int64_t>(&value)) stat->set_int64_value(*i);
  else if (auto* u = std::get_if<uint64_t>(&value)) stat->set_uint64_value(*u);
  else if (auto* d = std::get_if<double>(&value)) stat->set_double_value(*d);
  else if (auto* s = std::get_if<std::string>(&value)) stat->set_str_value(*s);
  else stat->set_ref_value(static_cast<uint64_t>(StatMetadataId(std::get<Ref>(value).value)));
}

PlaneBuilder& XSpaceBuilder::Plane(const std::string& name, int64_t id) {
  xplane::XPlane* p = space_.add_planes();
  p->set_name(name);
  p->set_id(id);
  planes_.push_back(std::make_unique<PlaneBuilder>(p));
  return *planes_.back();
}

std::string TempDir() {
  static std::atomic<int> counter{0};
  std::filesystem::path base = std::filesystem::temp_directory_path() /
                               ("tfprof_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::filesystem::remove_all(base);
  std::filesystem::create_directories(base);
  static struct Cleanup {
    std::vector<std::filesystem::path> dirs;
    ~Cleanup() {
      std::error_code ec;
      for (auto& d : dirs) std::filesystem::remove_all(d, ec);
    }
  } cleanup;
  cleanup.dirs.push_back(base);
  return base.string();
}

std::string XSpaceBuilder::WriteTemp(const std::string& file_name) const {
  std::string path = TempDir() + "/" + file_name;
  std::ofstream(path, std::ios::binary) << Serialize();
  return path;
}

}  // namespace tfprof::testing
