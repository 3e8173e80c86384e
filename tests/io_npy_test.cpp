// scaleref::npy: round trips of every dtype, the exact bit encodings of half
// and bfloat16 (ties to even, subnormals, overflow, NaN), version 1/2/3
// headers, Fortran order, and a corpus of malformed files that must each be
// refused with a scaleref::Error naming the byte offset.
//
// The malformed corpus lives in this file (malformed_corpus()). The committed
// copies in tests/data/npy_malformed/ (the seed corpus of the npy_fuzz target)
// are regenerated from it by running
//   SCALEREF_NPY_WRITE_CORPUS=tests/data/npy_malformed ./build/tests/io_npy_test
// and CommittedCorpusFilesAreAllRejected checks every committed file.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <scaleref/io/npy.hpp>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace scaleref::npy;
using Bytes = std::vector<std::uint8_t>;

// A .npy file: magic, version, header length, dict text padded to 64 bytes
// with spaces and a newline (unless `raw_header`), then the payload.
Bytes make_npy(int major, const std::string& dict, const Bytes& payload = {}, int minor = 0,
               bool raw_header = false) {
  Bytes out = {0x93,
               'N',
               'U',
               'M',
               'P',
               'Y',
               static_cast<std::uint8_t>(major),
               static_cast<std::uint8_t>(minor)};
  const std::size_t prefix = major == 1 ? 10 : 12;
  std::string h = dict;
  if (!raw_header) {
    const std::size_t total = (prefix + h.size() + 1 + 63) / 64 * 64;
    h.append(total - prefix - h.size() - 1, ' ');
    h.push_back('\n');
  }
  for (std::size_t i = 0; i < prefix - 8; ++i)
    out.push_back(static_cast<std::uint8_t>(h.size() >> (8 * i)));
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

Bytes f8_payload(const std::vector<double>& v) {
  Bytes b;
  for (double x : v) {
    const auto u = std::bit_cast<std::uint64_t>(x);
    for (int i = 0; i < 8; ++i) b.push_back(static_cast<std::uint8_t>(u >> (8 * i)));
  }
  return b;
}

std::string dict(const std::string& descr, const std::string& fortran, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
}

Array parse_bytes(const Bytes& b, const ReadOptions& opt = {}) {
  return parse(b.data(), b.size(), opt, "test.npy");
}

std::string temp_path(const std::string& leaf) {
  return (std::filesystem::temp_directory_path() / ("scaleref_npy_" + leaf)).string();
}

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

std::vector<double> awkward_values() {
  std::vector<double> v = {0.0,
                           -0.0,
                           1.0,
                           -1.0,
                           0.1,
                           1.0 / 3.0,
                           65504.0,
                           65520.0,
                           1e6,
                           1e-8,
                           6e-8,
                           3e-5,
                           1e38,
                           3.5e38,
                           1e300,
                           -1e-300,
                           5e-324,
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN()};
  std::mt19937_64 rng(7);
  std::normal_distribution<double> g(0.0, 10.0);
  for (int i = 0; i < 200; ++i)
    v.push_back(g(rng) * std::ldexp(1.0, static_cast<int>(rng() % 80) - 40));
  return v;
}

// ---- round trips -----------------------------------------------------------------

TEST(Npy, F8RoundTripIsBitwise) {
  Array a{{4, 55}, DType::f8, awkward_values()};
  a.data.resize(220);
  const std::string p = temp_path("f8.npy");
  write(p, a);
  const Array b = read(p);
  std::filesystem::remove(p);
  EXPECT_EQ(b.shape, a.shape);
  EXPECT_EQ(b.dtype, DType::f8);
  ASSERT_EQ(b.data.size(), a.data.size());
  for (std::size_t i = 0; i < a.data.size(); ++i) EXPECT_TRUE(same_bits(a.data[i], b.data[i])) << i;
}

TEST(Npy, EveryNarrowDtypeRoundTripsToTheRoundedValues) {
  for (DType d : {DType::f4, DType::f2, DType::bf16}) {
    Array a{{220}, d, awkward_values()};
    a.data.resize(220);
    const std::string p = temp_path(std::string(dtype_name(d)) + ".npy");
    write(p, a);
    ReadOptions opt;
    opt.u2_is_bf16 = true;
    const Array b = read(p, opt);
    std::filesystem::remove(p);
    EXPECT_EQ(b.dtype, d);
    EXPECT_EQ(b.shape, a.shape);
    ASSERT_EQ(b.data.size(), a.data.size());
    for (std::size_t i = 0; i < a.data.size(); ++i) {
      const double want = round_to(a.data[i], d);
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(b.data[i])) << dtype_name(d) << " " << i;
      else
        EXPECT_TRUE(same_bits(b.data[i], want)) << dtype_name(d) << " " << i << " " << a.data[i];
      // Writing the rounded values again is lossless.
      EXPECT_TRUE(std::isnan(want) || same_bits(round_to(want, d), want));
    }
  }
}

