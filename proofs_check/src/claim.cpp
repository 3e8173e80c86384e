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

constexpr spec::NameTable<Status, 5> kStatusNames{
    {{Status::holds, "holds"},
     {Status::holds_approximately, "holds approximately"},
     {Status::fails, "fails"},
     {Status::inconclusive, "inconclusive"},
     {Status::not_run, "not run"}}};
const char* status_name(Status s) { return spec::name_of(kStatusNames, s); }

constexpr spec::NameTable<Fault, 3> kFaultNames{{{Fault::none, ""},
                                                 {Fault::math_error, "mathematical error"},
                                                 {Fault::notation_slip, "notation slip"}}};
const char* fault_name(Fault f) { return spec::name_of(kFaultNames, f); }

constexpr spec::NameTable<Basis, 3> kBasisNames{
    {{Basis::paper, "paper"}, {Basis::reading, "reading"}, {Basis::conformance, "conformance"}}};
const char* basis_name(Basis b) { return spec::name_of(kBasisNames, b); }

namespace {
Verdict make(Status s, std::string figure, std::string detail, std::vector<Measure> measured,
             Fault fault = Fault::none) {
  return Verdict{s, fault, std::move(figure), std::move(detail), std::move(measured), {}};
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
Verdict inconclusive(std::string figure, std::string detail, std::vector<Measure> measured) {
  return make(Status::inconclusive, std::move(figure), std::move(detail), std::move(measured));
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
