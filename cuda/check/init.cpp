// cuda_check's initializer cases: every method of init::Config (and the
// places that change its law: SIR on a residual output and elsewhere, DS-Init
// and LIR inside a decoder layer and on the embedding), every dtype, a few
// shapes (one entry, a padded stride, odd widths), against the CPU's
// init::draw<double> rounded to T by types.hpp's from_double. The GPU must
// give those values bit for bit (normals included: their ln and cos are
// scaleref/random/portable_math.hpp's), so the test is equality of the stored
// bits, with the count of differing entries and the first of them reported,
// and the row padding checked untouched.
#include <cstdio>
#include <cstring>
#include <scaleref/cuda/init.hpp>
#include <scaleref/init/initializers.hpp>
#include <vector>

#include "families.hpp"

namespace scaleref::cuda::check {

namespace {

namespace ref = ::scaleref::init;
namespace gpu = ::scaleref::cuda::init;

struct Method {
  const char* name;
  ref::Config config;
  ref::Role role;
  int layer;
};

std::vector<Method> methods() {
  return {{"gaussian", ref::Gaussian{0.02}, ref::Role::query, 1},
          {"xavier-normal", ref::XavierNormal{}, ref::Role::key, 2},
          {"xavier-uniform", ref::XavierUniform{}, ref::Role::value, 2},
          {"kaiming-normal", ref::KaimingNormal{}, ref::Role::up, 3},
          {"kaiming-uniform", ref::KaimingUniform{}, ref::Role::gate, 3},
          {"sir/residual", ref::SIR{0.02, 12}, ref::Role::ffn_output, 7},
          {"sir/other", ref::SIR{0.02, 12}, ref::Role::query, 7},
          {"dsinit/layer", ref::DSInit{0.5}, ref::Role::attention_output, 5},
          {"dsinit/embedding", ref::DSInit{0.5}, ref::Role::embedding, 0},
          {"lir/layer", ref::LIR{0.02}, ref::Role::up, 9},
          {"lir/head", ref::LIR{0.02}, ref::Role::head, 0},
          {"gamma-init", ref::GammaInit{1.0}, ref::Role::key, 4},
          {"gamma-init/0.5", ref::GammaInit{0.5}, ref::Role::value, 4}};
}

template <class T>
void run_dtype(Report& r, const Shape& s, const Method& m, const random::Stream& rng,
               const MatD& cpu) {
  const std::string name = std::string("init/") + m.name;
  const std::string at = label<T>(name.c_str(), s, "W");
  guarded(r, at, [&] {
    DeviceMatrix<T> out(MatD::Zero(s.rows, s.cols), s.stride);
    gpu::draw<T>({s.rows, s.cols, m.role}, m.layer, m.config, rng, out.view());
    synchronize();
    const std::vector<T> got = out.buffer.download();
    i64 mismatches = 0, first = -1;
    for (i64 i = 0; i < s.rows; ++i)
      for (i64 j = 0; j < s.cols; ++j) {
        const T want = from_double<T>(cpu(i, j));
        if (std::memcmp(&got[i * s.stride + j], &want, sizeof(T)) != 0) {
          if (first < 0) first = i * s.cols + j;
          ++mismatches;
        }
      }
    std::string what = "bitwise the CPU's values (" + std::to_string(s.rows * s.cols) + " entries)";
    if (mismatches > 0) {
      const i64 i = first / s.cols, j = first % s.cols;
      char buf[200];
      std::snprintf(buf, sizeof buf, "%lld entries differ; first (%lld, %lld): GPU %a, CPU %a",
                    static_cast<long long>(mismatches), static_cast<long long>(i),
                    static_cast<long long>(j), to_double(got[i * s.stride + j]),
                    to_double(from_double<T>(cpu(i, j))));
      what = buf;
    }
    r.expect(mismatches == 0, at, what);
    expect_padding(r, label<T>(name.c_str(), s, "padding"), out);
  });
}

std::vector<Shape> init_shapes(bool quick) {
  if (quick) return {{1, 1, 1}, {7, 5, 8}, {64, 1000, 1000}};
  return {{1, 1, 1},        {7, 5, 8},        {3, 4097, 4097},
          {64, 1000, 1000}, {33, 4095, 4104}, {1024, 1024, 1024}};
}

}  // namespace

Family init_family() {
  return {
      "init", [](Report& r, bool quick) {
        std::uint32_t tensor = 100;
        for (const Shape& s : init_shapes(quick))
          for (const Method& m : methods()) {
            const random::Stream rng{20261122, tensor++};
            const MatD cpu = ref::draw<double>({s.rows, s.cols, m.role}, m.layer, m.config, rng);
            run_dtype<double>(r, s, m, rng, cpu);
            run_dtype<float>(r, s, m, rng, cpu);
            run_dtype<bf16>(r, s, m, rng, cpu);
          }
      }};
}

}  // namespace scaleref::cuda::check
