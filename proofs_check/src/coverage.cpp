#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <scaleref/audit/coverage.hpp>
#include <scaleref/error.hpp>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

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
    for (const std::string& id : r.claims)
      require(!id.empty(), "audit::read_coverage", where(), ": an empty claim id in '", cols[2],
              "'");
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
  const auto digits_from = [&](std::size_t from) {  // the run of digits at `from`
    std::size_t to = from;
    while (to < text.size() && std::isdigit(static_cast<unsigned char>(text[to]))) ++to;
    return to;
  };
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  const auto number = [&](std::size_t from, std::size_t to) {
    return to > from && to - from < 6 ? std::stoi(text.substr(from, to - from)) : -1;
  };
  for (std::size_t at = text.find('('); at != std::string::npos; at = text.find('(', at + 1)) {
    const bool escaped = at > 0 && text[at - 1] == '\\';
    const std::size_t end = digits_from(at + 1);
    const int n = number(at + 1, end);
    if (n < 0) continue;
    if (escaped) {  // small_init.txt: "...,\(6\)where", "...\.\(2\)When"; not "O\(1\)"
      const bool closed = text.compare(end, 2, "\\)") == 0 && end + 2 < text.size() &&
                          std::isalpha(static_cast<unsigned char>(text[end + 2]));
      const bool after_punctuation =
          at >= 2 && (text[at - 2] == ',' || (at >= 3 && text.compare(at - 3, 2, "\\.") == 0));
      if (closed && after_punctuation) found.insert(n);
      continue;
    }
    if (end >= text.size() || text[end] != ')') continue;
    std::size_t next = end + 1, prev = at;
    while (next < text.size() && blank(text[next])) ++next;
    while (prev > 0 && blank(text[prev - 1])) --prev;
    const bool line_end = next == text.size() || text[next] == '\n';
    const bool line_start = prev == 0 || text[prev - 1] == '\n';
    const bool before_math_end = text.compare(next, 2, "$$") == 0;                  // "(1)$$"
    const bool after_quad = prev >= 5 && text.compare(prev - 5, 5, "\\quad") == 0;  // "\quad (28)"
    if ((line_start && line_end) || before_math_end || after_quad) found.insert(n);
  }
  const std::string tag = "\\tag{";
  for (std::size_t at = text.find(tag); at != std::string::npos; at = text.find(tag, at + 1)) {
    const std::size_t end = digits_from(at + tag.size());
    const int n = number(at + tag.size(), end);
    if (n >= 0 && end < text.size() && text[end] == '}') found.insert(n);
  }
  return {found.begin(), found.end()};
}

bool quote_at(const std::string& text, long line, const std::string& quote) {
  const auto space = [](char ch) {
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
  };
  // Collapses runs of whitespace to one space and trims both ends.
  const auto collapse = [&](std::string_view s) {
    std::string out;
    for (const char ch : s) {
      if (!space(ch))
        out += ch;
      else if (!out.empty() && out.back() != ' ')
        out += ' ';
    }
    if (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  };
  if (line < 1) return false;
  std::size_t begin = 0;  // the start of line `line`
  for (long l = 1; l < line; ++l) {
    begin = text.find('\n', begin);
    if (begin == std::string::npos) return false;
    ++begin;
  }
  const std::size_t end = std::min(text.find('\n', begin), text.size());
  const std::string first = collapse(std::string_view(text).substr(begin, end - begin));
  const std::string rest = collapse(std::string_view(text).substr(begin));
  const std::string q = collapse(quote);
  if (q.empty() || first.empty()) return false;
  // The earliest place the quote stands must begin on the line itself.
  const std::size_t at = rest.find(q);
  return at != std::string::npos && at < first.size();
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
