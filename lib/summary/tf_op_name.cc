#include "lib/summary/tf_op_name.h"

#include <cctype>

#include "lib/util/ascii.h"

namespace tfprof {
namespace {

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// [A-Za-z0-9.][A-Za-z0-9_.\/>-]* (legacy: without '>' and '-').
bool IsTfOpName(std::string_view s, bool legacy) {
  if (s.empty() || !(IsAlnum(s[0]) || s[0] == '.')) return false;
  for (char c : s.substr(1))
    if (!(IsAlnum(c) || c == '_' || c == '.' || c == '/' || (!legacy && (c == '>' || c == '-')))) return false;
  return true;
}

// [A-Z_][a-zA-Z0-9_]*
bool IsTfOpType(std::string_view s) {
  if (s.empty() || !(std::isupper(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s.substr(1))
    if (!(IsAlnum(c) || c == '_')) return false;
  return true;
}

// [a-z_][a-z0-9_]*(\[.*\])?
bool IsJaxOpType(std::string_view s) {
  if (s.empty() || !(std::islower(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  size_t i = 1;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      break;
  }
  if (i == s.size()) return true;
  return s[i] == '[' && s.back() == ']';
}

// A type derived from the last path component, without a "_<digits>" suffix:
// "model/dense/relu_3" -> "relu".
std::string_view DeriveType(std::string_view name) {
  size_t slash = name.rfind('/');
  std::string_view last = slash == std::string_view::npos ? name : name.substr(slash + 1);
  size_t underscore = last.rfind('_');
  if (underscore != std::string_view::npos && underscore + 1 < last.size()) {
    bool digits = true;
    for (char c : last.substr(underscore + 1)) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (digits) last = last.substr(0, underscore);
  }
  return last;
}

}  // namespace

TfOp ParseTfOpFullname(std::string_view full, bool legacy_names) {
  size_t colon = full.find(':');
  if (colon == std::string_view::npos) {
    struct Memcpy {
      std::string_view prefix, type;
      OpCategory category;
    };
    for (const Memcpy& m : {Memcpy{"MEMCPYHToD", "MemcpyHToD", OpCategory::kMemcpyHToD},
                            Memcpy{"MEMCPYDToH", "MemcpyDToH", OpCategory::kMemcpyDToH},
                            Memcpy{"MEMCPYDToD", "MemcpyDToD", OpCategory::kMemcpyDToD},
                            Memcpy{"MEMCPYHToH", "MemcpyHToH", OpCategory::kMemcpyHToH}})
      if (StartsWithNoCase(full, m.prefix)) return {m.category, full, m.type};
    return {OpCategory::kUnknown, full, {}};
  }
  std::string_view left = full.substr(0, colon), right = full.substr(colon + 1);
  if (left == "Iterator") return {OpCategory::kTfData, full, "Dataset"};
  if (IsTfOpName(left, legacy_names) && IsTfOpType(right)) return {OpCategory::kTensorFlow, left, right};
  std::string_view type = right.empty() ? DeriveType(left) : right;
  if (IsJaxOpType(type)) return {OpCategory::kJax, left, type.substr(0, type.find('['))};
  if (right.empty()) return {OpCategory::kTensorFlow, left, type};
  return {OpCategory::kUnknown, full, {}};
}

}  // namespace tfprof
