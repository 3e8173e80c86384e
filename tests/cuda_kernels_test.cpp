// The GPU kernels' host API: bad input is a scaleref::Error naming the
// function before anything reaches the device (these run without a GPU), and,
// on a GPU, a forward and backward that match the reference and replay bit
// for bit. cuda_check (ctest cuda.check) is the full comparison grid.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <scaleref/cuda/blas.hpp>
#include <scaleref/cuda/device.hpp>
#include <scaleref/cuda/dyt.hpp>
#include <scaleref/cuda/layernorm.hpp>
#include <scaleref/cuda/rmsnorm.hpp>
#include <scaleref/cuda/scalevec.hpp>
#include <scaleref/cuda/seednorm.hpp>
#include <scaleref/norm/rmsnorm.hpp>
#include <string>

#include "env_support.hpp"
#include "error_support.hpp"

#if defined(SCALEREF_CUDA_EMU)
#include <scaleref/emu/launch.hpp>
#include <scaleref/emu/traffic.hpp>
#endif

namespace {

using namespace scaleref;
using cuda::Rows;
using test::error_of;
using test::mentions;

// A well-formed view that is never dereferenced: the checks reject the call first.
Rows<float> fake(std::int64_t rows, std::int64_t cols, std::int64_t stride = 0) {
  return {reinterpret_cast<float*>(std::uintptr_t{256}), rows, cols, stride ? stride : cols};
}

TEST(CudaApi, RejectsMismatchedShapes) {
  const auto e = error_of([] {
    cuda::rmsnorm::forward<float>({}, {}, cuda::as_const(fake(4, 8)), fake(4, 9), nullptr);
  });
  EXPECT_TRUE(mentions(e, "cuda::rmsnorm::forward")) << e;
  EXPECT_TRUE(mentions(e, "[4x8]")) << e;
}

TEST(CudaApi, RejectsAStrideShorterThanARow) {
  const auto e = error_of([] {
    cuda::layernorm::forward<float>({}, {}, cuda::as_const(fake(4, 8, 7)), fake(4, 8), nullptr);
  });
  EXPECT_TRUE(mentions(e, "stride")) << e;
}

TEST(CudaApi, RejectsHeadsThatDoNotDivideTheWidth) {
  cuda::seednorm::Config c;
  c.heads = 3;
  const float* beta = fake(1, 8).data;
  const auto e = error_of([&] {
    cuda::seednorm::forward<float>({beta, beta, nullptr}, c, cuda::as_const(fake(2, 8)), fake(2, 8),
                                   nullptr);
  });
  EXPECT_TRUE(mentions(e, "heads")) << e;
}

TEST(CudaApi, RejectsMissingRequiredParameters) {
  EXPECT_TRUE(mentions(
      error_of([] { cuda::dyt::forward<float>({}, cuda::as_const(fake(2, 8)), fake(2, 8)); }),
      "alpha"));
  EXPECT_TRUE(mentions(error_of([] {
                         cuda::seednorm::forward<float>({}, {}, cuda::as_const(fake(2, 8)),
                                                        fake(2, 8), nullptr);
                       }),
                       "beta"));
}

TEST(CudaApi, RejectsAParameterPointerOffItsEntrySize) {
  const float* gamma = reinterpret_cast<const float*>(std::uintptr_t{258});  // 2 bytes off
  const auto e = error_of([&] {
    cuda::rmsnorm::forward<float>({gamma}, {}, cuda::as_const(fake(2, 8)), fake(2, 8), nullptr);
  });
  EXPECT_TRUE(mentions(e, "cuda::rmsnorm::forward")) << e;
  EXPECT_TRUE(mentions(e, "aligned")) << e;
}

TEST(CudaApi, RejectsANegativeEps) {
  const auto e = error_of([] {
    cuda::rmsnorm::forward<float>({}, {-1.0, 1}, cuda::as_const(fake(2, 8)), fake(2, 8), nullptr);
  });
  EXPECT_TRUE(mentions(e, "eps")) << e;
}

TEST(CudaApi, RejectsABackwardWithoutItsForwardsCache) {
  cuda::Workspace ws;
  const cuda::rmsnorm::Cache<float> empty;
  const auto e = error_of([&] {
    cuda::rmsnorm::backward<float>({}, {}, empty, cuda::as_const(fake(2, 8)),
                                   cuda::as_const(fake(2, 8)), fake(2, 8), {}, ws);
  });
  EXPECT_TRUE(mentions(e, "cache")) << e;
}

class CudaKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto info = cuda::query_device();
    if (!info.available) GTEST_SKIP() << info.reason;
  }
};

// 37 x 1000, padded to a stride of 1004: odd rows, a width no vector divides.
struct Batch {
  static constexpr std::int64_t n = 37, d = 1000, stride = 1004;
  std::vector<double> x = values(1), dy = values(2);
  static std::vector<double> values(int salt) {
    std::vector<double> v(n * stride, 0.0);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < d; ++j)
        v[i * stride + j] = std::sin(0.37 * (i * d + j) + salt) * (1 + 0.01 * j);
    return v;
  }
  // An output buffer as a kernel should find it: every entry, the padding
  // too, a NaN, so that a copy to the host reads only written bytes
  // (initcheck) and an entry the kernel writes where it should not shows.
  template <class T>
  static std::vector<T> poisoned() {
    return std::vector<T>(n * stride, std::numeric_limits<T>::quiet_NaN());
  }
  static bool padding_untouched(const auto& h) {
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = d; j < stride; ++j)
        if (!std::isnan(h[i * stride + j])) return false;
    return true;
  }
};

// An allocator that counts what it serves (cudaMalloc underneath).
struct CountingAllocator {
  static inline int allocations = 0, releases = 0;
  static void* allocate(std::size_t bytes) {
    ++allocations;
    void* p = nullptr;
    return cudaMalloc(&p, bytes) == cudaSuccess ? p : nullptr;
  }
  static void release(void* p) {
    ++releases;
    cudaFree(p);
  }
};

