// libFuzzer target for the .npy reader: every input is parsed under each
// combination of options (bf16, integers, payload limit); scaleref::Error is
// the only acceptable failure.
// Run: ./npy_fuzz -max_total_time=60 CORPUS tests/data/npy_malformed
#include <cstddef>
#include <cstdint>
#include <scaleref/io/npy.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (int flags = 0; flags < 4; ++flags) {
    for (std::uint64_t max_bytes : {std::uint64_t(1) << 32, std::uint64_t(64), std::uint64_t(0)}) {
      scaleref::npy::ReadOptions opt;
      opt.u2_is_bf16 = flags & 1;
      opt.integers = flags & 2;
      opt.max_bytes = max_bytes;
      try {
        const scaleref::npy::Array a = scaleref::npy::parse(data, size, opt, "fuzz.npy");
        // A parsed array must re-serialize and parse back to the same shape.
        const auto bytes = scaleref::npy::serialize(a);
        const scaleref::npy::Array b = scaleref::npy::parse(
            bytes.data(), bytes.size(),
            {.u2_is_bf16 = true, .integers = true, .max_bytes = ~std::uint64_t(0)});
        if (b.shape != a.shape || b.data.size() != a.data.size()) __builtin_trap();
      } catch (const scaleref::Error&) {
      }
    }
  }
  return 0;
}
