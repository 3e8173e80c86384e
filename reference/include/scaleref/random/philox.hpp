// Philox 4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as
// easy as 1, 2, 3", SC 2011), the project's one random number generator, for
// host and device code alike.
//
// A value is a pure function of (seed, tensor id, element index): element i of
// tensor t under seed s is drawn from the block
//
//   philox4x32_10(counter = {i mod 2^32, i / 2^32, t, draw}, key = {s mod 2^32, s / 2^32})
//
// (draw = 0, except for the redraws of a truncated normal), so a CPU and a GPU
// initializer visiting the elements in any order produce the same numbers,
// and distinct tensor ids give independent streams. Transforms, stated so that
// anyone can reproduce them:
//
//   uniform(s, t, i):  ((w0 << 21 | w1 >> 11) + 0.5) / 2^53 from words 0, 1: in (0, 1]
//   normal(s, t, i):   Box-Muller, cos branch: sqrt(-2 ln u1) cos(2 pi u2), with
//                      u1 from words 0, 1 and u2 from words 2, 3 of the block
//   truncated_normal(s, t, i, b): normal of blocks draw = 0, 1, 2, ... until |z| <= b
//
// (For k >= 2^52, k + 0.5 rounds to an even integer, and to 2^53 for the
// largest k: a uniform lies in [2^-54, 1] and is 1 with probability 2^-53;
// u1 = 1 gives a normal of 0.)
//
// Every value is bitwise the same on host and device: the 32-bit words are
// integer arithmetic, and the normal's ln and cos are the project's own
// (portable_math.hpp), built from correctly rounded IEEE operations in a fixed
// order, never fused, within 1 ulp of exact; its sqrt and final product are
// single IEEE operations. (The platform's ::log and ::cos differ by ulps between
// glibc and CUDA, and would make GPU normals differ from the CPU's.)
#pragma once

#include <cmath>
#include <cstdint>
#include <scaleref/random/portable_math.hpp>  // defines SCALEREF_HOST_DEVICE

namespace scaleref::random {

struct Block {
  std::uint32_t w[4];
};

struct Key {
  std::uint32_t k[2];
};

namespace philox_detail {

inline constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // multipliers
inline constexpr std::uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments

SCALEREF_HOST_DEVICE inline void mulhilo(std::uint32_t a, std::uint32_t b, std::uint32_t& hi,
                                         std::uint32_t& lo) {
  const std::uint64_t p = static_cast<std::uint64_t>(a) * b;
  hi = static_cast<std::uint32_t>(p >> 32);
  lo = static_cast<std::uint32_t>(p);
}

SCALEREF_HOST_DEVICE inline Block round(const Block& c, const Key& k) {
  std::uint32_t hi0, lo0, hi1, lo1;
  mulhilo(kM0, c.w[0], hi0, lo0);
  mulhilo(kM1, c.w[2], hi1, lo1);
  return Block{{hi1 ^ c.w[1] ^ k.k[0], lo1, hi0 ^ c.w[3] ^ k.k[1], lo0}};
}

}  // namespace philox_detail

// Ten rounds, the key bumped by the Weyl constants between rounds.
SCALEREF_HOST_DEVICE inline Block philox4x32_10(Block counter, Key key) {
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      key.k[0] += philox_detail::kW0;
      key.k[1] += philox_detail::kW1;
    }
    counter = philox_detail::round(counter, key);
  }
  return counter;
}

SCALEREF_HOST_DEVICE inline Block block(std::uint64_t seed, std::uint32_t tensor,
                                        std::uint64_t index, std::uint32_t draw = 0) {
  return philox4x32_10(
      Block{{static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32), tensor,
             draw}},
      Key{{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}});
}

// (k + 0.5) / 2^53 for the 53-bit k made of hi's 32 bits and lo's top 21.
SCALEREF_HOST_DEVICE inline double open01(std::uint32_t hi, std::uint32_t lo) {
  const std::uint64_t k = (static_cast<std::uint64_t>(hi) << 21) | (lo >> 11);
  return (static_cast<double>(k) + 0.5) * 0x1.0p-53;
}

SCALEREF_HOST_DEVICE inline double box_muller(const Block& b) {
  const double u1 = open01(b.w[0], b.w[1]), u2 = open01(b.w[2], b.w[3]);
  const double radius = portable::sqrt(portable::mul(-2.0, portable::log(u1)));
  return portable::mul(radius, portable::cos_2pi(u2));
}

SCALEREF_HOST_DEVICE inline double uniform(std::uint64_t seed, std::uint32_t tensor,
                                           std::uint64_t index) {
  const Block b = block(seed, tensor, index);
  return open01(b.w[0], b.w[1]);
}

SCALEREF_HOST_DEVICE inline double normal(std::uint64_t seed, std::uint32_t tensor,
                                          std::uint64_t index) {
  return box_muller(block(seed, tensor, index));
}

// bound > 0 (callers check): the probability of a redraw is P(|z| > bound).
SCALEREF_HOST_DEVICE inline double truncated_normal(std::uint64_t seed, std::uint32_t tensor,
                                                    std::uint64_t index, double bound) {
  for (std::uint32_t draw = 0;; ++draw) {
    const double z = box_muller(block(seed, tensor, index, draw));
    if (::fabs(z) <= bound) return z;
  }
}

// A sequential uniform random bit generator over one tensor's stream (blocks
// at index 0, 1, 2, ... of (seed, tensor), four words each), for code written
// against the standard URBG interface (scaleref/sampling.hpp). Host only.
class Engine {
 public:
  using result_type = std::uint32_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return 0xffffffffu; }
  Engine(std::uint64_t seed, std::uint32_t tensor) : seed_(seed), tensor_(tensor) {}
  result_type operator()() {
    if (used_ == 4) {
      current_ = block(seed_, tensor_, next_++);
      used_ = 0;
    }
    return current_.w[used_++];
  }

 private:
  std::uint64_t seed_;
  std::uint32_t tensor_;
  std::uint64_t next_ = 0;
  Block current_{};
  int used_ = 4;
};

}  // namespace scaleref::random
