// Text lines and the JSON document of cuda_bench (fields: report.hpp).
#include "report.hpp"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

namespace scaleref::cuda::bench {

namespace {

using nlohmann::ordered_json;  // keys in the order they are set

// Whole numbers below 1e15 (byte counts) exactly, other finite values to 10
// significant digits, non-finite values as null. The digits are read back as a
// JSON number, so a value whose 10 digits are whole stays an integer.
ordered_json number(double v) {
  if (!std::isfinite(v)) return nullptr;
  char buf[32];
  const bool whole = v == std::floor(v) && std::fabs(v) < 1e15;
  const auto r = whole ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 0)
                       : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 10);
  return ordered_json::parse(buf, r.ptr);
}

ordered_json stats(const Stats& s, double gbs) {
  return {{"median_ms", number(s.median_ms)},
          {"min_ms", number(s.min_ms)},
          {"p10_ms", number(s.p10_ms)},
          {"p90_ms", number(s.p90_ms)},
          {"max_ms", number(s.max_ms)},
          {"mean_ms", number(s.mean_ms)},
          {"reps", s.reps},
          {"gbs", number(gbs)}};
}

std::string shape_str(const Shape& s) {
  return std::to_string(s.rows) + "x" + std::to_string(s.cols);
}

}  // namespace

const OutputDifference* CaseResult::worst() const {
  const OutputDifference* w = nullptr;
  for (const OutputDifference& d : differences)
    if (!w || d.diff.nonfinite > w->diff.nonfinite ||
        (d.diff.nonfinite == w->diff.nonfinite && d.diff.relative() > w->diff.relative()))
      w = &d;
  return w;
}

bool CaseResult::agrees() const {
  for (const OutputDifference& d : differences)
    if (d.diff.nonfinite > 0 || !(d.diff.relative() <= tolerance)) return false;
  return true;
}

double agreement_tolerance(DType t) {
  switch (t) {
    case DType::bf16:
      return 3e-2;  // ~10 bf16 roundings (2^-9 each) of the unfused intermediates
    case DType::f32:
      return 1e-3;  // fp32 sums over up to 2^26 terms in different orders
    case DType::f64:
      return 1e-9;
  }
  return 0;
}

void print_legend(std::FILE* out, const std::vector<Op>& ops, const std::vector<Dir>& dirs) {
  std::fprintf(out,
               "bytes moved (s = storage bytes, a = accumulator bytes, R rows, D cols, H heads;\n"
               "partial-sum scratch not counted; the copy reference moves the same bytes):\n");
  for (Op op : ops) {
    std::fprintf(out, "  %-13s %s\n", op_name(op), op_what(op));
    for (Dir d : dirs) {
      std::fprintf(out, "    %-8s %s\n", dir_name(d), bytes_formula(op, d).c_str());
      if (d == Dir::fwd_bwd) continue;
      for (const Term& t : terms(op, d)) std::fprintf(out, "%13s%d x %s\n", "", t.count, t.what);
    }
  }
}

void print_header(std::FILE* out) {
  std::fprintf(out, "%-13s %-7s %-5s %-12s %9s %10s %21s %8s %6s %10s %8s %4s %s\n", "op", "dir",
               "dtype", "shape", "MB", "median_ms", "p10 - p90 ms", "GB/s", "%copy", "unfused_ms",
               "speedup", "krn", "agree (worst rel diff)  bytes formula");
}

void print_line(std::FILE* out, const CaseResult& r) {
  const OutputDifference* w = r.worst();
  std::fprintf(
      out,
      "%-13s %-7s %-5s %-12s %9.1f %10.4f %10.4f - %-8.4f %8.1f %5.1f%% %10.4f %7.2fx %4lld "
      "%s %.1e %s",
      op_name(r.op), dir_name(r.dir), dtype_name(r.dtype), shape_str(r.shape).c_str(),
      r.bytes / 1e6, r.fused.median_ms, r.fused.p10_ms, r.fused.p90_ms, r.gbs(r.fused),
      100 * r.frac_copy(), r.unfused.median_ms, r.speedup(),
      static_cast<long long>(r.unfused_launches), r.agrees() ? "ok" : "MISMATCH",
      w ? w->diff.relative() : 0.0, w ? w->output.c_str() : "-");
  if (r.flops > 0) std::fprintf(out, "  %.0f TFLOP/s", r.flops / (r.fused.median_ms * 1e-3) / 1e12);
  std::fprintf(out, "  bytes = %s\n", bytes_formula(r.op, r.dir).c_str());
}

