#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <scaleref/audit/coverage.hpp>
#include <scaleref/error.hpp>
#include <set>
#include <sstream>

namespace scaleref::audit {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (const char ch : s) {
    if (ch == sep)
      out.emplace_back();
    else
      out.back() += ch;
  }
  return out;
}

bool all_digits(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// `eq. N`, `Theorem X`, ... with a number or label without spaces, or `statement`.
bool known_item(const std::string& item) {
  if (item == "statement") return true;
  for (const char* kind : {"eq. ", "Theorem ", "Proposition ", "Lemma ", "Corollary ", "Setting ",
                           "Algorithm ", "Table "}) {
    const std::string k = kind;
    if (item.rfind(k, 0) == 0 && item.size() > k.size() &&
        item.find(' ', k.size()) == std::string::npos)
      return true;
  }
  return false;
}

}  // namespace

std::vector<CoverageRow> read_coverage(const std::string& path) {
  std::ifstream in(path);
  require(in.good(), "audit::read_coverage", "cannot read the coverage manifest '", path, "'");
  std::vector<CoverageRow> rows;
  std::string text;
  for (long n = 1; std::getline(in, text); ++n) {
    if (text.empty() || text[0] == '#') continue;
    const std::vector<std::string> cols = split(text, '\t');
    const auto where = [&] { return path + ":" + std::to_string(n); };
    require(cols.size() == 4, "audit::read_coverage", where(),
            ": expected 4 tab-separated columns, got ", cols.size());
    CoverageRow r;
    r.item = cols[0];
    r.row = n;
    require(known_item(r.item), "audit::read_coverage", where(), ": unknown item '", r.item,
            "' (eq. N, Theorem X, Proposition X, Lemma X, Corollary X, Setting X, Algorithm N, "
            "Table N or statement)");
    require(all_digits(cols[1]) && cols[1].size() < 9 && std::stol(cols[1]) > 0,
            "audit::read_coverage", where(), ": expected a line number, got '", cols[1], "'");
    r.line = std::stol(cols[1]);
    if (cols[2] != "-") r.claims = split(cols[2], ',');
    r.note = cols[3];
    // a statement's note starts with its quote: "<quote>" — not checked: <reason>
    const bool reason =
        r.note.rfind("not checked: ", 0) == 0 ||
        (r.item == "statement" && r.note.find("\" — not checked: ") != std::string::npos);
    require(!r.claims.empty() || reason, "audit::read_coverage", where(),
            ": a row without claims needs a note \"not checked: <reason>\"");
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string coverage_path(const std::string& paper) {
  return std::string(SCALEREF_COVERAGE_DIR) + "/" + paper + ".tsv";
}

std::vector<int> tagged_equations(const std::string& text) {
  std::set<int> found;
  const std::string tag = "\\tag{";
  for (std::size_t at = text.find(tag); at != std::string::npos; at = text.find(tag, at + 1)) {
    const std::size_t close = text.find('}', at);
    if (close == std::string::npos) break;
    const std::string n = text.substr(at + tag.size(), close - at - tag.size());
    if (all_digits(n) && n.size() < 6) found.insert(std::stoi(n));
  }
  const std::string escaped = ",\\(";  // ",\(6\)where": small_init.txt's form (not O\(1\))
  for (std::size_t at = text.find(escaped); at != std::string::npos;
       at = text.find(escaped, at + 1)) {
    const std::size_t close = text.find("\\)", at);
    if (close == std::string::npos) break;
    const std::string n = text.substr(at + escaped.size(), close - at - escaped.size());
    if (all_digits(n) && n.size() < 6) found.insert(std::stoi(n));
  }
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.find_first_not_of(" \t\r");
    const auto last = line.find_last_not_of(" \t\r");
    if (first == std::string::npos || line[first] != '(' || line[last] != ')') continue;
    const std::string n = line.substr(first + 1, last - first - 1);
    if (all_digits(n) && n.size() < 6) found.insert(std::stoi(n));
  }
  return {found.begin(), found.end()};
}

std::string coverage_table(const std::string& paper, const std::vector<CoverageRow>& rows) {
  std::set<std::string> claims;
  std::size_t checked = 0;
  for (const CoverageRow& r : rows) {
    checked += !r.claims.empty();
    claims.insert(r.claims.begin(), r.claims.end());
  }
  std::ostringstream os;
  os << paper << ": " << rows.size() << " items, " << checked << " checked by " << claims.size()
     << " claims, " << rows.size() - checked << " not checked\n";
  for (const CoverageRow& r : rows) {
    std::string ids;
    for (const std::string& id : r.claims) {
      if (!ids.empty()) ids += ',';
      ids += id;
    }
    char head[96];
    std::snprintf(head, sizeof head, "  %-16s L%-5ld ", r.item.c_str(), r.line);
    os << head;
    if (!ids.empty()) os << ids << (r.note.empty() ? "" : "  ");
    os << r.note << "\n";
  }
  return os.str();
}

}  // namespace scaleref::audit
