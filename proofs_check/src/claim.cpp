#include <cmath>
#include <cstdio>
#include <scaleref/audit/claim.hpp>
#include <scaleref/spec/common.hpp>
#include <utility>

namespace scaleref::audit {

constexpr spec::NameTable<Kind, 5> kKindNames{{{Kind::exact, "exact formula"},
                                               {Kind::approximation, "approximation"},
                                               {Kind::theorem, "theorem"},
                                               {Kind::empirical, "empirical claim"},
                                               {Kind::numeric, "numeric claim"}}};
const char* kind_name(Kind k) { return spec::name_of(kKindNames, k); }

constexpr spec::NameTable<Status, 4> kStatusNames{
    {{Status::holds, "holds"},
     {Status::holds_approximately, "holds approximately"},
     {Status::fails, "fails"},
     {Status::not_run, "not run"}}};
const char* status_name(Status s) { return spec::name_of(kStatusNames, s); }

namespace {
Verdict make(Status s, std::string figure, std::string detail, std::vector<Measure> measured) {
  return Verdict{s, std::move(figure), std::move(detail), std::move(measured)};
}
}  // namespace

Verdict holds(std::string figure, std::string detail, std::vector<Measure> measured) {
  return make(Status::holds, std::move(figure), std::move(detail), std::move(measured));
}
Verdict holds_approximately(std::string figure, std::string detail, std::vector<Measure> measured) {
  return make(Status::holds_approximately, std::move(figure), std::move(detail),
              std::move(measured));
}
Verdict fails(std::string figure, std::string detail, std::vector<Measure> measured) {
  return make(Status::fails, std::move(figure), std::move(detail), std::move(measured));
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