TEST_F(CudaKernels, AnInstalledAllocatorServesEveryBufferAndCannotChangeUnderLiveMemory) {
  cuda::set_device_allocator({CountingAllocator::allocate, CountingAllocator::release});
  {
    // A forward's cache and a backward's workspace come from it.
    cuda::DeviceBuffer<float> x(std::vector<float>(4 * 64, 1.0f)), y(4 * 64), dx(4 * 64);
    cuda::rmsnorm::Cache<float> cache;
    cuda::Workspace ws;
    cuda::rmsnorm::forward<float>({}, {}, cuda::as_const(cuda::dense(x.data(), 4, 64)),
                                  cuda::dense(y.data(), 4, 64), &cache);
    cuda::rmsnorm::backward<float>({}, {}, cache, cuda::as_const(cuda::dense(x.data(), 4, 64)),
                                   cuda::as_const(cuda::dense(y.data(), 4, 64)),
                                   cuda::dense(dx.data(), 4, 64), {}, ws);
    cuda::synchronize();
    EXPECT_GE(CountingAllocator::allocations, 4);  // x, y, dx, the cache's 1 / RMS
    const std::string e = error_of([] { cuda::set_device_allocator({}); });
    EXPECT_TRUE(mentions(e, "allocations from device_malloc are live")) << e;
  }
  EXPECT_EQ(CountingAllocator::releases, CountingAllocator::allocations);
  const std::string e = error_of([] {
    cuda::set_device_allocator({CountingAllocator::allocate, nullptr});
  });
  EXPECT_TRUE(mentions(e, "give both allocate and release")) << e;
  cuda::set_device_allocator({});  // cudaMalloc and cudaFree again
}

TEST_F(CudaKernels, ABorrowedBlasHandleIsUsedAndLeftToItsOwner) {
  cuda::Blas owner;
  const cuda::DeviceBuffer<float> a(std::vector<float>{1, 2, 3, 4, 5, 6});  // [2, 3]
  const cuda::DeviceBuffer<float> b(std::vector<float>{1, 0, 0, 0, 1, 0});  // [2, 3]
  cuda::DeviceBuffer<float> c(4);
  const auto product = [&](cuda::Blas& blas) {  // c = a b^T = [[1, 2], [4, 5]]
    cuda::gemm_nt<float>(blas, cuda::dense(a.data(), 2, 3), cuda::dense(b.data(), 2, 3),
                         cuda::dense(c.data(), 2, 2), nullptr);
    return c.download();
  };
  {
    cuda::Blas borrowed(owner.handle());
    EXPECT_EQ(borrowed.handle(), owner.handle());
    EXPECT_EQ(product(borrowed), (std::vector<float>{1, 2, 4, 5}));
  }
  c.upload({0, 0, 0, 0});
  EXPECT_EQ(product(owner), (std::vector<float>{1, 2, 4, 5}));  // still the owner's
  EXPECT_TRUE(mentions(error_of([] { cuda::Blas none(nullptr); }), "must not be null"));
}

TEST_F(CudaKernels, RmsNormInDoubleMatchesTheReference) {
  const Batch b;
  std::vector<double> gamma(Batch::d);
  for (std::int64_t j = 0; j < Batch::d; ++j) gamma[j] = 0.5 + 0.001 * j;
  cuda::DeviceBuffer<double> x(b.x), dy(b.dy), y(Batch::poisoned<double>()),
      dx(Batch::poisoned<double>()), g(gamma), dg(gamma.size());
  const Rows<double> xv{x.data(), Batch::n, Batch::d, Batch::stride};
  const Rows<double> yv{y.data(), Batch::n, Batch::d, Batch::stride};
  const Rows<double> dyv{dy.data(), Batch::n, Batch::d, Batch::stride};
  const Rows<double> dxv{dx.data(), Batch::n, Batch::d, Batch::stride};
  cuda::rmsnorm::Cache<double> cache;
  cuda::Workspace ws;
  cuda::rmsnorm::forward<double>({g.data()}, {}, cuda::as_const(xv), yv, &cache);
  cuda::rmsnorm::backward<double>({g.data()}, {}, cache, cuda::as_const(xv), cuda::as_const(dyv),
                                  dxv, {dg.data()}, ws);
  const auto hy = y.download(), hdx = dx.download(), hdg = dg.download();
  EXPECT_TRUE(Batch::padding_untouched(hy));
  EXPECT_TRUE(Batch::padding_untouched(hdx));

  Mat<double> X(Batch::n, Batch::d), DY(Batch::n, Batch::d);
  for (std::int64_t i = 0; i < Batch::n; ++i)
    for (std::int64_t j = 0; j < Batch::d; ++j) {
      X(i, j) = b.x[i * Batch::stride + j];
      DY(i, j) = b.dy[i * Batch::stride + j];
    }
  const norm::rmsnorm::Params<double> p{Mat<double>::Map(gamma.data(), 1, Batch::d)};
  norm::rmsnorm::Cache<double> k;
  const Mat<double> Y = norm::rmsnorm::forward(p, {}, X, &k);
  const auto G = norm::rmsnorm::backward(p, {}, k, DY);
  // fp64 sums of 1000 (rows: 37) terms: (16 + terms) 2^-53 relative, as cuda_check's table
  const double u = std::ldexp(1.0, -53);
  for (std::int64_t i = 0; i < Batch::n; ++i)
    for (std::int64_t j = 0; j < Batch::d; ++j) {
      ASSERT_NEAR(hy[i * Batch::stride + j], Y(i, j), 1016 * u * (std::abs(Y(i, j)) + 1));
      ASSERT_NEAR(hdx[i * Batch::stride + j], G.dx(i, j), 1016 * u * G.dx.cwiseAbs().maxCoeff());
    }
  for (std::int64_t j = 0; j < Batch::d; ++j)
    ASSERT_NEAR(hdg[j], G.dgamma(0, j), 53 * u * G.dgamma.cwiseAbs().maxCoeff());
}

// The periodic tests below: values that repeat every kPeriod columns, which
// no thread's stride or vector width divides, and the check that an output
// row does too within each head (the bits at c those at c - kPeriod).
constexpr std::int64_t kPeriod = 1000;

template <class T>
std::vector<T> repeating(std::int64_t rows, std::int64_t d, int salt, double lo, double hi) {
  std::vector<T> v(rows * d);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < d; ++j) {
      const double u = 0.5 + 0.5 * std::sin(0.731 * (j % kPeriod) + 3.1 * i + salt);
      v[i * d + j] = cuda::from_double<T>(lo + (hi - lo) * u);
    }
  return v;
}

template <class T>
void expect_periodic(const std::vector<T>& h, std::int64_t d, int heads, const std::string& what) {
  const std::int64_t rows = static_cast<std::int64_t>(h.size()) / d, w = d / heads;
  std::int64_t bad = 0, first = -1;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t c = 0; c < d; ++c)
      if (c % w >= kPeriod && std::memcmp(&h[i * d + c], &h[i * d + c - kPeriod], sizeof(T)) != 0 &&
          bad++ == 0)
        first = i * d + c;
  EXPECT_EQ(bad, 0) << what << " (" << heads << " heads) " << sizeof(T) << "-byte " << rows << "x"
                    << d << ": first at row " << first / d << ", column " << first % d;
}

