#include <cmath>
#include <cstdio>
#include <scaleref/audit/claim.hpp>
#include <scaleref/error.hpp>
#include <scaleref/spec/common.hpp>
#include <utility>

namespace scaleref::audit {

constexpr spec::NameTable<Kind, 5> kKindNames{{{Kind::exact, "exact formula"},
                                               {Kind::approximation, "approximation"},
                                               {Kind::theorem, "theorem"},
                                               {Kind::empirical, "empirical claim"},
                                               {Kind::numeric, "numeric claim"}}};
const char* kind_name(Kind k) { return spec::name_of(kKindNames, k); }

constexpr spec::NameTable<Status, 7> kStatusNames{
    {{Status::holds, "holds"},
     {Status::holds_approximately, "holds approximately"},
     {Status::consistent, "consistent at small scale"},
     {Status::fails, "fails"},
     {Status::reading_dependent, "reading-dependent"},
     {Status::inconclusive, "inconclusive"},
     {Status::not_run, "not run"}}};
const char* status_name(Status s) { return spec::name_of(kStatusNames, s); }

constexpr spec::NameTable<Fault, 6> kFaultNames{
    {{Fault::none, ""},
     {Fault::math_error, "mathematical error"},
     {Fault::notation_slip, "notation slip"},
     {Fault::overstatement, "overstatement"},
     {Fault::reconstruction_refuted, "reconstruction refuted"},
     {Fault::not_reproduced, "not reproduced at small scale"}}};
const char* fault_name(Fault f) { return spec::name_of(kFaultNames, f); }

constexpr spec::NameTable<Basis, 3> kBasisNames{
    {{Basis::paper, "paper"}, {Basis::reading, "reading"}, {Basis::conformance, "conformance"}}};
const char* basis_name(Basis b) { return spec::name_of(kBasisNames, b); }

constexpr spec::NameTable<Scope, 4> kScopeNames{{{Scope::derivation, "derivation"},
                                                 {Scope::summary, "summary"},
                                                 {Scope::reconstruction, "reconstruction"},
                                                 {Scope::proxy, "proxy"}}};
const char* scope_name(Scope s) { return spec::name_of(kScopeNames, s); }

bool allowed(Scope s, Status status, Fault fault) {
  switch (status) {
    case Status::holds_approximately:
      return s != Scope::proxy;
    case Status::reading_dependent:
    case Status::inconclusive:
    case Status::not_run:
      return true;
    case Status::holds:
      return s != Scope::proxy;
    case Status::consistent:
      return s == Scope::proxy;
    case Status::fails:
      switch (s) {
        case Scope::derivation:
          return fault == Fault::math_error || fault == Fault::notation_slip;
        case Scope::summary:
          return fault == Fault::overstatement || fault == Fault::notation_slip;
        case Scope::reconstruction:
          return fault == Fault::reconstruction_refuted;
        case Scope::proxy:
          return fault == Fault::not_reproduced;
      }
  }
  return false;
}

namespace {
Verdict make(Status s, std::string figure, std::string detail, std::vector<Measure> measured,
             Fault fault = Fault::none) {
  Verdict v;
  v.status = s;
  v.fault = fault;
  v.figure = std::move(figure);
  v.detail = std::move(detail);
  v.measured = std::move(measured);
  return v;
}
}  // namespace

Verdict holds(std::string figure, std::string detail, std::vector<Measure> measured) {
  return make(Status::holds, std::move(figure), std::move(detail), std::move(measured));
}
Verdict holds_approximately(std::string figure, std::string detail, std::vector<Measure> measured) {
  return make(Status::holds_approximately, std::move(figure), std::move(detail),
              std::move(measured));
}
Verdict fails(Fault fault, std::string figure, std::string detail, std::vector<Measure> measured) {
  require(fault != Fault::none, "audit::fails", "a failure needs its fault");
  return make(Status::fails, std::move(figure), std::move(detail), std::move(measured), fault);
}
Verdict fails(Fault fault, Finding finding, std::string figure, std::string detail,
              std::vector<Measure> measured) {
  require(!finding.wrong.empty(), "audit::fails", "a finding says what is wrong");
  Verdict v = fails(fault, std::move(figure), std::move(detail), std::move(measured));
  v.finding = std::move(finding);
  return v;
}
Verdict consistent(std::string figure, std::string detail, std::vector<Measure> measured) {
  return make(Status::consistent, std::move(figure), std::move(detail), std::move(measured));
}
Verdict inconclusive(std::string figure, std::string detail, std::vector<Measure> measured) {
  return make(Status::inconclusive, std::move(figure), std::move(detail), std::move(measured));
}

std::string verdict_label(Status s, Fault f) {
  std::string out = status_name(s);
  if (s == Status::fails) (out += ": ") += fault_name(f);
  return out;
}

Verdict by_reading(std::vector<ReadingOutcome> outcomes, const std::string& why_preferred) {
  require(outcomes.size() >= 2, "audit::by_reading", "expected two readings or more, got ",
          outcomes.size());
  require(!why_preferred.empty(), "audit::by_reading", "say why the first reading is preferred");
  const auto is_true = [](Status s) {
    return s == Status::holds || s == Status::holds_approximately;
  };
  std::vector<ReadingVerdict> readings;
  bool agree = true;
  const Verdict& first = outcomes.front().verdict;
  for (const ReadingOutcome& o : outcomes) {
    require(!o.reading.empty(), "audit::by_reading", "every reading needs its name");
    require(o.verdict.status != Status::reading_dependent && o.verdict.readings.empty(),
            "audit::by_reading", "a reading's verdict is itself read one way");
    // A reading that finds an error against the paper without naming it is
    // listed by its detail, as run_claim lists a whole verdict.
    const bool against_paper = o.verdict.fault == Fault::math_error ||
                               o.verdict.fault == Fault::notation_slip ||
                               o.verdict.fault == Fault::overstatement;
    Finding f = o.verdict.finding;
    if (against_paper && f.wrong.empty()) f.wrong = o.verdict.detail;
    readings.push_back({o.reading, o.verdict.status, o.verdict.fault, o.verdict.figure, f});
    agree = agree && ((is_true(o.verdict.status) && is_true(first.status)) ||
                      (o.verdict.status == first.status && o.verdict.fault == first.fault));
  }
  Verdict v;
  if (agree) {
    v = std::move(outcomes.front().verdict);
    v.detail += "; every reading agrees (preferred: " + outcomes.front().reading;
    for (std::size_t i = 1; i < outcomes.size(); ++i) {
      const Verdict& other = outcomes[i].verdict;
      v.detail +=
          "; " + outcomes[i].reading + ": " +
          (other.status == v.status ? "" : verdict_label(other.status, other.fault) + ", ") +
          other.figure;
    }
    v.detail += ")";
  } else {
    std::string figure,
        detail = "preferred reading: " + outcomes.front().reading + " (" + why_preferred + ")";
    for (const ReadingOutcome& o : outcomes) {
      (figure += figure.empty() ? "" : " | ") += o.verdict.figure;
      detail += "; under " + o.reading + ": " + verdict_label(o.verdict.status, o.verdict.fault) +
                ", " + o.verdict.figure + ", " + o.verdict.detail;
    }
    v = make(Status::reading_dependent, std::move(figure), std::move(detail),
             std::move(outcomes.front().verdict.measured));
    for (std::size_t i = 1; i < outcomes.size(); ++i)  // the others' measures, named by reading
      for (const Measure& x : outcomes[i].verdict.measured)
        v.measured.push_back({"reading" + std::to_string(i + 1) + "_" + x.name, x.value});
    v.worst_entry = outcomes.front().verdict.worst_entry;
  }
  v.readings = std::move(readings);
  return v;
}

std::string sci(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
  return buf;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace scaleref::audit
