#include "lib/render/terminal_text.h"

#include <cstdint>

#include "fmt/format.h"

namespace tfprof {
namespace {

// Length of the valid UTF-8 sequence at `s[i]` and its code point; 0 when
// the bytes there are not one (overlong forms, surrogates and values above
// U+10FFFF are not).
size_t DecodeUtf8(std::string_view s, size_t i, uint32_t& code_point) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  size_t length;
  uint32_t min;
  if (lead >= 0xC2 && lead <= 0xDF) length = 2, min = 0x80, code_point = lead & 0x1F;
  else if (lead >= 0xE0 && lead <= 0xEF) length = 3, min = 0x800, code_point = lead & 0x0F;
  else if (lead >= 0xF0 && lead <= 0xF4) length = 4, min = 0x10000, code_point = lead & 0x07;
  else return 0;
  if (i + length > s.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(i + k) & 0x3F);
  }
  if (code_point < min || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF)) return 0;
  return length;
}

bool ControlsDisplay(uint32_t c) {
  return (c >= 0x80 && c <= 0x9F) || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069) || c == 0x2028 || c == 0x2029;
}

bool NeedsEscaping(std::string_view text) {
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x7F) return true;  // Non-ASCII is looked at closely below.
  }
  return false;
}

}  // namespace

std::string EscapeForTerminal(std::string_view text) {
  if (!NeedsEscaping(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 16);
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else if (c == '\t') out += "\\t";
      else if (c < 0x20 || c == 0x7F) out += fmt::format("\\x{:02x}", c);
      else out += static_cast<char>(c);
      ++i;
      continue;
    }
    uint32_t code_point = 0;
    const size_t length = DecodeUtf8(text, i, code_point);
    if (length == 0) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    } else {
      if (ControlsDisplay(code_point)) out += fmt::format("\\u{:04x}", code_point);
      else out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

}  // namespace tfprof
