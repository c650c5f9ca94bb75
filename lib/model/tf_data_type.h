// TensorFlow's DataType enum (tensorflow/core/framework/types.proto): the
// memory profile shows allocator events' `data_type` stat (the enum value)
// by name, and a TF1 timeline's tensor descriptions spell it (DT_FLOAT).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tfprof {

// TensorFlow's name for a DataType enum value ("float", "int64", "float_ref",
// "INVALID"), or "unknown dtype enum (N)".
std::string DataTypeName(int64_t data_type);

// The enum value of a DataType as a text proto spells it ("DT_FLOAT" -> 1,
// "DT_FLOAT_REF" -> 101); nullopt when it names none.
std::optional<int64_t> DataTypeFromEnumName(std::string_view name);

}  // namespace tfprof