// A forward's later passes read a wide row's first entries back from shared
// memory and walk the row back to front (cuda/src/detail/launch.hpp,
// stash_columns). x and every parameter vector repeat with a period of 1000
// columns, which no thread's stride or vector width divides: within a head,
// y at column c must then have y's bits at c - 1000. An entry kept at one
// column and read back at another, or a tail read from the wrong place,
// breaks that. Rows of 65536 (fp32 and fp64: kept in part, the rest read
// again from global memory; bf16: kept whole), 16384 (fp64) and 4096 (fp32:
// the narrowest kept, 16 KiB).
template <class T>
void expect_periodic_outputs(std::int64_t n, std::int64_t d) {
  const auto param = [&](int salt, double lo, double hi) {
    return cuda::DeviceBuffer<T>(repeating<T>(1, d, salt, lo, hi));
  };
  cuda::DeviceBuffer<T> x(repeating<T>(n, d, 1, -2, 2)), y(std::vector<T>(n * d));
  const cuda::DeviceBuffer<T> gamma = param(2, 0.5, 1.5), beta = param(3, -0.5, 0.5),
                              alpha = param(4, 0.5, 1.5);
  const Rows<const T> xv{x.data(), n, d, d};
  const Rows<T> yv{y.data(), n, d, d};
  const auto check = [&](const std::string& what, int heads) {
    expect_periodic(y.download(), d, heads, what);
  };
  for (int heads : {1, 2}) {
    cuda::rmsnorm::forward<T>({gamma.data()}, {1e-6, heads}, xv, yv, nullptr);
    check("rmsnorm", heads);
  }
  cuda::layernorm::forward<T>({gamma.data(), beta.data()}, {}, xv, yv, nullptr);
  check("layernorm", 1);
  for (int heads : {1, 4}) {
    cuda::seednorm::Config c;
    c.heads = heads;
    cuda::seednorm::forward<T>({alpha.data(), beta.data(), gamma.data()}, c, xv, yv, nullptr);
    check("seednorm", heads);
  }
}

TEST_F(CudaKernels, ForwardOutputsKeepTheirBitsWhereWideRowsAreKeptInSharedMemory) {
  expect_periodic_outputs<float>(2, 65536);
  expect_periodic_outputs<double>(2, 65536);
  expect_periodic_outputs<cuda::bf16>(2, 65536);
  expect_periodic_outputs<double>(3, 16384);
  expect_periodic_outputs<float>(5, 4096);  // 16 KiB rows: kept whole
}

// A backward keeps its running parameter-gradient sums in shared memory as
// far as they fit, the rest in its partial row in global memory
// (cuda/src/detail/partials.cuh, PartialPlan). x, dy and every parameter
// vector repeat every 1000 columns, as above: within a head, dx and every
// parameter gradient at column c must then have the bits at c - 1000,
// wherever each of the two sums lived. A sum zeroed, added to or copied out
// at the wrong place breaks that (or the emulator's memcheck and initcheck
// catch it). The emulator's grid limit of 2 gives each block 2-3 rows to
// add, and a row split (launch.hpp's row_slices) 2 parts, not 8: at 65536
// fp32 columns the part's sums of LayerNorm, DyT (2 x 32768) and SeeDNorm
// (3 x 32768), and RMSNorm's 2 heads' (65536, no split), pass Hopper's 227
// KiB (about 56 thousand fp32 sums on chip), so the split and the sums
// in both places are checked together; RMSNorm's part (32768) fits. At
// 16384 fp64 columns the split parts' sums fit. Each backward also runs
// with its second pass back to front (below), which must change no bit
// either.
// SCALEREF_SECOND_PASS for one call: "front", "back", or nullptr (the rule).
struct SecondPassSetting : scaleref::test::ScopedEnv {
  explicit SecondPassSetting(const char* value) : ScopedEnv("SCALEREF_SECOND_PASS", value) {}
};

// The batch the bitwise backward tests run: x, dy and the parameters repeat
// along each row (`repeating`), the gradients start at zero.
template <class T>
struct BackwardBatch {
  static cuda::DeviceBuffer<T> zeros(std::int64_t k) {
    return cuda::DeviceBuffer<T>(std::vector<T>(k));
  }
  BackwardBatch(std::int64_t n, std::int64_t d)
      : x(repeating<T>(n, d, 1, -2, 2)),
        dy(repeating<T>(n, d, 5, -1, 1)),
        y(zeros(n * d)),
        dx(zeros(n * d)),
        gamma(repeating<T>(1, d, 2, 0.5, 1.5)),
        beta(repeating<T>(1, d, 3, -0.5, 0.5)),
        alpha(repeating<T>(1, d, 4, 0.5, 1.5)),
        scalar(std::vector<T>(1, cuda::from_double<T>(0.8))),
        g1(zeros(d)),
        g2(zeros(d)),
        g3(zeros(d)),
        dscalar(zeros(1)),
        xv{x.data(), n, d, d},
        dyv{dy.data(), n, d, d},
        yv{y.data(), n, d, d},
        dxv{dx.data(), n, d, d} {}
  cuda::DeviceBuffer<T> x, dy, y, dx;
  const cuda::DeviceBuffer<T> gamma, beta, alpha, scalar;
  cuda::DeviceBuffer<T> g1, g2, g3, dscalar;  // the parameter gradients
  Rows<const T> xv, dyv;
  Rows<T> yv, dxv;
  cuda::Workspace ws;
};

// One backward call of each_backward: `what` for messages, `kernel` the
// name of the kernel that sums its parameter gradients, whether the call's
// second pass reads the row again (`two_passes`) and its outputs repeat
// along the row as x does (`periodic`: not AP's da, a sum over z = x W^T).
struct BackwardCase {
  std::string what;
  const char* kernel;
  int heads;
  bool two_passes, periodic;
};

