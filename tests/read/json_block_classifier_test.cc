// The scanner's block classifier (lib/read/json_block_classifier.h): every
// instruction set this machine has gives the masks worked out by hand, and
// the same masks as the portable code on real traces and on adversarial
// text (escapes at block edges, runs of backslashes, strings across blocks).
#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "lib/read/json_block_classifier.h"
#include "tests/support/corpus.h"

using tfprof::JsonBlockClassifier;
using Isa = JsonBlockClassifier::Isa;

namespace {

std::vector<Isa> SupportedIsas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::kPortable, Isa::kAvx2, Isa::kAvx512})
    if (JsonBlockClassifier::Supported(isa)) out.push_back(isa);
  return out;
}

struct Masks {
  std::vector<uint64_t> opens, closes;
  bool in_string = false;
  bool operator==(const Masks&) const = default;
};

// `text` classified in calls of `batch` blocks, its partial end as a tail.
Masks Classify(Isa isa, const std::string& text, size_t batch) {
  JsonBlockClassifier c(isa);
  Masks m;
  const size_t whole = text.size() / 64;
  m.opens.resize(whole + 1);
  m.closes.resize(whole + 1);
  for (size_t b = 0; b < whole; b += batch)
    c.Classify(text.data() + 64 * b, std::min(batch, whole - b), &m.opens[b], &m.closes[b]);
  c.ClassifyTail(text.data() + 64 * whole, text.size() % 64, &m.opens[whole], &m.closes[whole]);
  m.in_string = c.in_string();
  return m;
}

// The masks worked out a byte at a time, independently of the classifier:
// an unescaped quote opens or closes a string, and a backslash escapes the
// next byte wherever it is (as simdjson reads text: valid JSON has
// backslashes only in strings, and the random texts below are not valid).
Masks Reference(const std::string& text) {
  Masks m;
  m.opens.assign(text.size() / 64 + 1, 0);
  m.closes.assign(text.size() / 64 + 1, 0);
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool was_escaped = escaped;
    escaped = c == '\\' && !was_escaped;
    if (c == '"' && !was_escaped) {
      in_string = !in_string;
      continue;
    }
    if (in_string) continue;
    if (c == '{' || c == '[') m.opens[i / 64] |= uint64_t{1} << (i % 64);
    if (c == '}' || c == ']') m.closes[i / 64] |= uint64_t{1} << (i % 64);
  }
  m.in_string = in_string;
  return m;
}

// The bit of each byte of `text` (< 64 bytes) that is `c`.
uint64_t BitsOf(const std::string& text, char c) {
  uint64_t bits = 0;
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == c) bits |= uint64_t{1} << i;
  return bits;
}

TEST_CASE("The block classifier finds the brackets outside strings", "[scanner][classifier]") {
  // Brackets inside strings, an escaped quote, an escaped backslash before
  // a closing quote: only the marked ones count.
  const std::string text = R"({"a":"[{\"}","b\\":[1,{"c":"]"}]})";
  //                          ^              ^   ^          ^^^
  uint64_t opens = (uint64_t{1} << 0) | (uint64_t{1} << 19) | (uint64_t{1} << 22);
  uint64_t closes = (uint64_t{1} << 30) | (uint64_t{1} << 31) | (uint64_t{1} << 32);
  REQUIRE(text.size() == 33);
  REQUIRE(text[19] == '[');
  REQUIRE(text[22] == '{');
  REQUIRE(text[30] == '}');
  for (Isa isa : SupportedIsas()) {
    INFO("isa " << static_cast<int>(isa));
    const Masks m = Classify(isa, text, 1);
    CHECK(m.opens[0] == opens);
    CHECK(m.closes[0] == closes);
    CHECK_FALSE(m.in_string);
    // Open a string that the block does not close: nothing after it counts.
    const Masks open = Classify(isa, R"([{"x": "[[[)", 1);
    CHECK(open.opens[0] == 0b11);
    CHECK(open.in_string);
  }
  // The bit helper agrees on a string-free text.
  const Masks plain = Classify(Isa::kPortable, "[[{}]]", 1);
  CHECK(plain.opens[0] == (BitsOf("[[{}]]", '[') | BitsOf("[[{}]]", '{')));
}

TEST_CASE("The block classifier carries strings and escapes across blocks", "[scanner][classifier]") {
  // A backslash as the 64th byte escapes the first byte of the next block;
  // two backslashes there do not.
  std::string escaped = "[\"" + std::string(61, 'x') + "\\" + "\"]\"]";  // ["xx..x\"]"]
  REQUIRE(escaped[63] == '\\');
  std::string doubled = "[\"" + std::string(60, 'x') + "\\\\" + "\"]";  // ["xx..x\\"]
  REQUIRE(doubled[63] == '\\');
  for (Isa isa : SupportedIsas()) {
    INFO("isa " << static_cast<int>(isa));
    const Masks e = Classify(isa, escaped, 1);
    CHECK(e.opens[0] == 1);
    CHECK(e.closes[1] == uint64_t{1} << 3);  // Only the ']' after the real closing quote.
    CHECK_FALSE(e.in_string);
    const Masks d = Classify(isa, doubled, 1);
    CHECK(d.closes[1] == uint64_t{1} << 1);
    CHECK_FALSE(d.in_string);
  }
}

TEST_CASE("Every instruction set classifies like a byte-at-a-time reading", "[scanner][classifier]") {
  const std::vector<Isa> isas = SupportedIsas();
  INFO(isas.size() << " instruction sets here");
  std::vector<std::string> texts;
  // Random text over the bytes that matter, backslashes in runs.
  std::mt19937_64 rng(7);
  const std::string alphabet = "\"\\\\\\{}[]:,a ";
  for (int n : {1, 63, 64, 65, 640, 4096 + 17, 65536 + 100}) {
    std::string t(static_cast<size_t>(n), ' ');
    for (char& ch : t) ch = alphabet[rng() % alphabet.size()];
    texts.push_back(t);
  }
  // A real trace.
  std::ifstream in(tfprof::testing::SourcePath("testdata/captures/torch_mlp/trace.json"), std::ios::binary);
  std::stringstream trace;
  trace << in.rdbuf();
  REQUIRE(trace.str().size() > 100'000);
  texts.push_back(trace.str());
  for (const std::string& t : texts) {
    const Masks expected = Reference(t);
    for (Isa isa : isas)
      for (size_t batch : {1, 3, 64}) {
        INFO("isa " << static_cast<int>(isa) << " batch " << batch << " size " << t.size());
        CHECK(Classify(isa, t, batch) == expected);
      }
  }
}

}  // namespace
