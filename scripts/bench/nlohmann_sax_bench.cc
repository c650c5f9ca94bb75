// The baseline the Chrome trace reader is measured against: nlohmann/json's
// SAX parser over the same file, doing nothing but counting objects (a lower
// bound for any reader built on it). Plain JSON only.
//
//   g++ -O2 -std=c++20 scripts/bench/nlohmann_sax_bench.cc -o /tmp/nlohmann_sax_bench
//   /usr/bin/time -v /tmp/nlohmann_sax_bench TRACE.json
#include <chrono>
#include <cstdio>
#include <fstream>

#include "nlohmann/json.hpp"

namespace {

struct CountingSax : nlohmann::json_sax<nlohmann::json> {
  size_t objects = 0, values = 0;
  bool null() override { return ++values; }
  bool boolean(bool) override { return ++values; }
  bool number_integer(number_integer_t) override { return ++values; }
  bool number_unsigned(number_unsigned_t) override { return ++values; }
  bool number_float(number_float_t, const string_t&) override { return ++values; }
  bool string(string_t&) override { return ++values; }
  bool binary(binary_t&) override { return ++values; }
  bool start_object(std::size_t) override { return ++objects; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s TRACE.json\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  auto start = std::chrono::steady_clock::now();
  CountingSax sax;
  bool ok = nlohmann::json::sax_parse(in, &sax);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %s, %zu objects, %zu values, %.2f s\n", argv[1], ok ? "parsed" : "FAILED", sax.objects, sax.values, s);
  return ok ? 0 : 1;
}