// Every backward with parameter gradients on b, after its forward:
// f(case, call, outputs) with `call` running the backward and `outputs`
// naming the buffers it writes. AP's (`with_ap`) needs a d x d weight.
template <class T, class F>
void each_backward(BackwardBatch<T>& b, bool with_ap, const F& f) {
  const std::int64_t n = b.xv.rows, d = b.xv.cols;
  for (int heads : {1, 2}) {
    const cuda::rmsnorm::Config c{1e-6, heads};
    cuda::rmsnorm::Cache<T> cache;
    cuda::rmsnorm::forward<T>({b.gamma.data()}, c, b.xv, b.yv, &cache);
    f(BackwardCase{"rmsnorm", "rmsnorm::backward_kernel", heads, true, true},
      [&] {
        cuda::rmsnorm::backward<T>({b.gamma.data()}, c, cache, b.xv, b.dyv, b.dxv, {b.g1.data()},
                                   b.ws);
      },
      {{"dx", &b.dx}, {"dgamma", &b.g1}});
  }
  {
    cuda::layernorm::Cache<T> cache;
    cuda::layernorm::forward<T>({b.gamma.data(), b.beta.data()}, {}, b.xv, b.yv, &cache);
    f(BackwardCase{"layernorm", "layernorm::backward_kernel", 1, true, true},
      [&] {
        cuda::layernorm::backward<T>({b.gamma.data(), b.beta.data()}, {}, cache, b.xv, b.dyv, b.dxv,
                                     {b.g1.data(), b.g2.data()}, b.ws);
      },
      {{"dx", &b.dx}, {"dgamma", &b.g1}, {"dbeta", &b.g2}});
  }
  {
    const cuda::dyt::Params<T> p{b.scalar.data(), b.gamma.data(), b.beta.data()};
    f(BackwardCase{"dyt", "dyt::backward_kernel", 1, false, true},
      [&] {
        cuda::dyt::backward<T>(p, b.xv, b.dyv, b.dxv, {b.dscalar.data(), b.g1.data(), b.g2.data()},
                               b.ws);
      },
      {{"dx", &b.dx}, {"dalpha", &b.dscalar}, {"dgamma", &b.g1}, {"dbeta", &b.g2}});
  }
  // SeeDNorm and AdaSeeDNorm (whose per-row conditions repeat like x)
  const cuda::DeviceBuffer<T> gc(repeating<T>(n, d, 6, -0.3, 0.3)),
      ec(repeating<T>(n, d, 7, -0.3, 0.3));
  cuda::DeviceBuffer<T> dgc = BackwardBatch<T>::zeros(n * d), dec = BackwardBatch<T>::zeros(n * d);
  const cuda::seednorm::Condition<T> cond{{gc.data(), n, d, d}, {ec.data(), n, d, d}};
  for (const bool ada : {false, true})
    for (int heads : {1, 4})
      for (const auto form :
           {cuda::seednorm::AlphaForm::vector, cuda::seednorm::AlphaForm::scalar}) {
        cuda::seednorm::Config c;
        c.heads = heads;
        c.alpha = form;
        const bool vector = form == cuda::seednorm::AlphaForm::vector;
        const cuda::seednorm::Params<T> p{vector ? b.alpha.data() : b.scalar.data(), b.beta.data(),
                                          ada ? nullptr : b.gamma.data()};
        cuda::DeviceBuffer<T>& dalpha = vector ? b.g1 : b.dscalar;
        const BackwardCase what{
            std::string(ada ? "adaseednorm" : "seednorm") + (vector ? "" : " (scalar alpha)"),
            "seednorm::backward_kernel", heads, true, true};
        cuda::seednorm::Cache<T> cache;
        if (!ada) {
          cuda::seednorm::forward<T>(p, c, b.xv, b.yv, &cache);
          f(what,
            [&] {
              cuda::seednorm::backward<T>(p, c, cache, b.xv, b.dyv, b.dxv,
                                          {dalpha.data(), b.g2.data(), b.g3.data()}, b.ws);
            },
            {{"dx", &b.dx}, {"dalpha", &dalpha}, {"dbeta", &b.g2}, {"dgamma", &b.g3}});
          continue;
        }
        cuda::seednorm::ada_forward<T>(p, c, cond, b.xv, b.yv, &cache);
        f(what,
          [&] {
            cuda::seednorm::ada_backward<T>(p, c, cond, cache, b.xv, b.dyv, b.dxv,
                                            {dalpha.data(), b.g2.data(), nullptr},
                                            {{dgc.data(), n, d, d}, {dec.data(), n, d, d}}, b.ws);
          },
          {{"dx", &b.dx},
           {"dalpha", &dalpha},
           {"dbeta", &b.g2},
           {"dgamma_c", &dgc},
           {"deta_c", &dec}});
      }
  if (with_ap) {  // AP's a: the column-scaling kernel's sums
    const cuda::DeviceBuffer<T> w(repeating<T>(d, d, 8, -0.1, 0.1));
    cuda::Blas blas;
    cuda::scalevec::Config c;
    c.strategy = cuda::scalevec::Strategy::ap;
    cuda::scalevec::Params<T> p;
    p.W = {w.data(), d, d, d};
    p.a = b.alpha.data();
    cuda::scalevec::Cache<T> cache;
    cuda::scalevec::forward<T>(blas, p, c, b.xv, b.yv, &cache);
    cuda::scalevec::Grads<T> g;
    g.da = b.g1.data();
    f(BackwardCase{"scalevec ap", "scale_columns_backward_kernel", 1, false, false},
      [&] { cuda::scalevec::backward<T>(blas, p, c, cache, b.xv, b.dyv, b.dxv, g, b.ws); },
      {{"dx", &b.dx}, {"da", &b.g1}});
  }
}

