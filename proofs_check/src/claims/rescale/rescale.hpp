// The rescale paper's claims (see proofs_check/include/scaleref/audit/claim.hpp),
// by section of shared/papers/weight_rescaling.txt:
//
//   init_laws.cpp  Sec. 2.3, eq. 8-16: the initializers' laws, Kaiming's ReLU
//                  variance, LIR's prose
//   rescaling.cpp  Sec. 2.4, eq. 17-21: UWR, ZWR, TVR; the mean added back;
//                  TVR's warm-up (Appendix 6.2.5)
//   dynamics.cpp   Sec. 4.1 and Appendix 6.2.1: the weight std during training,
//                  on the tiny LM
//   tables.cpp     Tables 2, 3, 5, 6, 7: transcribed, their Mean and Delta_base
//                  recomputed, repeated and duplicated rows
//   prose.cpp      the sentences that summarize the tables ("outperforms",
//                  "consistently", "up to 4.6%", "best combination")
//   all.cpp        add_rescale_claims: the sections in the paper's order
//
// This header: the section adders, and the helpers several sections share (the
// 50-digit conversion, the transcribed tables). Readings: readings.hpp.
//
// Tensor ids: 4000-4999 (see init_laws.cpp for --thorough's exception). Every draw is on the stream
// (Context::seed, tensor).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "claims/support.hpp"

namespace scaleref::audit {

// Each registers its section's claims, in the paper's order.
void add_rescale_init_laws_claims(Registrar& r);
void add_rescale_rescaling_claims(Registrar& r);
void add_rescale_dynamics_claims(Registrar& r);
void add_rescale_tables_claims(Registrar& r);
void add_rescale_prose_claims(Registrar& r);

// Paper-local helpers. (Not `rescale`: that is the library's namespace,
// scaleref::rescale, which the checks call.)
namespace rescale_paper {

using M = Mat<double>;
using M50 = Mat<Real50>;

inline double d_(const Real50& v) { return static_cast<double>(v); }

// ---- the paper's tables (tables.cpp) --------------------------------------------

// Tables 2, 3, 5, 6 and 7 give the 1B runs' downstream accuracies (%): 7 task
// columns, then Mean and Delta_base (Mean minus the baseline sigma_init = 0.02
// row's Mean), every entry printed to one decimal. A row is named by its
// setting: sigma_init, then "+ LIR", "+ SIR" or "+ no WD" (weight decay 0), then
// "+ TVR(sigma_target)"; Table 7's "+ ..." rows take the sigma_init of the row
// that opens their block.
inline const char* const kTableTasks[] = {"HellaSwag", "PIQA",  "SIQA", "WG",
                                          "TQA",       "ARC-E", "ARC-C"};
inline constexpr std::size_t kTasks = 7, kCells = 9;  // the 7 tasks, Mean, Delta_base

struct TableRow {
  int line;                         // in shared/papers/weight_rescaling.txt
  std::string setting;              // "0.006 + LIR + TVR(0.01)"
  std::array<double, kTasks> task;  // HellaSwag PIQA SIQA WG TQA ARC-E ARC-C
  double mean, delta;               // Mean, Delta_base, as printed
  double cell(std::size_t c) const { return c < kTasks ? task[c] : c == kTasks ? mean : delta; }
};

struct PaperTable {
  int number;
  std::string location;
  std::vector<TableRow> rows;
};

// Transcribed from shared/papers/weight_rescaling.txt, each row checked
// against its line there.
const std::vector<PaperTable>& paper_tables();
const PaperTable& paper_table(int number);
// The first row of `t` with this setting.
const TableRow& row_of(const PaperTable& t, const std::string& setting);
const TableRow& baseline_of(const PaperTable& t);
std::string row_name(const TableRow& r);  // "0.015 + LIR (L463)"
double task_average(const TableRow& r);

// Printed values are compared as printed; a tie is not "better" (1e-9 absorbs
// the doubles' representation of one-decimal numbers).
inline constexpr double kTie = 1e-9;
inline bool above(double a, double b) { return a > b + kTie; }

}  // namespace rescale_paper
}  // namespace scaleref::audit
