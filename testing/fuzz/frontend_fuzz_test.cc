// Feeds 100,000 mutated programs (a fixed, seeded set) through parse, verify
// and print. Every input must either be accepted -- and then print, re-parse
// to a structurally equal program and print to the same text -- or be rejected
// with a located user error. A crash, a hang (the test's timeout), an internal
// error or an unlocated error fails the test and prints the input.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/ir/printer.h"
#include "compiler/ir/structural_equal.h"
#include "compiler/ir/verifier.h"
#include "compiler/parser/parser.h"
#include "compiler/support/diagnostics.h"
#include "gtest/gtest.h"
#include "testing/generators/program_generator.h"

namespace pto {
namespace {

constexpr int kChunks = 10;
constexpr int kPerChunk = 10'000;  // 100,000 mutants in all

const std::vector<std::string>& Corpus() {
  static const auto* corpus = [] {
    auto* c = new std::vector<std::string>();
    std::vector<std::filesystem::path> files;
    for (const char* dir : {"examples", "testing/fuzz/corpus"}) {
      for (const auto& e : std::filesystem::directory_iterator(dir)) {
        if (e.path().extension() == ".pto") files.push_back(e.path());
      }
    }
    std::sort(files.begin(), files.end());  // directory order is not stable
    for (const auto& p : files) {
      std::ifstream in(p, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      c->push_back(ss.str());
    }
    c->push_back(testing::GenerateProgram(2000, 7));
    return c;
  }();
  return *corpus;
}

const char* const kTokens[] = {
    "(",       ")",      "[",        "]",      ":",         ",",       "=",       "\n",
    "    ",    "\t",     "\\\n",     "#",      "\"",        "'",       "\"\"\"",  "pl.",
    "pld.",    "self.",  "for ",     "if ",    "else:",     "while ",  "return ", "yield_",
    "lambda",  "import", "class ",   "def ",   "@pl.function", "0x",   "1e999",   "-",
    "not ",    "...",    "**",       "//",     "pl.range(", "pld.window(", "init_values=",
    "device=", "pl.Out[", "pl.Tensor[[", "tuple[", "pl.yield_(", "\xff", "" /* a NUL byte */,
    "99999999999999999999", "pl.const(", "with ", "pass", "True", "None", "->", "%",
};

std::string Mutate(std::string s, std::mt19937_64& rng) {
  auto pick = [&rng](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>(rng() % n); };
  int rounds = 1 + static_cast<int>(rng() % 4);
  for (int r = 0; r < rounds && !s.empty(); ++r) {
    switch (rng() % 9) {
      case 0:  // flip a byte
        s[pick(s.size())] = static_cast<char>(rng() & 0xFF);
        break;
      case 1: {  // delete a short range
        size_t at = pick(s.size());
        s.erase(at, 1 + pick(20));
        break;
      }
      case 2: {  // insert a token
        const char* tok = kTokens[pick(std::size(kTokens))];
        std::string t = tok[0] == '\0' ? std::string("\0", 1) : std::string(tok);
        s.insert(pick(s.size() + 1), t);
        break;
      }
      case 3:  // truncate
        s.resize(pick(s.size()));
        break;
      case 4:
      case 5:
      case 6:
      case 7: {  // line-level edits
        std::vector<std::string> lines;
        std::stringstream ss(s);
        for (std::string l; std::getline(ss, l);) lines.push_back(l);
        if (lines.empty()) break;
        size_t i = pick(lines.size());
        size_t j = pick(lines.size());
        int op = static_cast<int>(rng() % 4);
        if (op == 0) {
          lines.erase(lines.begin() + i);
        } else if (op == 1) {
          lines.insert(lines.begin() + i, lines[j]);
        } else if (op == 2) {
          std::swap(lines[i], lines[j]);
        } else if (rng() % 2 == 0) {
          lines[i].insert(0, std::string(1 + pick(5), ' '));
        } else {
          size_t k = 0;
          while (k < lines[i].size() && k < 4 && lines[i][k] == ' ') ++k;
          lines[i].erase(0, k);
        }
        s.clear();
        for (const std::string& l : lines) s += l + "\n";
        break;
      }
      default: {  // replace a byte with a digit or letter (keeps tokens plausible)
        const char kChars[] = "0123456789abcxyz_ ";
        s[pick(s.size())] = kChars[pick(sizeof(kChars) - 1)];
        break;
      }
    }
  }
  return s;
}

// Returns an empty string when the input behaved, else a description; sets
// *accepted when the input parsed and verified.
std::string Check(const std::string& text, bool* accepted = nullptr) {
  auto file = std::make_shared<SourceFile>("fuzz.pto", text);
  auto program = parser::ParseProgram(file);
  auto located_user_error = [](const absl::Status& s, const char* phase) -> std::string {
    if (!IsUserError(s)) return std::string(phase) + " gave a non-user error: " + s.ToString();
    if (!GetDiagnosticLocation(s).has_value()) {
      return std::string(phase) + " gave an unlocated error: " + s.ToString();
    }
    return "";
  };
  if (!program.ok()) return located_user_error(program.status(), "parse");
  absl::Status verified = ir::VerifyProgram(*program);
  if (!verified.ok()) return located_user_error(verified, "verify");
  if (accepted != nullptr) *accepted = true;
  std::string printed = ir::PrintProgram(*program);
  auto reparsed = parser::ParseProgramText("printed.pto", printed);
  if (!reparsed.ok()) {
    return "printed program does not parse: " + reparsed.status().ToString() + "\n" + printed;
  }
  if (!ir::StructuralEqual(*program, *reparsed)) {
    return "re-parsed program differs: " +
           ir::StructuralDiff(*program, *reparsed).value_or("?") + "\n" + printed;
  }
  std::string again = ir::PrintProgram(*reparsed);
  if (again != printed) return "print is not a fixed point:\n" + printed + "\n----\n" + again;
  return "";
}

class FrontendFuzzTest : public ::testing::TestWithParam<int> {};

TEST_P(FrontendFuzzTest, MutantsAreAcceptedOrRejectedWithALocatedError) {
  const std::vector<std::string>& corpus = Corpus();
  ASSERT_GE(corpus.size(), 6u) << "examples/*.pto or testing/fuzz/corpus missing from the runfiles";
  std::mt19937_64 rng(0x5eed0000u + GetParam());
  int accepted = 0;
  for (int i = 0; i < kPerChunk; ++i) {
    std::string mutant = Mutate(corpus[rng() % corpus.size()], rng);
    bool ok = false;
    std::string problem = Check(mutant, &ok);
    ASSERT_EQ(problem, "") << "mutant " << GetParam() << "/" << i << ":\n" << mutant;
    if (ok) ++accepted;
  }
  // Mutations keep some programs valid, so the accepted path is exercised too.
  EXPECT_GT(accepted, kPerChunk / 100);
  std::printf("chunk %d: %d mutants, %d accepted\n", GetParam(), kPerChunk, accepted);
}

INSTANTIATE_TEST_SUITE_P(Chunks, FrontendFuzzTest, ::testing::Range(0, kChunks));

TEST(FrontendFuzzCorpusTest, EveryCorpusProgramRoundTrips) {
  for (const std::string& text : Corpus()) EXPECT_EQ(Check(text), "") << text;
}

}  // namespace
}  // namespace pto