template <class T>
void expect_periodic_gradients(std::int64_t n, std::int64_t d) {
#if defined(SCALEREF_CUDA_EMU)
  struct GridLimit {
    unsigned saved = emu::options().max_grid_x;
    GridLimit() { emu::options().max_grid_x = 2; }
    ~GridLimit() { emu::options().max_grid_x = saved; }
  } limit;
#endif
  BackwardBatch<T> b(n, d);
  // Runs `call` (a backward), checks each output of d columns for its
  // period, and runs the call again with its second pass walking each row
  // back to front: every output, poisoned with NaN in between, must come back
  // with the same bits. The first call walks front to back
  // (SCALEREF_SECOND_PASS=front, launch.hpp's second_pass_override, whatever
  // the caller's environment or the device's L2 say). On the emulator the
  // second call leaves the direction to the rule (backward_back_to_front)
  // with the device reporting an L2 of 1 KiB, so that the rule itself turns
  // the pass around, and that it did shows in the emulator's traffic
  // counters: the backward kernel re-reads sectors at reuse distances under a
  // quarter of a row segment's x and dy, which front to back, a whole pass
  // apart, it does not. On a GPU, SCALEREF_SECOND_PASS=back turns it around.
  using Output = std::pair<const char*, cuda::DeviceBuffer<T>*>;
  const auto run = [&](const std::string& what, int heads, [[maybe_unused]] bool two_passes,
                       const auto& call, std::initializer_list<Output> outs) {
#if defined(SCALEREF_CUDA_EMU)
    // the backward kernel's re-reads by reuse distance (bucket k: [2^k, 2^(k+1)) bytes)
    const auto rereads = [] {
      std::array<std::uint64_t, emu::kReuseBuckets> h{};
      for (const emu::LaunchTraffic& t : emu::take_traffic())
        if (t.kernel.find("backward_kernel") != std::string::npos)
          for (int b = 0; b < emu::kReuseBuckets; ++b) h[b] += t.reread[b];
      return h;
    };
    emu::options().traffic = true;
    emu::take_traffic();
#endif
    {
      const SecondPassSetting front_to_back("front");
      call();
    }
    std::vector<std::vector<T>> front;
    for (const auto& [name, buf] : outs) {
      front.push_back(buf->download());
      if (buf->size() >= static_cast<std::size_t>(d))
        expect_periodic(front.back(), d, heads, what + " " + name);
    }
    for (const auto& [name, buf] : outs)
      buf->upload(std::vector<T>(buf->size(), std::numeric_limits<T>::quiet_NaN()));
#if defined(SCALEREF_CUDA_EMU)
    const auto front_rereads = rereads();
    struct SmallL2 {
      int saved = emu::options().l2_bytes;
      SmallL2() { emu::options().l2_bytes = 1024; }
      ~SmallL2() { emu::options().l2_bytes = saved; }
    };
    {
      const SmallL2 small;
      const SecondPassSetting rule(nullptr);
      call();
    }
    const auto back_rereads = rereads();
    emu::options().traffic = false;
    if (two_passes) {
      // front to back, a row's re-reads sit about one pass apart (the median bucket m);
      // back to front they spread from next to nothing to two passes, a quarter or so
      // of them under a quarter of a pass (buckets below m - 1)
      std::uint64_t total = 0, seen = 0, front_near = 0, back_near = 0;
      for (int b = 1; b < emu::kReuseBuckets; ++b) total += front_rereads[b];
      int m = 1;
      while (m < emu::kReuseBuckets && (seen += front_rereads[m]) * 2 < total) ++m;
      for (int b = 1; b < m - 1; ++b) {
        front_near += front_rereads[b];
        back_near += back_rereads[b];
      }
      EXPECT_GT(back_near, 2 * front_near + total / 16)
          << what << " (" << heads << " heads) " << sizeof(T) << "-byte: " << back_near << " and "
          << front_near << " of " << total
          << " re-reads under a quarter pass: no sign of a second pass back to front";
    }
#else
    {
      const SecondPassSetting back_to_front("back");
      call();
    }
#endif
    std::size_t k = 0;
    for (const auto& [name, buf] : outs) {
      const std::vector<T> back = buf->download();
      EXPECT_EQ(std::memcmp(back.data(), front[k].data(), back.size() * sizeof(T)), 0)
          << what << " " << name << " (" << heads << " heads) " << sizeof(T) << "-byte " << n << "x"
          << d << ": other bits back to front";
      ++k;
    }
  };
  // (not AP: its d x d weight at 65536 columns)
  each_backward(b, false,
                [&](const BackwardCase& c, const auto& call, std::initializer_list<Output> outs) {
                  if (c.periodic) run(c.what, c.heads, c.two_passes, call, outs);
                });
}

TEST_F(CudaKernels, BackwardGradientsKeepTheirBitsWhereSumsAreSplitBetweenSharedAndGlobal) {
  expect_periodic_gradients<float>(5, 65536);
  expect_periodic_gradients<double>(5, 16384);
  expect_periodic_gradients<cuda::bf16>(3, 4096);  // every sum on chip
}

// Every backward adds its blocks' parameter-gradient sums in chunks of
// consecutive blocks first (cuda/src/detail/partials.cuh): in the kernel,
// its blocks launched in thread-block clusters of one chunk that add through
// distributed shared memory, or by sum_partials when SCALEREF_CLUSTERS=off
// (or the sums do not fit on chip). And a backward whose sums would not fit
// on chip splits its rows over the blocks of a cluster, which add a row's
// statistics through distributed shared memory, or, with
// SCALEREF_CLUSTERS=off, through global memory between two launches. Both
// ways must give the same bits, for every kernel with parameter gradients.
// On the emulator the launches' traffic records say which way the kernel
// that sums went (BackwardCase::kernel): `want(case)` says in clusters of
// how many blocks with clusters, in how many launches without, and (where
// not 0) in how many blocks.
struct ClusterWant {
  unsigned cluster;
  int launches_off = 1;
  unsigned blocks = 0;
};
template <class T, class Want>
void expect_cluster_sums_keep_their_bits(std::int64_t n, std::int64_t d, bool with_ap,
                                         [[maybe_unused]] const Want& want) {
  BackwardBatch<T> b(n, d);
  using Output = std::pair<const char*, cuda::DeviceBuffer<T>*>;
  const auto both = [&](const BackwardCase& c, const auto& call,
                        std::initializer_list<Output> outs) {
    const std::string what = c.what + (c.heads > 1 ? " x" + std::to_string(c.heads) : "");
#if defined(SCALEREF_CUDA_EMU)
    const ClusterWant w = want(c);
    const auto expect_clusters = [&](unsigned cluster, int launches, const char* how) {
      int seen = 0;
      for (const emu::LaunchTraffic& t : emu::take_traffic())
        if (t.kernel.find(c.kernel) != std::string::npos) {
          EXPECT_EQ(t.cluster, cluster) << what << " " << how << ": " << t.kernel;
          if (w.blocks) {
            EXPECT_EQ(t.grid[0], w.blocks) << what << " " << how;
          }
          ++seen;
        }
      EXPECT_EQ(seen, launches) << what << " " << how;
    };
    emu::options().traffic = true;
    emu::take_traffic();
#endif
    {
      const test::ScopedEnv on("SCALEREF_CLUSTERS", nullptr);
      call();
    }
#if defined(SCALEREF_CUDA_EMU)
    expect_clusters(w.cluster, 1, "with clusters");
#endif
    std::vector<std::vector<T>> first;
    for (const auto& [name, buf] : outs) {
      first.push_back(buf->download());
      buf->upload(std::vector<T>(buf->size(), std::numeric_limits<T>::quiet_NaN()));
    }
    {
      const test::ScopedEnv off("SCALEREF_CLUSTERS", "off");
      call();
    }
#if defined(SCALEREF_CUDA_EMU)
    expect_clusters(1, w.launches_off, "with SCALEREF_CLUSTERS=off");
    emu::options().traffic = false;
#endif
    std::size_t k = 0;
    for (const auto& [name, buf] : outs) {
      const std::vector<T> again = buf->download();
      EXPECT_EQ(std::memcmp(again.data(), first[k].data(), again.size() * sizeof(T)), 0)
          << what << " " << name << " " << sizeof(T) << "-byte " << n << "x" << d
          << ": other bits without clusters";
      ++k;
    }
  };
  each_backward(b, with_ap, both);
}

