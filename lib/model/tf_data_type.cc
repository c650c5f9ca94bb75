#include "lib/model/tf_data_type.h"

#include <array>

#include "absl/strings/ascii.h"
#include "fmt/format.h"

namespace tfprof {
namespace {

// By enum value; a reference type is its base type + 100.
constexpr std::array<std::string_view, 31> kNames = {"INVALID",
                                                     "float",
                                                     "double",
                                                     "int32",
                                                     "uint8",
                                                     "int16",
                                                     "int8",
                                                     "string",
                                                     "complex64",
                                                     "int64",
                                                     "bool",
                                                     "qint8",
                                                     "quint8",
                                                     "qint32",
                                                     "bfloat16",
                                                     "qint16",
                                                     "quint16",
                                                     "uint16",
                                                     "complex128",
                                                     "half",
                                                     "resource",
                                                     "variant",
                                                     "uint32",
                                                     "uint64",
                                                     "float8_e5m2",
                                                     "float8_e4m3fn",
                                                     "float8_e4m3fnuz",
                                                     "float8_e4m3b11fnuz",
                                                     "float8_e5m2fnuz",
                                                     "int4",
                                                     "uint4"};
constexpr int64_t kRefOffset = 100;

}  // namespace

std::string DataTypeName(int64_t dt) {
  if (dt >= 0 && dt < static_cast<int64_t>(kNames.size())) return std::string(kNames[dt]);
  if (dt > kRefOffset && dt - kRefOffset < static_cast<int64_t>(kNames.size()))
    return std::string(kNames[dt - kRefOffset]) + "_ref";
  return fmt::format("unknown dtype enum ({})", dt);
}

std::optional<int64_t> DataTypeFromEnumName(std::string_view name) {
  if (name.substr(0, 3) != "DT_") return std::nullopt;
  std::string base = absl::AsciiStrToLower(absl::string_view(name.data() + 3, name.size() - 3));
  int64_t offset = 0;
  if (base.size() > 4 && base.substr(base.size() - 4) == "_ref") {
    base.resize(base.size() - 4);
    offset = kRefOffset;
  }
  if (base == "invalid") return std::nullopt;
  for (size_t i = 1; i < kNames.size(); ++i)
    if (kNames[i] == base) return static_cast<int64_t>(i) + offset;
  return std::nullopt;
}

}  // namespace tfprof