TEST(Npy, FromMatrixAndToMatrixRoundTrip) {
  scaleref::Mat<double> m(3, 4);
  for (int i = 0; i < 12; ++i) m.data()[i] = 0.1 * i - 0.3;
  for (DType d : {DType::f8, DType::f4, DType::f2, DType::bf16}) {
    const Array a = from_matrix(m, d);
    EXPECT_EQ(a.shape, (std::vector<long>{3, 4}));
    const Bytes b = serialize(a);
    ReadOptions opt;
    opt.u2_is_bf16 = true;
    const scaleref::Mat<double> back = to_matrix(parse(b.data(), b.size(), opt));
    ASSERT_EQ(back.rows(), 3);
    ASSERT_EQ(back.cols(), 4);
    for (int i = 0; i < 12; ++i) EXPECT_EQ(back.data()[i], round_to(m.data()[i], d));
  }
}

TEST(Npy, ToMatrixShapes) {
  EXPECT_EQ(to_matrix(Array{{}, DType::f8, {5.0}}).rows(), 1);
  const auto v = to_matrix(Array{{3}, DType::f8, {1, 2, 3}});
  EXPECT_EQ(v.rows(), 1);
  EXPECT_EQ(v.cols(), 3);
  EXPECT_EQ(v(0, 2), 3.0);
  const auto m = to_matrix(Array{{2, 1}, DType::f8, {1, 2}});
  EXPECT_EQ(m.rows(), 2);
  EXPECT_THROW(to_matrix(Array{{1, 1, 1}, DType::f8, {1}}), scaleref::Error);
  EXPECT_THROW(to_matrix(Array{{2, 2}, DType::f8, {1}}), scaleref::Error);
}

TEST(Npy, SerializeRefusesAShapeThatDoesNotMatchTheData) {
  EXPECT_THROW(serialize(Array{{2, 3}, DType::f8, {1, 2}}), scaleref::Error);
  EXPECT_THROW(serialize(Array{{-1}, DType::f8, {}}), scaleref::Error);
}