// Every kernel in clusters of `cluster` blocks, in one launch either way.
ClusterWant every(unsigned cluster) { return {cluster}; }

TEST_F(CudaKernels, BackwardSumsKeepTheirBitsWhetherClustersOrSumPartialsAddTheChunks) {
  const auto of = [](unsigned c) { return [c](const BackwardCase&) { return every(c); }; };
  expect_cluster_sums_keep_their_bits<float>(64, 512, true, of(8));       // 64 blocks: of 8
  expect_cluster_sums_keep_their_bits<cuda::bf16>(12, 256, true, of(4));  // 12 blocks: of 4
  expect_cluster_sums_keep_their_bits<double>(7, 128, true, of(1));       // 7 blocks: none
  // 200 columns: the last ranks' shares of a row of sums run short, or are empty
  expect_cluster_sums_keep_their_bits<float>(64, 200, true, of(8));
}

// Rows whose sums would not fit on chip (launch.hpp's row_slices), split in
// 8: RMSNorm's (one head), LayerNorm's and SeeDNorm's in clusters of 8, or
// in two launches without; SeeDNorm's 4 heads in 4 parts of a head each;
// DyT's in 8 independent blocks a row either way (no row statistic). Each
// in ceil(P / parts) row groups (split_geometry), P the blocks a backward
// without the split would have. ClusterWant{parts, 2, groups x parts}.
ClusterWant split_in(unsigned parts, unsigned groups) { return {parts, 2, groups * parts}; }

TEST_F(CudaKernels, BackwardRowsSplitOverClustersKeepTheirBitsWithoutThem) {
  // bf16, 12 rows (P = 12): 2 row groups of 8 parts, 3 of 4;
  // RMSNorm's 2 heads keep their sums in global memory, whole
  expect_cluster_sums_keep_their_bits<cuda::bf16>(12, 65536, false, [](const BackwardCase& c) {
    if (c.what == "rmsnorm") return c.heads == 1 ? split_in(8, 2) : every(1);
    if (c.what == "dyt") return ClusterWant{1, 1, 16};
    return c.heads == 1 ? split_in(8, 2) : split_in(4, 3);  // LayerNorm, SeeDNorm
  });
  // fp64 at 16384, 4 rows: RMSNorm's one sum (128 KiB) fits, whole, in
  // clusters of the 4 blocks; the others' do not: 1 row group
  expect_cluster_sums_keep_their_bits<double>(4, 16384, false, [](const BackwardCase& c) {
    if (c.what == "rmsnorm") return every(4);
    if (c.what == "dyt") return ClusterWant{1, 1, 8};
    return split_in(c.heads == 1 ? 8 : 4, 1);
  });
}

// RMSNorm's, LayerNorm's and SeeDNorm's forward over rows their stash would
// not hold (partials.cuh's plan_forward: fp32 and fp64 at 65536 columns)
// take a row in 8 parts (SeeDNorm's 4 heads: 4 parts of a head), whose sums
// are added in part order (LayerNorm's range at eps = 0: their maximum): in
// a cluster of a block a part, or, with SCALEREF_CLUSTERS=off, a block a row
// walking the parts. y and the cached statistics must keep their bits. x
// does not repeat along the row, so that the parts' sums differ and their
// order shows (a planted reversal of row_statistics's order fails it); its
// last row is constant, which LayerNorm at eps = 0 gives NaN.
template <class T>
void expect_forward_parts_keep_their_bits(std::int64_t n, std::int64_t d) {
  std::vector<T> xs(static_cast<std::size_t>(n * d));
  for (std::size_t k = 0; k < xs.size(); ++k)
    xs[k] = cuda::from_double<T>(std::sin(0.37 * double(k)) * (1 + 1e-5 * double(k % 65521)));
  std::fill(xs.end() - d, xs.end(), cuda::from_double<T>(0.75));
  const cuda::DeviceBuffer<T> x(xs), gamma(repeating<T>(1, d, 2, 0.5, 1.5)),
      beta(repeating<T>(1, d, 3, -0.5, 0.5)), alpha(repeating<T>(1, d, 5, 0.25, 2)),
      shift(repeating<T>(n, d, 7, -0.5, 0.5));
  const Rows<const T> xv{x.data(), n, d, d}, cv{shift.data(), n, d, d};
  using Acc = cuda::Acc<T>;
  // one forward in `parts` parts: its outputs, y first, then the statistics
  // it caches
  const auto runs = [&](const auto& forward, [[maybe_unused]] unsigned parts = 8) {
    std::vector<std::vector<std::vector<Acc>>> out;
    for (const char* clusters : {static_cast<const char*>(nullptr), "off"}) {
      const test::ScopedEnv env("SCALEREF_CLUSTERS", clusters);
#if defined(SCALEREF_CUDA_EMU)
      emu::options().traffic = true;
      emu::take_traffic();
#endif
      cuda::DeviceBuffer<T> y(std::vector<T>(xs.size(), std::numeric_limits<T>::quiet_NaN()));
      std::vector<std::vector<Acc>> got = forward(Rows<T>{y.data(), n, d, d});
      std::vector<Acc> ys;
      for (const T& v : y.download()) ys.push_back(cuda::to_double(v));
      got.insert(got.begin(), ys);
      out.push_back(got);
#if defined(SCALEREF_CUDA_EMU)
      const auto launches = emu::take_traffic();
      emu::options().traffic = false;
      EXPECT_EQ(launches.size(), 1u);
      for (const emu::LaunchTraffic& t : launches) {
        EXPECT_EQ(t.cluster, clusters ? 1u : parts) << t.kernel;
        EXPECT_EQ(t.grid[0], unsigned(n) * (clusters ? 1u : parts)) << t.kernel;
      }
#endif
    }
    return out;
  };
  const auto same = [&](const std::string& what, const auto& out) {
    for (std::size_t k = 0; k < out[0].size(); ++k)
      EXPECT_EQ(std::memcmp(out[0][k].data(), out[1][k].data(), out[0][k].size() * sizeof(Acc)), 0)
          << what << " output " << k << " (" << sizeof(T) << "-byte): other bits without clusters";
  };
  same("rmsnorm", runs([&](Rows<T> y) {
         cuda::rmsnorm::Cache<T> cache;
         cuda::rmsnorm::forward<T>({gamma.data()}, {1e-6, 1}, xv, y, &cache);
         return std::vector<std::vector<Acc>>{cache.rstd.download()};
       }));
  for (const double eps : {1e-5, 0.0})
    same("layernorm eps " + std::to_string(eps), runs([&](Rows<T> y) {
           cuda::layernorm::Cache<T> cache;
           cuda::layernorm::forward<T>({gamma.data(), beta.data()}, {eps}, xv, y, &cache);
           return std::vector<std::vector<Acc>>{cache.mean.download(), cache.rstd.download()};
         }));
  // SeeDNorm: one head (its x . beta summed over the parts too), 16 heads
  // (two a part), 4 heads (a part each) with a scalar alpha, AdaSeeDNorm
  const cuda::seednorm::Params<T> vector{alpha.data(), beta.data(), gamma.data()},
      scalar{alpha.data(), beta.data(), nullptr};
  const auto seednorm = [&](const cuda::seednorm::Params<T>& p, cuda::seednorm::Config c,
                            bool ada) {
    return [&, p, c, ada](Rows<T> y) {
      cuda::seednorm::Cache<T> cache;
      if (ada)
        cuda::seednorm::ada_forward<T>(p, c, {cv, cv}, xv, y, &cache);
      else
        cuda::seednorm::forward<T>(p, c, xv, y, &cache);
      return std::vector<std::vector<Acc>>{cache.rstd.download(), cache.z.download()};
    };
  };
  cuda::seednorm::Config h16, h4;
  h16.heads = 16;
  h4.heads = 4;
  h4.alpha = cuda::seednorm::AlphaForm::scalar;
  same("seednorm", runs(seednorm(vector, {}, false)));
  same("seednorm x16", runs(seednorm(vector, h16, false)));
  same("seednorm x4 scalar alpha", runs(seednorm(scalar, h4, false), 4));
  same("adaseednorm", runs(seednorm(vector, {}, true)));
}

