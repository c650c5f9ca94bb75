// Names from captures on their way to a terminal (table format, error
// lines) and into spreadsheets (CSV with --csv-safe).
#include <catch2/catch.hpp>

#include <sstream>

#include "lib/render/render.h"
#include "lib/render/terminal_text.h"

using namespace tfprof;

TEST_CASE("Control characters become visible escapes", "[render][escape]") {
  CHECK(EscapeForTerminal("MatMul") == "MatMul");
  CHECK(EscapeForTerminal("") == "");
  // OSC 0 (set the window title), terminated by BEL.
  CHECK(EscapeForTerminal("\x1b]0;owned\x07") == "\\x1b]0;owned\\x07");
  // CSI 2J (clear the screen), and a newline faking a second line.
  CHECK(EscapeForTerminal("a\x1b[2Jb\nc\rd\te") == "a\\x1b[2Jb\\nc\\rd\\te");
  CHECK(EscapeForTerminal(std::string("nul\0x", 5)) == "nul\\x00x");
  CHECK(EscapeForTerminal("del\x7f") == "del\\x7f");
  // C1 CSI (U+009B) as UTF-8, and as a lone byte (not UTF-8).
  CHECK(EscapeForTerminal("x\xc2\x9b"
                          "2J") == "x\\u009b2J");
  CHECK(EscapeForTerminal("x\x9b"
                          "2J") == "x\\x9b2J");
  // Right-to-left override and the line separator.
  CHECK(EscapeForTerminal("a\xe2\x80\xae"
                          "b\xe2\x80\xa8"
                          "c") == "a\\u202eb\\u2028c");
  // Overlong "/" (C0 AF) and a UTF-16 surrogate (ED A0 80) are not UTF-8.
  CHECK(EscapeForTerminal("\xc0\xaf") == "\\xc0\\xaf");
  CHECK(EscapeForTerminal("\xed\xa0\x80") == "\\xed\\xa0\\x80");
  // A truncated sequence at the end.
  CHECK(EscapeForTerminal("ok\xe2\x80") == "ok\\xe2\\x80");
}

TEST_CASE("Printable text passes unchanged, UTF-8 included", "[render][escape]") {
  for (const std::string s :
       {"sequential/dense/MatMul", "Δ %", "×3", "日本語", "emoji 😀", "back\\slash", "U+00A0:\xc2\xa0"})
    CHECK(EscapeForTerminal(s) == s);
}

TEST_CASE("The table view escapes every string it prints", "[render][escape]") {
  Report r;
  r.command = "info";
  r.lines = {"run \x1b]0;title\x07"};
  Table t{"t", "Title\x1b[2J", {}, {}};
  t.Add({"name", "na\nme"}).Add({"n", "n", ColumnType::kInt});
  t.NewRow() = {std::string("evil\n  fake row 99"), int64_t{1}};
  r.tables.push_back(t);
  r.notes = {"note\x1b[31m"};
  r.diagnostics.AddEntry(DiagnosticEntry{Severity::kWarning, "kind\x1b", "message\n", 1, "example\x1b[H"});
  std::ostringstream out;
  RenderText(r, RenderOptions{}, out);
  const std::string text = out.str();
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find('\x07') == std::string::npos);
  CHECK(text ==
        "run \\x1b]0;title\\x07\n"
        "\n"
        "Title\\x1b[2J\n"
        "  na\\nme               n\n"
        "  evil\\n  fake row 99  1\n"
        "\n"
        "note: note\\x1b[31m\n"
        "\n"
        "diagnostics:\n"
        "  warning  kind\\x1b ×1: message\\n (e.g. example\\x1b[H)\n");
}

TEST_CASE("CSV keeps names byte for byte, and the csv-safe option defuses formulas in text cells only",
          "[render][csv]") {
  Table t{"t", "T", {}, {}};
  t.Add({"name", "name"}).Add({"delta", "delta", ColumnType::kDouble, 1}).Add({"n", "n", ColumnType::kInt});
  t.NewRow() = {std::string("=HYPERLINK(\"http://x\",\"y\")"), -2.5, int64_t{-3}};
  t.NewRow() = {std::string("+1"), 0.0, int64_t{0}};
  t.NewRow() = {std::string("-x"), 0.0, int64_t{0}};
  t.NewRow() = {std::string("@SUM(A1)"), 0.0, int64_t{0}};
  t.NewRow() = {std::string("\tx"), 0.0, int64_t{0}};
  t.NewRow() = {std::string("\rx"), 0.0, int64_t{0}};
  t.NewRow() = {std::string("a=b\nc"), 0.0, int64_t{0}};
  t.NewRow() = {std::string("\x1b]0;t\x07"), 0.0, int64_t{0}};

  std::ostringstream plain;
  RenderCsv(t, plain);
  CHECK(plain.str() ==
        "name,delta,n\n"
        "\"=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",-2.5,-3\n"
        "+1,0.0,0\n"
        "-x,0.0,0\n"
        "@SUM(A1),0.0,0\n"
        "\tx,0.0,0\n"
        "\"\rx\",0.0,0\n"
        "\"a=b\nc\",0.0,0\n"
        "\x1b]0;t\x07,0.0,0\n");

  std::ostringstream safe;
  RenderCsv(t, safe, /*formula_safe=*/true);
  CHECK(safe.str() ==
        "name,delta,n\n"
        "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",-2.5,-3\n"  // Numbers stay numbers.
        "'+1,0.0,0\n"
        "'-x,0.0,0\n"
        "'@SUM(A1),0.0,0\n"
        "'\tx,0.0,0\n"
        "\"'\rx\",0.0,0\n"
        "\"a=b\nc\",0.0,0\n"  // '=' inside a cell starts no formula.
        "\x1b]0;t\x07,0.0,0\n");
}