TEST(Npy, SerializeWritesTheNumpyHeaderLayout) {
  const Bytes b = serialize(Array{{2}, DType::f8, {1.0, 2.0}});
  ASSERT_EQ(b.size(), 128u + 16u);
  EXPECT_EQ(b[6], 1);
  EXPECT_EQ(b[7], 0);
  EXPECT_EQ(b[8] | (b[9] << 8), 118);
  const std::string h(b.begin() + 10, b.begin() + 128);
  EXPECT_EQ(h.rfind("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 0), 0u);
  EXPECT_EQ(h.back(), '\n');
  EXPECT_EQ(b[128 + 6], 0xF0);  // 1.0 = 0x3FF0000000000000, little-endian
  EXPECT_EQ(b[128 + 7], 0x3F);
  const Bytes z = serialize(Array{{}, DType::f2, {1.0}});
  EXPECT_NE(std::string(z.begin(), z.end()).find("'shape': ()"), std::string::npos);
  EXPECT_EQ(z[z.size() - 2], 0x00);
  EXPECT_EQ(z[z.size() - 1], 0x3C);
}

TEST(Npy, ZeroSizedArraysRoundTrip) {
  const Bytes b = serialize(Array{{0, 5}, DType::f4, {}});
  const Array a = parse_bytes(b);
  EXPECT_EQ(a.shape, (std::vector<long>{0, 5}));
  EXPECT_TRUE(a.data.empty());
}

// ---- known encodings ----------------------------------------------------------------

TEST(Npy, HalfKnownEncodings) {
  EXPECT_EQ(encode_f2(1.0), 0x3C00);
  EXPECT_EQ(encode_f2(-2.0), 0xC000);
  EXPECT_EQ(encode_f2(0.5), 0x3800);
  EXPECT_EQ(encode_f2(0.0), 0x0000);
  EXPECT_EQ(encode_f2(-0.0), 0x8000);
  EXPECT_EQ(encode_f2(65504.0), 0x7BFF);
  EXPECT_EQ(encode_f2(1.0 / 3.0), 0x3555);
  EXPECT_EQ(decode_f2(0x3555), (1024 + 0x155) * std::ldexp(1.0, -12));
}

TEST(Npy, HalfRoundsTiesToEven) {
  EXPECT_EQ(encode_f2(1.0 + std::ldexp(1.0, -11)), 0x3C00);      // tie, 0x3C00 is even
  EXPECT_EQ(encode_f2(1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02);  // tie, 0x3C02 is even
  EXPECT_EQ(encode_f2(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30)), 0x3C01);  // above the tie
  EXPECT_EQ(encode_f2(2048.0 - 0.5), 0x6800);  // 2047.5 rounds up into the next binade (2048)
  EXPECT_EQ(encode_f2(2049.0), 0x6800);        // tie between 2048 and 2050: even mantissa is 2048
}

TEST(Npy, HalfSubnormals) {
  EXPECT_EQ(encode_f2(std::ldexp(1.0, -24)), 0x0001);         // smallest subnormal
  EXPECT_EQ(encode_f2(1023 * std::ldexp(1.0, -24)), 0x03FF);  // largest subnormal
  EXPECT_EQ(encode_f2(std::ldexp(1.0, -14)), 0x0400);         // smallest normal
  EXPECT_EQ(encode_f2(std::ldexp(1.0, -25)), 0x0000);         // tie with 0: even is 0
  EXPECT_EQ(encode_f2(-std::ldexp(1.0, -25)), 0x8000);        // keeps the sign
  EXPECT_EQ(encode_f2(3 * std::ldexp(1.0, -25)), 0x0002);     // tie between 1 and 2
  EXPECT_EQ(encode_f2(std::ldexp(1.0, -25) * 1.0000001), 0x0001);
  EXPECT_EQ(encode_f2(1023.5 * std::ldexp(1.0, -24)), 0x0400);  // rounds up to the smallest normal
  EXPECT_EQ(encode_f2(1e-300), 0x0000);
  EXPECT_EQ(decode_f2(0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(decode_f2(0x8200), -std::ldexp(1.0, -15));
}

TEST(Npy, HalfOverflowInfinityAndNaN) {
  EXPECT_EQ(encode_f2(65519.99), 0x7BFF);
  EXPECT_EQ(encode_f2(65520.0), 0x7C00);  // tie between 65504 and 2^16: the even side overflows
  EXPECT_EQ(encode_f2(1e6), 0x7C00);
  EXPECT_EQ(encode_f2(-1e300), 0xFC00);
  EXPECT_EQ(encode_f2(std::numeric_limits<double>::infinity()), 0x7C00);
  EXPECT_EQ(encode_f2(-std::numeric_limits<double>::infinity()), 0xFC00);
  const std::uint16_t n = encode_f2(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(n & 0x7C00, 0x7C00);
  EXPECT_NE(n & 0x03FF, 0);
  EXPECT_TRUE(std::isnan(decode_f2(n)));
  EXPECT_TRUE(std::isinf(decode_f2(0x7C00)));
  EXPECT_TRUE(std::signbit(decode_f2(encode_f2(-std::numeric_limits<double>::quiet_NaN()))));
}

TEST(Npy, Bf16KnownEncodingsAndRounding) {
  EXPECT_EQ(encode_bf16(1.0), 0x3F80);
  EXPECT_EQ(encode_bf16(-2.0), 0xC000);
  EXPECT_EQ(encode_bf16(1.0 + std::ldexp(1.0, -8)), 0x3F80);      // tie, to even
  EXPECT_EQ(encode_bf16(1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82);  // tie, to even
  // Rounded once from double: going through float first would round this to the
  // tie 1 + 2^-8 and then down to 1.0.
  EXPECT_EQ(encode_bf16(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30)), 0x3F81);
  EXPECT_EQ(encode_bf16(std::ldexp(1.0, -133)), 0x0001);  // smallest subnormal
  EXPECT_EQ(encode_bf16(std::ldexp(1.0, -134)), 0x0000);  // tie with 0
  EXPECT_EQ(encode_bf16(std::ldexp(255.0 / 128, 127)), 0x7F7F);
  EXPECT_EQ(encode_bf16(1e39), 0x7F80);
  EXPECT_EQ(encode_bf16(-std::numeric_limits<double>::infinity()), 0xFF80);
  EXPECT_EQ(encode_bf16(std::numeric_limits<double>::quiet_NaN()), 0x7FC0);
  EXPECT_EQ(decode_bf16(0x3F80), 1.0);
  EXPECT_EQ(decode_bf16(0x0001), std::ldexp(1.0, -133));
}

TEST(Npy, F4MatchesTheHardwareConversion) {
  for (double x : awkward_values()) {
    if (std::isnan(x) || std::fabs(x) > 3.4e38) continue;
    EXPECT_EQ(encode_f4(x), std::bit_cast<std::uint32_t>(static_cast<float>(x))) << x;
  }
  EXPECT_EQ(encode_f4(1e39), 0x7F800000u);
  EXPECT_EQ(encode_f4(-1e300), 0xFF800000u);
  EXPECT_EQ(encode_f4(std::ldexp(1.0, -149)), 0x00000001u);
}

TEST(Npy, EveryHalfAndBf16BitPatternWidensExactlyAndRoundTrips) {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const auto u = static_cast<std::uint16_t>(b);
    for (int fmt = 0; fmt < 2; ++fmt) {
      const double x = fmt ? decode_bf16(u) : decode_f2(u);
      const std::uint16_t back = fmt ? encode_bf16(x) : encode_f2(x);
      if (std::isnan(x)) {
        EXPECT_TRUE(std::isnan(fmt ? decode_bf16(back) : decode_f2(back)));
      } else {
        ASSERT_EQ(back, u) << fmt << " " << b;
      }
      if (fmt == 1 && !std::isnan(x)) {  // bf16 is the top half of a float
        ASSERT_EQ(x, static_cast<double>(std::bit_cast<float>(b << 16)));
      }
    }
  }
}

// ---- headers -----------------------------------------------------------------------------

TEST(Npy, ReadsVersion1Version2AndVersion3Headers) {
  for (int major : {1, 2, 3}) {
    const Array a =
        parse_bytes(make_npy(major, dict("<f8", "False", "(2,)"), f8_payload({1.5, -2.5})));
    EXPECT_EQ(a.shape, (std::vector<long>{2}));
    EXPECT_EQ(a.data, (std::vector<double>{1.5, -2.5})) << major;
  }
}

TEST(Npy, AcceptsKeyOrderQuotesAndSpacingNumpyMayWrite) {
  const Array a = parse_bytes(
      make_npy(1, "{\"shape\":(1,2),'fortran_order':False,   'descr':'<f8'}", f8_payload({1, 2})));
  EXPECT_EQ(a.shape, (std::vector<long>{1, 2}));
  const Array z = parse_bytes(make_npy(1, dict("<f8", "False", "()"), f8_payload({7})));
  EXPECT_TRUE(z.shape.empty());
  EXPECT_EQ(z.data, (std::vector<double>{7}));
}

TEST(Npy, U2IsReadAsBf16OnlyWithTheFlag) {
  const Bytes b = make_npy(1, dict("<u2", "False", "(1,)"), Bytes{0x80, 0x3F});
  EXPECT_THROW(parse_bytes(b), scaleref::Error);
  ReadOptions opt;
  opt.u2_is_bf16 = true;
  const Array a = parse_bytes(b, opt);
  EXPECT_EQ(a.dtype, DType::bf16);
  EXPECT_EQ(a.data, (std::vector<double>{1.0}));
}

TEST(Npy, FortranOrderIsTransposedIntoCOrder) {
  // [[1, 2, 3], [4, 5, 6]] stored column by column.
  const Array a =
      parse_bytes(make_npy(1, dict("<f8", "True", "(2, 3)"), f8_payload({1, 4, 2, 5, 3, 6})));
  EXPECT_EQ(a.shape, (std::vector<long>{2, 3}));
  EXPECT_EQ(a.data, (std::vector<double>{1, 2, 3, 4, 5, 6}));
  // 3-D: element (i, j, k) has value 100i + 10j + k; Fortran offset i + 2j + 6k.
  std::vector<double> f(2 * 3 * 4);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k)
        f[static_cast<std::size_t>(i + 2 * j + 6 * k)] = 100 * i + 10 * j + k;
  const Array c = parse_bytes(make_npy(1, dict("<f8", "True", "(2, 3, 4)"), f8_payload(f)));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k)
        EXPECT_EQ(c.data[static_cast<std::size_t>(12 * i + 4 * j + k)], 100 * i + 10 * j + k);
}

TEST(Npy, MaxBytesIsEnforcedBeforeAllocating) {
  const Bytes b = make_npy(1, dict("<f8", "False", "(4,)"), f8_payload({1, 2, 3, 4}));
  ReadOptions opt;
  opt.max_bytes = 31;
  EXPECT_THROW(parse_bytes(b, opt), scaleref::Error);
  opt.max_bytes = 32;
  EXPECT_EQ(parse_bytes(b, opt).data.size(), 4u);
}

TEST(Npy, ReadOfAMissingFileNamesThePath) {
  try {
    read("/nonexistent/dir/x.npy");
    FAIL();
  } catch (const scaleref::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/x.npy"), std::string::npos);
  }
}

// ---- malformed corpus --------------------------------------------------------------------

std::vector<std::pair<std::string, Bytes>> malformed_corpus() {
  const Bytes two = f8_payload({1, 2});
  const std::string ok = dict("<f8", "False", "(2,)");
  auto str = [](const std::string& s) { return Bytes(s.begin(), s.end()); };
  std::vector<std::pair<std::string, Bytes>> c;
  c.push_back({"empty", {}});
  c.push_back({"bad_magic", str("\x93NUMPX\x01\x00")});
  c.push_back({"short_magic", str("\x93NUM")});
  c.push_back({"magic_only", str("\x93NUMPY")});
  c.push_back({"bad_major", make_npy(4, ok, two)});
  c.push_back({"major_zero", make_npy(1, ok, two, 0)});
  c.back().second[6] = 0;
  c.push_back({"bad_minor", make_npy(1, ok, two, 1)});
  c.push_back({"truncated_header_length_v1", str(std::string("\x93NUMPY\x01\x00\x46", 9))});
  c.push_back(
      {"truncated_header_length_v2", str(std::string("\x93NUMPY\x02\x00\x46\x00\x00", 11))});
  {
    Bytes b = make_npy(1, ok, two);
    b[8] = 0xFF;
    b[9] = 0xFF;
    c.push_back({"header_length_past_end", b});
  }
  c.push_back({"zero_header_length", make_npy(1, "", two, 0, true)});
  c.push_back({"header_without_newline", make_npy(1, ok + "      ", two, 0, true)});
  c.push_back({"missing_descr", make_npy(1, "{'fortran_order': False, 'shape': (2,), }", two)});
  c.push_back({"missing_fortran_order", make_npy(1, "{'descr': '<f8', 'shape': (2,), }", two)});
  c.push_back({"missing_shape", make_npy(1, "{'descr': '<f8', 'fortran_order': False, }", two)});
  c.push_back(
      {"extra_key",
       make_npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}", two)});
  c.push_back(
      {"duplicate_key",
       make_npy(1, "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2,)}",
                two)});
  c.push_back({"unsupported_descr", make_npy(1, dict("<i4", "False", "(2,)"), f8_payload({1}))});
  c.push_back({"big_endian_descr", make_npy(1, dict(">f8", "False", "(2,)"), two)});
  c.push_back({"complex_descr", make_npy(1, dict("<c16", "False", "(1,)"), two)});
  c.push_back({"descr_not_a_string",
               make_npy(1, "{'descr': 8, 'fortran_order': False, 'shape': (2,), }", two)});
  c.push_back({"negative_shape", make_npy(1, dict("<f8", "False", "(-1,)"), two)});
  c.push_back({"huge_shape", make_npy(1, dict("<f8", "False", "(99999999999999999999,)"), two)});
  c.push_back({"shape_product_overflow",
               make_npy(1, dict("<f8", "False", "(4294967296, 4294967296, 4294967296)"), two)});
  c.push_back(
      {"payload_over_max_bytes", make_npy(1, dict("<f8", "False", "(1099511627776,)"), two)});
  c.push_back({"payload_shorter_than_shape", make_npy(1, dict("<f8", "False", "(3,)"), two)});
  c.push_back({"trailing_garbage", make_npy(1, ok, f8_payload({1, 2, 3}))});
  c.push_back(
      {"non_ascii_header",
       make_npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), '\xc3\xa9': 1}", two)});
  c.push_back(
      {"nul_in_header",
       make_npy(1, std::string("{'descr': '<f8'\0, 'fortran_order': False, 'shape': (2,)}", 57),
                two)});
  c.push_back({"unterminated_dict",
               make_npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), ", two)});
  c.push_back({"unterminated_tuple",
               make_npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 1", two)});
  c.push_back({"unterminated_string",
               make_npy(1, "{'descr': '<f8, 'fortran_order': False, 'shape': (2,)}", two)});
  c.push_back({"shape_is_an_int", make_npy(1, dict("<f8", "False", "(2)"), two)});
  c.push_back({"shape_not_a_tuple", make_npy(1, dict("<f8", "False", "[2]"), two)});
  c.push_back({"fortran_order_not_a_bool", make_npy(1, dict("<f8", "Maybe", "(2,)"), two)});
  c.push_back({"fortran_order_prefix", make_npy(1, dict("<f8", "Falsehood", "(2,)"), two)});
  c.push_back(
      {"unquoted_key", make_npy(1, "{descr: '<f8', 'fortran_order': False, 'shape': (2,)}", two)});
  c.push_back({"missing_colon",
               make_npy(1, "{'descr' '<f8', 'fortran_order': False, 'shape': (2,)}", two)});
  c.push_back({"no_open_brace",
               make_npy(1, "'descr': '<f8', 'fortran_order': False, 'shape': (2,)}", two)});
  c.push_back({"text_after_dict", make_npy(1, ok + " x", two)});
  {
    std::string s = "(";
    for (int i = 0; i < 65; ++i) s += "1, ";
    c.push_back(
        {"too_many_dimensions", make_npy(1, dict("<f8", "False", s + ")"), f8_payload({1}))});
  }
  {
    const Bytes full = make_npy(2, ok, two);
    c.push_back({"truncated_in_header", Bytes(full.begin(), full.begin() + 40)});
  }
  return c;
}

TEST(Npy, MalformedCorpusIsRejectedWithAnOffset) {
  const auto corpus = malformed_corpus();
  ASSERT_GE(corpus.size(), 20u);
  for (const auto& [name, bytes] : corpus) {
    for (bool bf : {false, true}) {
      ReadOptions opt;
      opt.u2_is_bf16 = bf;
      try {
        parse(bytes.data(), bytes.size(), opt, name + ".npy");
        ADD_FAILURE() << name << " was accepted";
      } catch (const scaleref::Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(name + ".npy"), std::string::npos) << msg;
        EXPECT_NE(msg.find("at byte offset "), std::string::npos) << msg;
      }
    }
  }
  if (const char* dir = std::getenv("SCALEREF_NPY_WRITE_CORPUS")) {
    std::filesystem::create_directories(dir);
    for (const auto& [name, bytes] : corpus) {
      std::ofstream out(std::filesystem::path(dir) / (name + ".npy"), std::ios::binary);
      out.write(reinterpret_cast<const char*>(bytes.data()),
                static_cast<std::streamsize>(bytes.size()));
    }
  }
}

TEST(Npy, OffsetsPointAtTheFault) {
  auto offset_of = [](const Bytes& b) {
    try {
      parse(b.data(), b.size(), {}, "f.npy");
    } catch (const scaleref::Error& e) {
      const std::string msg = e.what();
      const auto at = msg.find("at byte offset ");
      return std::stol(msg.substr(at + 15));
    }
    return -1L;
  };
  EXPECT_EQ(offset_of({0x93, 'N', 'U', 'M', 'P', 'X'}), 5);
  EXPECT_EQ(offset_of(make_npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
                               f8_payload({1}))),
            128);
  EXPECT_EQ(offset_of(make_npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
                               f8_payload({1, 2, 3}))),
            144);
  EXPECT_EQ(offset_of(make_npy(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }")),
            10 + 10);
  EXPECT_EQ(offset_of(make_npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (-2,), }")),
            10 + 51);
}

#ifdef SCALEREF_NPY_CORPUS_DIR
TEST(Npy, CommittedCorpusFilesAreAllRejected) {
  std::size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(SCALEREF_NPY_CORPUS_DIR)) {
    if (entry.path().extension() != ".npy") continue;
    ++n;
    try {
      read(entry.path().string());
      ADD_FAILURE() << entry.path() << " was accepted";
    } catch (const scaleref::Error& e) {
      EXPECT_NE(std::string(e.what()).find("at byte offset "), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(n, malformed_corpus().size());
}
#endif

}  // namespace
