// Text lines and the JSON document of cuda_bench (fields: report.hpp).
#include "report.hpp"

#include <cmath>
#include <string_view>

namespace scaleref::cuda::bench {

namespace {

// A small JSON writer: objects and arrays nest, keys and values are written
// in call order, non-finite numbers become null.
class Json {
 public:
  Json& open(char c) {
    element();
    out_ += c;
    first_.push_back(true);
    return *this;
  }
  Json& close(char c) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty && first_.size() < kIndentDepth) newline();
    out_ += c;
    return *this;
  }
  Json& key(std::string_view k) {
    element();
    string(k);
    out_ += ": ";
    after_key_ = true;
    return *this;
  }
  Json& value(double v) {
    element();
    if (!std::isfinite(v)) {
      out_ += "null";
    } else {
      char buf[40];  // whole numbers (byte counts) exactly, others to 10 digits
      if (v == std::floor(v) && std::fabs(v) < 1e15) {
        std::snprintf(buf, sizeof buf, "%.0f", v);
      } else {
        std::snprintf(buf, sizeof buf, "%.10g", v);
      }
      out_ += buf;
    }
    return *this;
  }
  Json& value(long long v) {
    element();
    out_ += std::to_string(v);
    return *this;
  }
  Json& value(int v) { return value(static_cast<long long>(v)); }
  Json& value(std::size_t v) { return value(static_cast<long long>(v)); }
  Json& value(std::int64_t v) { return value(static_cast<long long>(v)); }
  Json& value(bool v) {
    element();
    out_ += v ? "true" : "false";
    return *this;
  }
  Json& value(std::string_view v) {
    element();
    string(v);
    return *this;
  }
  Json& value(const char* v) { return value(std::string_view(v)); }
  template <class V>
  Json& field(std::string_view k, const V& v) {
    return key(k).value(v);
  }
  std::string str() const { return out_ + "\n"; }

 private:
  static constexpr std::size_t kIndentDepth = 3;  // deeper levels stay on one line

  void newline() {
    out_ += '\n';
    out_.append(2 * first_.size(), ' ');
  }
  // Separates this element from the previous one (nothing after a key).
  void element() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (first_.empty()) return;
    if (!first_.back()) out_ += ", ";
    first_.back() = false;
    if (first_.size() <= kIndentDepth) {
      if (!out_.empty() && out_.back() == ' ') out_.pop_back();
      newline();
    }
  }
  void string(std::string_view s) {
    out_ += '"';
    for (char c : s) {
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
        out_ += buf;
      } else {
        out_ += c;
      }
    }
    out_ += '"';
  }

  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

void stats(Json& j, std::string_view name, const Stats& s, double gbs) {
  j.key(name).open('{');
  j.field("median_ms", s.median_ms).field("min_ms", s.min_ms).field("p10_ms", s.p10_ms);
  j.field("p90_ms", s.p90_ms).field("max_ms", s.max_ms).field("mean_ms", s.mean_ms);
  j.field("reps", s.reps).field("gbs", gbs);
  j.close('}');
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
  Json j;
  j.open('{');
  j.field("schema", "scaleref.cuda_bench/1").field("tool", "cuda_bench");
  j.field("date", info.date).field("commit", info.commit);
  j.key("device").open('{');
  j.field("name", info.device_name).field("line", info.device_line);
  j.field("compute_capability",
          std::to_string(info.sm_major) + "." + std::to_string(info.sm_minor));
  j.field("multiprocessors", info.multiprocessors).field("memory_gib", info.memory_gib);
  j.field("peak_bandwidth_gbs_theoretical", info.peak_bandwidth_gbs);
  j.field("l2_bytes", info.l2_bytes);
  j.close('}');
  j.key("settings").open('{');
  j.field("warmup", info.warmup).field("reps", info.reps).field("quick", info.quick);
  j.field("smoke", info.smoke).field("l2_flush_bytes", info.flush_bytes);
  j.field("l2_flush", "a kernel reads a buffer of 4 x L2 before every call, outside the events");
  j.field("timing", "CUDA events around each call; median and spread over reps after warm-up");
  j.field("bytes_model",
          "each [R,D] tensor read or written once, parameter vectors and gradients, per-row "
          "statistics in the accumulator type; partial-sum scratch not counted (bytes.hpp)");
  j.close('}');
  j.key("copy_peak").open('{');
  j.field("bytes_copied", info.copy_peak_bytes);
  stats(j, "copy", info.copy_peak,
        2 * info.copy_peak_bytes / (info.copy_peak.median_ms * 1e-3) / 1e9);
  j.close('}');
  j.key("results").open('[');
  for (const CaseResult& r : results) {
    j.open('{');
    j.field("op", op_name(r.op)).field("dir", dir_name(r.dir)).field("dtype", dtype_name(r.dtype));
    j.field("rows", r.shape.rows).field("cols", r.shape.cols).field("heads", r.shape.heads);
    j.field("sweep", r.sweep);
    j.field("bytes", r.bytes).field("bytes_formula", bytes_formula(r.op, r.dir));
    stats(j, "fused", r.fused, r.gbs(r.fused));
    stats(j, "unfused", r.unfused, r.gbs(r.unfused));
    stats(j, "copy", r.copy, r.copy_gbs());
    j.key("copy_bytes_copied").value(r.copy_bytes);
    j.field("frac_copy", r.frac_copy()).field("unfused_frac_copy", r.unfused_frac_copy());
    j.field("speedup_vs_unfused", r.speedup());
    j.field("unfused_launches", r.unfused_launches).field("workspace_bytes", r.workspace_bytes);
    j.field("gemm_flops", r.flops);
    j.field("tflops", r.flops > 0 ? r.flops / (r.fused.median_ms * 1e-3) / 1e12 : 0.0);
    j.key("agreement").open('{');
    const OutputDifference* w = r.worst();
    j.field("ok", r.agrees()).field("tolerance", r.tolerance);
    j.field("worst_output", w ? w->output : std::string("-"));
    j.field("worst_rel_diff", w ? w->diff.relative() : 0.0);
    j.key("outputs").open('[');
    for (const OutputDifference& d : r.differences) {
      j.open('{');
      j.field("output", d.output).field("rel_diff", d.diff.relative());
      j.field("max_abs_diff", d.diff.max_abs_diff).field("max_abs_ref", d.diff.max_abs_want);
      j.field("nonfinite", d.diff.nonfinite);
      j.close('}');
    }
    j.close(']');
    j.close('}');
    j.close('}');
  }
  j.close(']');
  j.key("errors").open('[');
  for (const CaseError& e : errors) {
    j.open('{');
    j.field("case", e.label).field("error", e.what);
    j.close('}');
  }
  j.close(']');
  j.close('}');
  return j.str();
}

}  // namespace scaleref::cuda::bench