std::string to_json(const RunInfo& info, const std::vector<CaseResult>& results,
                    const std::vector<CaseError>& errors) {
  ordered_json cases = ordered_json::array();
  for (const CaseResult& r : results) {
    ordered_json outputs = ordered_json::array();
    for (const OutputDifference& d : r.differences)
      outputs.push_back({{"output", d.output},
                         {"rel_diff", number(d.diff.relative())},
                         {"max_abs_diff", number(d.diff.max_abs_diff)},
                         {"max_abs_ref", number(d.diff.max_abs_want)},
                         {"nonfinite", d.diff.nonfinite}});
    const OutputDifference* w = r.worst();
    cases.push_back(
        {{"op", op_name(r.op)},
         {"dir", dir_name(r.dir)},
         {"dtype", dtype_name(r.dtype)},
         {"rows", r.shape.rows},
         {"cols", r.shape.cols},
         {"heads", r.shape.heads},
         {"sweep", r.sweep},
         {"bytes", number(r.bytes)},
         {"bytes_formula", bytes_formula(r.op, r.dir)},
         {"fused", stats(r.fused, r.gbs(r.fused))},
         {"unfused", stats(r.unfused, r.gbs(r.unfused))},
         {"copy", stats(r.copy, r.copy_gbs())},
         {"copy_bytes_copied", number(r.copy_bytes)},
         {"frac_copy", number(r.frac_copy())},
         {"unfused_frac_copy", number(r.unfused_frac_copy())},
         {"speedup_vs_unfused", number(r.speedup())},
         {"unfused_launches", r.unfused_launches},
         {"workspace_bytes", r.workspace_bytes},
         {"gemm_flops", number(r.flops)},
         {"tflops", number(r.flops > 0 ? r.flops / (r.fused.median_ms * 1e-3) / 1e12 : 0.0)},
         {"agreement",
          {{"ok", r.agrees()},
           {"tolerance", number(r.tolerance)},
           {"worst_output", w ? w->output : std::string("-")},
           {"worst_rel_diff", number(w ? w->diff.relative() : 0.0)},
           {"outputs", std::move(outputs)}}}});
  }
  ordered_json failed = ordered_json::array();
  for (const CaseError& e : errors) failed.push_back({{"case", e.label}, {"error", e.what}});

  const ordered_json doc = {
      {"schema", "scaleref.cuda_bench/1"},
      {"tool", "cuda_bench"},
      {"date", info.date},
      {"commit", info.commit},
      {"device",
       {{"name", info.device_name},
        {"line", info.device_line},
        {"compute_capability", std::to_string(info.sm_major) + "." + std::to_string(info.sm_minor)},
        {"multiprocessors", info.multiprocessors},
        {"memory_gib", number(info.memory_gib)},
        {"peak_bandwidth_gbs_theoretical", number(info.peak_bandwidth_gbs)},
        {"l2_bytes", info.l2_bytes}}},
      {"settings",
       {{"warmup", info.warmup},
        {"reps", info.reps},
        {"quick", info.quick},
        {"smoke", info.smoke},
        {"l2_flush_bytes", info.flush_bytes},
        {"l2_flush", "a kernel reads a buffer of 4 x L2 before every call, outside the events"},
        {"timing", "CUDA events around each call; median and spread over reps after warm-up"},
        {"bytes_model",
         "each [R,D] tensor read or written once, parameter vectors and gradients, per-row "
         "statistics in the accumulator type; partial-sum scratch not counted (bytes.hpp)"}}},
      {"copy_peak",
       {{"bytes_copied", number(info.copy_peak_bytes)},
        {"copy", stats(info.copy_peak,
                       2 * info.copy_peak_bytes / (info.copy_peak.median_ms * 1e-3) / 1e9)}}},
      {"results", std::move(cases)},
      {"errors", std::move(failed)}};
  // Invalid UTF-8 (in a device name or an error message) becomes U+FFFD instead of throwing.
  return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace scaleref::cuda::bench
