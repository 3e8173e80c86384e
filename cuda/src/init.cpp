// The initializers' host entry point (scaleref/cuda/init.hpp), compiled as
// C++20 with the reference: the law comes from the reference's own law
// function, the entries from init_fill.cu.
#include <scaleref/cuda/init.hpp>
#include <scaleref/error.hpp>

#include "detail/launch.hpp"
#include "init_fill.hpp"

namespace scaleref::cuda::init {

template <class T>
void draw(const scaleref::init::Shape& shape, int layer, const scaleref::init::Config& config,
          const random::Stream& rng, Rows<T> out, Stream stream) {
  constexpr const char* where = "cuda::init::draw";
  const scaleref::init::Law law = scaleref::init::detail::law_at(where, shape, layer, config);
  cuda::detail::check_view(where, "out", out);
  require(out.rows == shape.d_out && out.cols == shape.d_in, where, "expected out [", shape.d_out,
          "x", shape.d_in, "] like the shape, got [", out.rows, "x", out.cols, "]");
  const detail::FillLaw fill_law{law.family == scaleref::init::Family::normal, law.std, law.bound};
  detail::fill(fill_law, rng.seed, rng.tensor, out, stream);
}

template void draw<double>(const scaleref::init::Shape&, int, const scaleref::init::Config&,
                           const random::Stream&, Rows<double>, Stream);
template void draw<float>(const scaleref::init::Shape&, int, const scaleref::init::Config&,
                          const random::Stream&, Rows<float>, Stream);
template void draw<bf16>(const scaleref::init::Shape&, int, const scaleref::init::Config&,
                         const random::Stream&, Rows<bf16>, Stream);

}  // namespace scaleref::cuda::init