TEST_F(CudaKernels, ForwardRowsSummedInPartsKeepTheirBitsWithoutClusters) {
  expect_forward_parts_keep_their_bits<double>(3, 65536);
  expect_forward_parts_keep_their_bits<float>(3, 65536);
}

TEST_F(CudaKernels, SeedNormBackwardReplaysBitForBit) {
  const Batch b;
  std::vector<float> x(b.x.begin(), b.x.end()), dy(b.dy.begin(), b.dy.end());
  std::vector<float> alpha(Batch::d, 0.7f), beta(Batch::d, 0.01f), gamma(Batch::d, 1.1f);
  cuda::DeviceBuffer<float> X(x), DY(dy), Y(Batch::poisoned<float>()), A(alpha), B(beta), G(gamma);
  const Rows<float> xv{X.data(), Batch::n, Batch::d, Batch::stride};
  const Rows<float> yv{Y.data(), Batch::n, Batch::d, Batch::stride};
  const Rows<float> dyv{DY.data(), Batch::n, Batch::d, Batch::stride};
  cuda::seednorm::Config c;
  c.heads = 4;
  cuda::seednorm::Cache<float> cache;
  cuda::Workspace ws;
  const cuda::seednorm::Params<float> p{A.data(), B.data(), G.data()};
  cuda::seednorm::forward<float>(p, c, cuda::as_const(xv), yv, &cache);
  std::vector<std::vector<float>> runs;
  for (int run = 0; run < 2; ++run) {
    cuda::DeviceBuffer<float> dx(Batch::poisoned<float>()), da(alpha.size()), db(beta.size()),
        dg(gamma.size());
    const Rows<float> dxv{dx.data(), Batch::n, Batch::d, Batch::stride};
    cuda::seednorm::backward<float>(p, c, cache, cuda::as_const(xv), cuda::as_const(dyv), dxv,
                                    {da.data(), db.data(), dg.data()}, ws);
    std::vector<float> all;
    for (const auto* buf : {&dx, &da, &db, &dg}) {
      const auto h = buf->download();
      all.insert(all.end(), h.begin(), h.end());
    }
    runs.push_back(all);
  }
  ASSERT_EQ(runs[0].size(), runs[1].size());
  EXPECT_TRUE(Batch::padding_untouched(runs[0]));  // dx's, at the front
  EXPECT_EQ(std::memcmp(runs[0].data(), runs[1].data(), runs[0].size() * sizeof(float)), 0);
}

// Rows on the device, [n, d] row-major: x as given, dy the same formula in
// every row, and y, dx for a kernel to write.
template <class T>
struct DeviceRows {
  std::int64_t n, d;
  cuda::DeviceBuffer<T> x, dy, y, dx;
  explicit DeviceRows(const std::vector<std::vector<double>>& rows)
      : n(static_cast<std::int64_t>(rows.size())),
        d(static_cast<std::int64_t>(rows.front().size())),
        x(flatten(rows)),
        dy(gradient(n, d)),
        y(static_cast<std::size_t>(n * d)),
        dx(static_cast<std::size_t>(n * d)) {}
  static std::vector<T> flatten(const std::vector<std::vector<double>>& rows) {
    std::vector<T> out;
    for (const auto& r : rows)
      for (const double v : r) out.push_back(static_cast<T>(v));
    return out;
  }
  static std::vector<T> gradient(std::int64_t n, std::int64_t d) {
    std::vector<T> out;
    for (std::int64_t k = 0; k < n * d; ++k) out.push_back(static_cast<T>(std::cos(0.3 * (k % d))));
    return out;
  }
  Rows<const T> in(const cuda::DeviceBuffer<T>& b) const { return {b.data(), n, d, d}; }
  Rows<T> out(cuda::DeviceBuffer<T>& b) { return {b.data(), n, d, d}; }
};

// Row i of a downloaded [n, d] buffer.
template <class T>
std::vector<T> row(const std::vector<T>& all, std::int64_t i, std::int64_t d) {
  return {all.begin() + i * d, all.begin() + (i + 1) * d};
}
template <class T>
bool all_nan(const std::vector<T>& v) {
  for (const T e : v)
    if (!std::isnan(e)) return false;
  return true;
}
template <class T>
bool all_finite(const std::vector<T>& v) {
  for (const T e : v)
    if (!std::isfinite(e)) return false;
  return true;
}

std::vector<double> wave(std::int64_t d, double scale = 1, double shift = 0) {
  std::vector<double> v(static_cast<std::size_t>(d));
  for (std::int64_t j = 0; j < d; ++j) v[j] = scale * std::sin(0.7 * j + 1) + shift;
  return v;
}

