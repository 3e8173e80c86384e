// The audit's coverage manifest: for each paper, every numbered equation,
// theorem, proposition, algorithm and table of its text file
// (../shared/papers/), and its quantitative statements, each mapped to the
// claims that check it or to the reason it is not checked. One file per paper,
// proofs_check/coverage/<paper>.tsv, tab-separated:
//
//   item    line    claims               note
//   eq. 31  473     sdd.eq.31            the exact dV against eq. 31
//   Table 2 402     -                    not checked: <reason>
//
// item: `eq. N`, `Theorem X`, `Proposition X`, `Lemma X`, `Corollary X`,
// `Setting X`, `Algorithm N`, `Table N` or `statement`; line: its 1-based
// line in the paper's file; claims: comma-separated claim ids, or `-`; note:
// for `-`, "not checked: <reason>"; for a statement, a verbatim quote of the
// line in double quotes first ("<quote>" — not checked: <reason>). Lines
// starting with '#' are comments.
// `proofs_check --coverage` prints it; tests/proofs_check_test.cpp holds it to
// the papers' text (every tagged equation listed, every line mentioning its
// item) and to the registry (every claim listed, every id a claim).
#pragma once

#include <string>
#include <vector>

namespace scaleref::audit {

struct CoverageRow {
  std::string item;                 // "eq. 31", "Table 2", "statement"
  long line = 0;                    // in the paper's file
  std::vector<std::string> claims;  // empty: not checked
  std::string note;
  long row = 0;  // the row's own line in the manifest, for messages
};

struct PaperFile {
  const char* paper;  // the claim ids' first part
  const char* file;   // under ../shared/papers/
};
inline constexpr PaperFile kPaperFiles[] = {{"sdd", "sdd.txt"},
                                            {"seednorm", "seednorm.txt"},
                                            {"scalevec", "scale_vectors.txt"},
                                            {"rescale", "weight_rescaling.txt"},
                                            {"smallinit", "small_init.txt"}};

// The rows of one manifest; throws Error naming the file and row when a row
// is malformed (not four columns, a line that is not a positive number, an
// unknown item form, a `-` row without "not checked: ").
std::vector<CoverageRow> read_coverage(const std::string& path);

// The manifest of `paper` in proofs_check/coverage/ (the source tree's copy).
std::string coverage_path(const std::string& paper);

// The equation numbers a paper's text tags, in the forms the five copies use:
// `\tag{N}`; `(N)` alone on a line, before a closing `$$` or after `\quad`;
// and small_init.txt's escaped `\(N\)` after a comma or `\.` and before a
// word ("...,\(6\)where"), which its `O\(1\)` is not.
std::vector<int> tagged_equations(const std::string& text);

// Whether `quote` stands in `text` beginning on line `line` (1-based): the
// quote's first character on that line, the rest following on it and the next
// lines. Runs of whitespace (line breaks included) count as one space, in both,
// so a quote may join the lines it spans; every other character must match.
bool quote_at(const std::string& text, long line, const std::string& quote);

// The printed manifest of one paper: its rows, then a tally of items checked
// and not checked.
std::string coverage_table(const std::string& paper, const std::vector<CoverageRow>& rows);

}  // namespace scaleref::audit
