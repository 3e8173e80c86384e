#include "support.hpp"

#include <cstdio>
#include <scaleref/error.hpp>

namespace scaleref::cuda::check {

std::string Shape::str() const {
  std::string s = std::to_string(rows) + "x" + std::to_string(cols);
  if (stride != cols) s += "/s" + std::to_string(stride);
  return s;
}

void Report::add(const std::string& label, const MatD& got, const MatD& want,
                 const Tolerance& tol) {
  require(got.rows() == want.rows() && got.cols() == want.cols(), "cuda_check", label,
          ": result shape ", shape_str(got), " is not the reference's ", shape_str(want));
  const Comparison c = compare({got.data(), static_cast<std::size_t>(got.size())},
                               {want.data(), static_cast<std::size_t>(want.size())}, tol);
  ++checks_;
  if (!c.pass()) ++failures_;
  if (c.used > worst_used_) worst_used_ = c.used;
  std::printf("%s\n", report_line(label, c, tol).c_str());
  if (!c.pass()) std::printf("     tolerance: %s\n", tol.why.c_str());
  std::fflush(stdout);
}

void Report::fail(const std::string& label, const std::string& what) {
  ++checks_;
  ++failures_;
  std::printf("FAIL %s: %s\n", label.c_str(), what.c_str());
  std::fflush(stdout);
}

void Report::expect(bool ok, const std::string& label, const std::string& what) {
  ++checks_;
  if (!ok) ++failures_;
  std::printf("%s %s: %s\n", ok ? "PASS" : "FAIL", label.c_str(), what.c_str());
  std::fflush(stdout);
}

// Widths 1 .. 65536: tiny, odd, not a multiple of any vector width (4095,
// 1023), exactly one warp's and one block's reach, the paper sizes, and
// 65536 and QuACK's 262144; a padded stride; more rows than one grid's 65535 blocks cover
// (forward runs 256 / group = 8 rows of width 8 per block: 600000 rows need
// several grid strides). quick keeps one of each kind; its 300 rows of width
// 8 (38 forward blocks) stride under the emulator's lowered grid limit
// (tests/CMakeLists.txt: SCALEREF_EMU_MAX_GRID_X=16).
std::vector<Shape> norm_shapes(bool quick) {
  if (quick)
    return {{3, 1, 1},        {5, 7, 9},         {33, 4095, 4104},
            {16, 4096, 4096}, {2, 65536, 65536}, {300, 8, 8}};
  return {{1, 1, 1},         {3, 1, 2},         {5, 7, 9},           {17, 31, 31},
          {9, 64, 64},       {7, 255, 264},     {33, 1023, 1023},    {16, 1024, 1032},
          {33, 4095, 4104},  {64, 4096, 4096},  {8, 8192, 8200},     {4, 16384, 16384},
          {3, 65535, 65543}, {4, 65536, 65536}, {2, 262144, 262144}, {600000, 8, 8},
          {1100, 96, 100}};
}

}  // namespace scaleref::cuda::check