// Rows whose mean square + eps float cannot hold give NaN in y and dx, never a
// wrong finite number (a sum of squares that overflowed made y = 0): an
// all-zero row at eps = 0, a row near 1e21 (its squares overflow float), a
// row near 1e-30 at eps = 0 (its squares flush to 0). The rows beside them
// are unaffected, and a row 2^40 times another, whose squares float holds,
// gives the same y bit for bit and 2^-40 its dx.
TEST_F(CudaKernels, RmsNormGivesNaNWhereTheAccumulatorCannotHoldTheRow) {
  const std::int64_t d = 64;
  const std::vector<double> zero(d, 0.0);
  const std::vector<std::vector<double>> rows = {wave(d), zero, wave(d, std::ldexp(1.0, 70)),
                                                 wave(d, 1e-30), wave(d, std::ldexp(1.0, 40))};
  for (const double eps : {0.0, 1e-6}) {
    DeviceRows<float> b(rows);
    cuda::rmsnorm::Config c;
    c.eps = eps;
    cuda::rmsnorm::Cache<float> cache;
    cuda::Workspace ws;
    cuda::rmsnorm::forward<float>({}, c, b.in(b.x), b.out(b.y), &cache);
    cuda::rmsnorm::backward<float>({}, c, cache, b.in(b.x), b.in(b.dy), b.out(b.dx), {}, ws);
    const auto y = b.y.download(), dx = b.dx.download();
    EXPECT_TRUE(all_finite(row(y, 0, d)) && all_finite(row(dx, 0, d))) << eps;
    EXPECT_TRUE(all_nan(row(y, 2, d)) && all_nan(row(dx, 2, d))) << eps;  // overflow at any eps
    if (eps == 0) {
      for (const std::int64_t i : {1, 3})
        EXPECT_TRUE(all_nan(row(y, i, d)) && all_nan(row(dx, i, d))) << "row " << i;
    } else {
      EXPECT_EQ(row(y, 1, d), std::vector<float>(d, 0.0f));  // eps keeps a zero row at 0
      EXPECT_TRUE(all_finite(row(y, 3, d)) && all_finite(row(dx, 3, d)));
    }
    if (eps == 0) {
      EXPECT_EQ(row(y, 4, d), row(y, 0, d));
      std::vector<float> scaled = row(dx, 0, d);
      for (float& v : scaled) v = std::ldexp(v, -40);
      EXPECT_EQ(row(dx, 4, d), scaled);
    }
  }
}

// SeeDNorm's RMS follows the same rule: its all-zero row at eps = 0 and its
// row near 1e21 are NaN, the row beside them finite.
TEST_F(CudaKernels, SeedNormGivesNaNWhereTheAccumulatorCannotHoldTheRow) {
  const std::int64_t d = 32;
  DeviceRows<float> b({wave(d), std::vector<double>(d, 0.0), wave(d, std::ldexp(1.0, 70))});
  std::vector<float> alpha(d, 0.7f), beta(d, 0.01f), gamma(d, 1.1f);
  cuda::DeviceBuffer<float> A(alpha), B(beta), G(gamma);
  cuda::seednorm::Config c;
  c.eps = 0;
  cuda::seednorm::Cache<float> cache;
  cuda::seednorm::forward<float>({A.data(), B.data(), G.data()}, c, b.in(b.x), b.out(b.y), &cache);
  const auto y = b.y.download();
  EXPECT_TRUE(all_finite(row(y, 0, d)));
  EXPECT_TRUE(all_nan(row(y, 1, d)));
  EXPECT_TRUE(all_nan(row(y, 2, d)));
}

// LayerNorm at eps = 0 refuses, as the reference does, a row without spread:
// a constant row (computed variance: its mean's rounding error squared, which
// mapped it to +-1) and one whose entries are an ulp apart; with eps > 0 they
// are normalized to finite values, and rows with spread are finite throughout.
TEST_F(CudaKernels, LayerNormGivesNaNForARowWithoutSpreadAtEpsZero) {
  const std::int64_t d = 48;
  const float lo = 0.3f, hi = std::nextafter(lo, 1.0f);
  std::vector<double> ulp_apart(d);
  for (std::int64_t j = 0; j < d; ++j) ulp_apart[j] = j % 2 ? hi : lo;
  const std::vector<std::vector<double>> rows = {wave(d), std::vector<double>(d, 0.3), ulp_apart,
                                                 wave(d, 1, 1000)};
  for (const double eps : {0.0, 1e-5}) {
    DeviceRows<float> b(rows);
    cuda::layernorm::Config c;
    c.eps = eps;
    cuda::layernorm::Cache<float> cache;
    cuda::Workspace ws;
    cuda::layernorm::forward<float>({}, c, b.in(b.x), b.out(b.y), &cache);
    cuda::layernorm::backward<float>({}, c, cache, b.in(b.x), b.in(b.dy), b.out(b.dx), {}, ws);
    const auto y = b.y.download(), dx = b.dx.download();
    for (const std::int64_t i : {0, 3})
      EXPECT_TRUE(all_finite(row(y, i, d)) && all_finite(row(dx, i, d))) << eps << " row " << i;
    for (const std::int64_t i : {1, 2})
      if (eps == 0)
        EXPECT_TRUE(all_nan(row(y, i, d)) && all_nan(row(dx, i, d))) << "row " << i;
      else
        EXPECT_TRUE(all_finite(row(y, i, d)) && all_finite(row(dx, i, d))) << "row " << i;
  }
  // A row's range is reduced across threads and warps: rows of 2048 (a group
  // of 128 threads, 4 warps) whose halves, quarter rows or 4-entry runs hold 1
  // and 2 have spread, though no thread, warp or pair of warps sees both values
  // in the first ones; a range taken per thread or per warp would call them
  // constant and give NaN.
  const std::int64_t wide = 2048;
  std::vector<std::vector<double>> split(3, std::vector<double>(wide));
  for (std::int64_t j = 0; j < wide; ++j) {
    split[0][j] = j < wide / 2 ? 1 : 2;
    split[1][j] = (j % 512) < 256 ? 1 : 2;
    split[2][j] = (j / 4) % 2 ? 1 : 2;
  }
  DeviceRows<float> w(split);
  cuda::layernorm::Config zero;
  zero.eps = 0;
  cuda::layernorm::forward<float>({}, zero, w.in(w.x), w.out(w.y), nullptr);
  const auto wy = w.y.download();
  for (std::int64_t i = 0; i < 3; ++i) EXPECT_TRUE(all_finite(row(wy, i, wide))) << "row " << i;
  // In double, the constant 0.3 (whose mean is an ulp off) too.
  DeviceRows<double> b({wave(d), std::vector<double>(d, 0.3)});
  cuda::layernorm::Config c;
  c.eps = 0;
  cuda::layernorm::forward<double>({}, c, b.in(b.x), b.out(b.y), nullptr);
  const auto y = b.y.download();
  EXPECT_TRUE(all_finite(row(y, 0, d)));
  EXPECT_TRUE(all_nan(row(y, 1, d)));
}

}  // namespace
