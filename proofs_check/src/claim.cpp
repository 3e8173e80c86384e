#include <cmath>
#include <cstdio>
#include <scaleref/audit/claim.hpp>
#include <utility>

namespace scaleref::audit {

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::exact:
      return "exact formula";
    case Kind::approximation:
      return "approximation";
    case Kind::theorem:
      return "theorem";
    case Kind::empirical:
      return "empirical claim";
    case Kind::numeric:
      return "numeric claim";
  }
  return "?";
}

const char* status_name(Status s) {
  switch (s) {
    case Status::holds:
      return "holds";
    case Status::holds_approximately:
      return "holds approximately";
    case Status::fails:
      return "fails";
    case Status::not_run:
      return "not run";
  }
  return "?";
}

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
