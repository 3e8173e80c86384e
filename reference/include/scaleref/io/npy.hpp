// NumPy .npy reader and writer, header-only.
//
// Format (numpy.lib.format): the magic "\x93NUMPY", a major and a minor
// version byte, a little-endian header length (uint16 for version 1.0, uint32
// for 2.0 and 3.0), then an ASCII Python-literal dict
//   {'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces to a 64-byte boundary and ended by '\n', then the raw
// little-endian payload.
//
// Supported dtypes: '<f8', '<f4', '<f2' (IEEE half) and bfloat16, stored as
// '<u2' (NumPy has no bfloat16; '<u2' is read as bfloat16 only when
// ReadOptions::u2_is_bf16 is set). With ReadOptions::integers, also the
// integer dtypes ('|i1' '<i2' '<i4' '<i8' '|u1' '<u4' '<u8'), read as the
// doubles they equal (DType::f8); an entry beyond 2^53 in magnitude, which a
// double cannot hold exactly, is refused. '<u2' is never read as an integer:
// it is how bfloat16 is dumped, and its bit patterns read as numbers would be
// finite, plausible and wrong. Anything else (big-endian,
// booleans, complex, structured) is refused.
//
// The reader is strict: the header dict must have exactly the keys 'descr',
// 'fortran_order' and 'shape'; the payload must have exactly the bytes the
// shape asks for (trailing bytes are refused). Fortran-order arrays are
// transposed into C order on reading. Every failure throws scaleref::Error
// whose message names the file and the byte offset where parsing failed, e.g.
//   "npy::parse: w.npy: at byte offset 10: expected '{' to open the header dict, got 'x'"
// Sizes are checked (shape product overflow, payload against the bytes present
// and against ReadOptions::max_bytes) before anything is allocated.
//
// Conversions to and from half and bfloat16 are written out here: widening is
// exact; narrowing rounds to nearest, ties to even, overflows to infinity, and
// keeps NaN (as a quiet NaN of the same sign) and infinities.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <scaleref/error.hpp>
#include <scaleref/spec/common.hpp>
#include <scaleref/types.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace scaleref::npy {

// Little-endian '<f8' '<f4' '<f2'; bf16 is stored as '<u2'.
enum class DType { f8, f4, f2, bf16 };

struct ReadOptions {
  bool u2_is_bf16 = false;                           // read '<u2' as bfloat16
  bool integers = false;                             // read integer dtypes as exact doubles
  std::uint64_t max_bytes = std::uint64_t(1) << 32;  // refuse larger payloads
};

// An n-dimensional array in C order; values are widened exactly to double.
struct Array {
  std::vector<long> shape;
  DType dtype = DType::f8;
  std::vector<double> data;
};

inline Array parse(const std::uint8_t* bytes, std::size_t size, const ReadOptions& = {},
                   const std::string& name = "<memory>");
inline Array read(const std::string& path, const ReadOptions& = {});
// Rounds data to a.dtype (round to nearest even; bf16 too). Writes version 1.0,
// or 2.0 when the header does not fit in 65535 bytes.
inline std::vector<std::uint8_t> serialize(const Array& a);
inline void write(const std::string& path, const Array& a);
// 2-D -> [r, c]; 1-D -> [1, n]; 0-D -> [1, 1]; more dims -> Error.
inline Mat<double> to_matrix(const Array& a);
// Shape {rows, cols}; the data is rounded to dtype, so the Array holds exactly
// the values a write/read round trip gives back.
inline Array from_matrix(const Mat<double>& m, DType dtype = DType::f8);

// ---- scalar conversions -----------------------------------------------------

// Bytes per element of a dtype.
inline std::size_t item_size(DType d) {
  switch (d) {
    case DType::f8:
      return 8;
    case DType::f4:
      return 4;
    case DType::f2:
    case DType::bf16:
      return 2;
  }
  return 0;
}

// "f8", "f4", "f2", "bf16".
inline constexpr spec::NameTable<DType, 4> kDTypeNames{
    {{DType::f8, "f8"}, {DType::f4, "f4"}, {DType::f2, "f2"}, {DType::bf16, "bf16"}}};
inline constexpr const char* dtype_name(DType d) { return spec::name_of(kDTypeNames, d); }

namespace detail {

// Rounds a non-negative q < 2^53 to the nearest integer, ties to even,
// independently of the floating-point rounding mode.
inline std::uint64_t round_half_even(double q) {
  const double fl = std::floor(q);
  const double frac = q - fl;  // exact: q and fl share an exponent range
  auto r = static_cast<std::uint64_t>(fl);
  if (frac > 0.5 || (frac == 0.5 && (r & 1u))) ++r;
  return r;
}

// Encodes x in a binary format with `mant` fraction bits and `expb` exponent
// bits (IEEE layout: sign, biased exponent, fraction). Round to nearest even,
// overflow to infinity, NaN to a quiet NaN of the same sign.
inline std::uint64_t encode(double x, int mant, int expb) {
  const std::uint64_t one = 1;
  const std::uint64_t sign = std::signbit(x) ? one << (mant + expb) : 0;
  const int bias = (1 << (expb - 1)) - 1;
  const int emin = 1 - bias;
  const std::uint64_t emax_field = (one << expb) - 1;
  if (std::isnan(x)) return sign | (emax_field << mant) | (one << (mant - 1));
  if (std::isinf(x)) return sign | (emax_field << mant);
  const double a = std::fabs(x);
  if (a == 0) return sign;
  int E = 0;
  std::frexp(a, &E);  // a = m * 2^E, m in [0.5, 1)
  int e = E - 1;      // a in [2^e, 2^(e+1))
  if (e < emin) {     // subnormal in the target (or rounds up to the smallest normal)
    const std::uint64_t r = round_half_even(std::ldexp(a, mant - emin));
    return sign | r;  // r == 2^mant is exactly the smallest normal's bit pattern
  }
  std::uint64_t r = round_half_even(std::ldexp(a, mant - e));  // in [2^mant, 2^(mant+1)]
  if (r == (one << (mant + 1))) {
    r = one << mant;
    ++e;
  }
  const std::uint64_t field = static_cast<std::uint64_t>(e + bias);
  if (field >= emax_field) return sign | (emax_field << mant);
  return sign | (field << mant) | (r - (one << mant));
}

// Decodes bits of the format above to double, exactly.
inline double decode(std::uint64_t bits, int mant, int expb) {
  const std::uint64_t one = 1;
  const bool neg = (bits >> (mant + expb)) & 1u;
  const int bias = (1 << (expb - 1)) - 1;
  const std::uint64_t emax_field = (one << expb) - 1;
  const std::uint64_t field = (bits >> mant) & emax_field;
  const std::uint64_t frac = bits & ((one << mant) - 1);
  double v;
  if (field == emax_field)
    v = frac ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (field == 0)
    v = std::ldexp(static_cast<double>(frac), 1 - bias - mant);
  else
    v = std::ldexp(static_cast<double>(frac | (one << mant)),
                   static_cast<int>(field) - bias - mant);
  return neg ? -v : v;
}

}  // namespace detail

// IEEE binary16 bits of x (round to nearest even); 1.0 -> 0x3C00.
inline std::uint16_t encode_f2(double x) {
  return static_cast<std::uint16_t>(detail::encode(x, 10, 5));
}
// bfloat16 bits of x, rounded once from double (nearest even); 1.0 -> 0x3F80.
inline std::uint16_t encode_bf16(double x) {
  return static_cast<std::uint16_t>(detail::encode(x, 7, 8));
}
// IEEE binary32 bits of x (nearest even, overflow to infinity).
inline std::uint32_t encode_f4(double x) {
  return static_cast<std::uint32_t>(detail::encode(x, 23, 8));
}
inline double decode_f2(std::uint16_t b) { return detail::decode(b, 10, 5); }
inline double decode_bf16(std::uint16_t b) { return detail::decode(b, 7, 8); }
inline double decode_f4(std::uint32_t b) { return static_cast<double>(std::bit_cast<float>(b)); }

// x rounded to the nearest value of dtype d, as a double.
inline double round_to(double x, DType d) {
  switch (d) {
    case DType::f8:
      return x;
    case DType::f4:
      return decode_f4(encode_f4(x));
    case DType::f2:
      return decode_f2(encode_f2(x));
    case DType::bf16:
      return decode_bf16(encode_bf16(x));
  }
  return x;
}

// ---- reader -------------------------------------------------------------------

namespace detail {

constexpr std::size_t kMaxDims = 64;
inline constexpr std::uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

class HeaderParser {
 public:
  HeaderParser(const std::uint8_t* p, std::size_t begin, std::size_t end, const std::string& name)
      : p_(p), pos_(begin), end_(end), name_(name) {}

  template <class... Parts>
  [[noreturn]] void fail_at(std::size_t offset, const Parts&... parts) const {
    scaleref::fail("npy::parse: ", name_, ": at byte offset ", offset, ": ", parts...);
  }

  std::size_t pos() const { return pos_; }
  bool at_end() const { return pos_ >= end_; }

  std::string describe_here() const {
    if (at_end()) return "end of header";
    std::ostringstream os;
    const unsigned c = p_[pos_];
    if (c >= 0x20 && c < 0x7f)
      os << '\'' << static_cast<char>(c) << '\'';
    else
      os << "byte 0x" << std::hex << c;
    return os.str();
  }

  void skip_spaces() {
    while (!at_end() && (p_[pos_] == ' ' || p_[pos_] == '\t')) ++pos_;
  }

  void expect(char c, const char* what) {
    skip_spaces();
    if (at_end() || p_[pos_] != static_cast<std::uint8_t>(c))
      fail_at(pos_, "expected '", c, "' ", what, ", got ", describe_here());
    ++pos_;
  }

  bool peek_is(char c) {
    skip_spaces();
    return !at_end() && p_[pos_] == static_cast<std::uint8_t>(c);
  }

  // A Python string literal in single or double quotes, no escapes.
  std::string string_literal(const char* what) {
    skip_spaces();
    const std::size_t start = pos_;
    if (at_end() || (p_[pos_] != '\'' && p_[pos_] != '"'))
      fail_at(pos_, "expected a quoted string for ", what, ", got ", describe_here());
    const std::uint8_t q = p_[pos_++];
    std::string s;
    while (!at_end() && p_[pos_] != q) {
      if (p_[pos_] == '\\') fail_at(pos_, "escape sequences are not supported in ", what);
      s.push_back(static_cast<char>(p_[pos_++]));
      if (s.size() > 64) fail_at(start, "string for ", what, " is longer than 64 bytes");
    }
    if (at_end()) fail_at(start, "unterminated string for ", what);
    ++pos_;
    return s;
  }

  bool bool_literal() {
    skip_spaces();
    if (match_word("True")) return true;
    if (match_word("False")) return false;
    fail_at(pos_, "expected True or False for 'fortran_order', got ", describe_here());
  }

  // A non-negative decimal integer <= 2^62.
  long integer(const char* what) {
    skip_spaces();
    const std::size_t start = pos_;
    if (at_end() || p_[pos_] < '0' || p_[pos_] > '9') {
      if (!at_end() && p_[pos_] == '-') fail_at(pos_, "negative value for ", what);
      fail_at(pos_, "expected a non-negative integer for ", what, ", got ", describe_here());
    }
    constexpr std::uint64_t kLimit = std::uint64_t(1) << 62;
    std::uint64_t v = 0;
    while (!at_end() && p_[pos_] >= '0' && p_[pos_] <= '9') {
      v = v * 10 + static_cast<std::uint64_t>(p_[pos_] - '0');
      if (v > kLimit) fail_at(start, what, " is larger than 2^62");
      ++pos_;
    }
    return static_cast<long>(v);
  }

  // A Python tuple of non-negative ints: (), (n,), (a, b), (a, b,).
  std::vector<long> shape_tuple() {
    expect('(', "to open the 'shape' tuple");
    std::vector<long> shape;
    if (peek_is(')')) {
      ++pos_;
      return shape;
    }
    for (;;) {
      if (shape.size() >= kMaxDims)
        fail_at(pos_, "'shape' has more than ", kMaxDims, " dimensions");
      shape.push_back(integer("a 'shape' dimension"));
      skip_spaces();
      if (at_end()) fail_at(pos_, "unterminated 'shape' tuple");
      if (p_[pos_] == ',') {
        ++pos_;
        if (peek_is(')')) {
          ++pos_;
          return shape;
        }
        continue;
      }
      if (p_[pos_] == ')') {
        if (shape.size() == 1) fail_at(pos_, "'shape' (n) is an int, not a tuple; expected (n,)");
        ++pos_;
        return shape;
      }
      fail_at(pos_, "expected ',' or ')' in the 'shape' tuple, got ", describe_here());
    }
  }

 private:
  bool match_word(const char* w) {
    std::size_t n = 0;
    while (w[n]) ++n;
    if (end_ - pos_ < n) return false;
    for (std::size_t i = 0; i < n; ++i)
      if (p_[pos_ + i] != static_cast<std::uint8_t>(w[i])) return false;
    const std::size_t after = pos_ + n;
    if (after < end_) {
      const std::uint8_t c = p_[after];
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
        return false;
    }
    pos_ = after;
    return true;
  }

  const std::uint8_t* p_;
  std::size_t pos_;
  std::size_t end_;
  const std::string& name_;
};

inline std::uint64_t load_le(const std::uint8_t* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}

inline void store_le(std::vector<std::uint8_t>& out, std::uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

}  // namespace detail

inline Array parse(const std::uint8_t* bytes, std::size_t size, const ReadOptions& opt,
                   const std::string& name) {
  auto fail_at = [&](std::size_t offset, const auto&... parts) {
    scaleref::fail("npy::parse: ", name, ": at byte offset ", offset, ": ", parts...);
  };
  if (bytes == nullptr && size != 0) fail_at(0, "null buffer of ", size, " bytes");
  for (std::size_t i = 0; i < 6; ++i) {
    if (i >= size) fail_at(i, "truncated magic: the file has only ", size, " bytes");
    if (bytes[i] != detail::kMagic[i]) fail_at(i, "bad magic: expected \"\\x93NUMPY\"");
  }
  if (size < 8) fail_at(size, "truncated before the version bytes");
  const unsigned major = bytes[6], minor = bytes[7];
  if (major < 1 || major > 3)
    fail_at(6, "unsupported format version ", major, ".", minor, " (expected 1.0, 2.0 or 3.0)");
  if (minor != 0)
    fail_at(7, "unsupported format version ", major, ".", minor, " (expected 1.0, 2.0 or 3.0)");
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  if (size < 8 + len_bytes)
    fail_at(8, "truncated header length: needs ", len_bytes, " bytes, the file has ", size - 8);
  const std::uint64_t hlen = detail::load_le(bytes + 8, len_bytes);
  const std::size_t hstart = 8 + len_bytes;
  if (hlen > size - hstart)
    fail_at(8, "header length ", hlen, " runs past the end of the file (", size - hstart,
            " bytes after the length field)");
  const std::size_t hend = hstart + static_cast<std::size_t>(hlen);  // one past the '\n'
  if (hlen == 0) fail_at(hstart, "empty header");
  for (std::size_t i = hstart; i < hend; ++i)
    if (bytes[i] >= 0x80 || (bytes[i] < 0x20 && bytes[i] != '\n' && bytes[i] != '\t'))
      fail_at(i, "header byte 0x", std::hex, static_cast<unsigned>(bytes[i]), std::dec,
              " is not printable ASCII");
  if (bytes[hend - 1] != '\n') fail_at(hend - 1, "header does not end with a newline");

  detail::HeaderParser hp(bytes, hstart, hend - 1, name);
  hp.expect('{', "to open the header dict");
  bool have_descr = false, have_fortran = false, have_shape = false;
  std::string descr;
  std::size_t descr_at = 0;
  bool fortran = false;
  std::vector<long> shape;
  for (;;) {
    if (hp.peek_is('}')) break;
    const std::size_t key_at = (hp.skip_spaces(), hp.pos());
    const std::string key = hp.string_literal("a header key");
    hp.expect(':', "after a header key");
    if (key == "descr") {
      if (have_descr) hp.fail_at(key_at, "duplicate key 'descr'");
      have_descr = true;
      descr_at = (hp.skip_spaces(), hp.pos());
      descr = hp.string_literal("'descr'");
    } else if (key == "fortran_order") {
      if (have_fortran) hp.fail_at(key_at, "duplicate key 'fortran_order'");
      have_fortran = true;
      fortran = hp.bool_literal();
    } else if (key == "shape") {
      if (have_shape) hp.fail_at(key_at, "duplicate key 'shape'");
      have_shape = true;
      shape = hp.shape_tuple();
    } else {
      hp.fail_at(key_at, "unexpected header key '", key,
                 "' (expected 'descr', 'fortran_order', 'shape')");
    }
    hp.skip_spaces();
    if (hp.at_end()) hp.fail_at(hp.pos(), "unterminated header dict");
    if (hp.peek_is(',')) {
      hp.expect(',', "");
      continue;
    }
    if (hp.peek_is('}')) break;
    hp.fail_at(hp.pos(), "expected ',' or '}' in the header dict, got ", hp.describe_here());
  }
  const std::size_t close_at = hp.pos();
  hp.expect('}', "to close the header dict");
  hp.skip_spaces();
  if (!hp.at_end())
    hp.fail_at(hp.pos(), "unexpected ", hp.describe_here(), " after the header dict");
  if (!have_descr) fail_at(close_at, "header dict has no 'descr' key");
  if (!have_fortran) fail_at(close_at, "header dict has no 'fortran_order' key");
  if (!have_shape) fail_at(close_at, "header dict has no 'shape' key");

  Array out;
  // An integer dtype: its size in bytes and whether it is signed (0: not one).
  std::size_t int_size = 0;
  bool int_signed = false;
  const bool integer_descr =
      descr.size() == 3 && (descr[0] == '<' || descr[0] == '|') &&
      (descr[1] == 'i' || descr[1] == 'u') &&
      (descr[2] == '1' || descr[2] == '2' || descr[2] == '4' || descr[2] == '8') &&
      (descr[0] == '|') == (descr[2] == '1');
  if (descr == "<f8") {
    out.dtype = DType::f8;
  } else if (descr == "<f4") {
    out.dtype = DType::f4;
  } else if (descr == "<f2") {
    out.dtype = DType::f2;
  } else if (descr == "<u2" && opt.u2_is_bf16) {
    out.dtype = DType::bf16;
  } else if (integer_descr && opt.integers && descr != "<u2") {
    out.dtype = DType::f8;
    int_size = static_cast<std::size_t>(descr[2] - '0');
    int_signed = descr[1] == 'i';
  } else if (descr == "<u2") {
    fail_at(descr_at, "dtype '<u2' is read as bfloat16 only with ReadOptions::u2_is_bf16 set");
  } else if (integer_descr) {
    fail_at(descr_at, "integer dtype '", descr, "' is read only with ReadOptions::integers set");
  } else if (!descr.empty() && descr[0] == '>') {
    fail_at(descr_at, "big-endian dtype '", descr,
            "' is not supported (expected '<f8', '<f4', '<f2' or '<u2')");
  } else {
    fail_at(descr_at, "unsupported dtype '", descr, "' (expected '<f8', '<f4', '<f2' or '<u2')");
  }

  const std::size_t isz = int_size ? int_size : item_size(out.dtype);
  std::uint64_t count = 1;
  for (long d : shape) {
    const auto ud = static_cast<std::uint64_t>(d);
    if (ud != 0 && count > (std::numeric_limits<std::uint64_t>::max() / isz) / ud)
      fail_at(hstart, "shape product overflows: the payload would exceed 2^64 bytes");
    count *= ud;
  }
  const std::uint64_t need = count * isz;
  if (need > opt.max_bytes)
    fail_at(hend, "payload of ", need, " bytes exceeds ReadOptions::max_bytes = ", opt.max_bytes);
  const std::size_t have = size - hend;
  if (need > have)
    fail_at(hend, "truncated payload: the shape needs ", need, " bytes, only ", have, " remain");
  if (need < have)
    fail_at(hend + need, "trailing garbage: ", have - need, " bytes after the payload");
  if (count > out.data.max_size()) fail_at(hend, "payload too large for this platform");

  out.shape = shape;
  out.data.resize(static_cast<std::size_t>(count));
  const std::uint8_t* src = bytes + hend;
  auto element = [&](std::size_t k) -> double {
    const std::uint8_t* q = src + k * isz;
    if (int_size) {
      const std::uint64_t raw = detail::load_le(q, int_size);
      constexpr std::uint64_t kExact = std::uint64_t(1)
                                       << 53;  // every integer up to it is a double
      std::uint64_t magnitude = raw;
      bool negative = false;
      if (int_signed) {
        const unsigned shift = static_cast<unsigned>(64 - 8 * int_size);  // sign-extend
        const std::int64_t v = static_cast<std::int64_t>(raw << shift) >> shift;
        negative = v < 0;
        magnitude = negative ? ~static_cast<std::uint64_t>(v) + 1 : static_cast<std::uint64_t>(v);
      }
      if (magnitude > kExact)
        fail_at(hend + k * isz, "integer entry ", k,
                " exceeds 2^53 in magnitude: no double holds every such integer exactly");
      const double d = static_cast<double>(magnitude);
      return negative ? -d : d;
    }
    switch (out.dtype) {
      case DType::f8:
        return std::bit_cast<double>(detail::load_le(q, 8));
      case DType::f4:
        return decode_f4(static_cast<std::uint32_t>(detail::load_le(q, 4)));
      case DType::f2:
        return decode_f2(static_cast<std::uint16_t>(detail::load_le(q, 2)));
      case DType::bf16:
        return decode_bf16(static_cast<std::uint16_t>(detail::load_le(q, 2)));
    }
    return 0;
  };
  const std::size_t n = out.data.size();
  if (!fortran || shape.size() < 2 || n == 0) {
    for (std::size_t k = 0; k < n; ++k) out.data[k] = element(k);
    return out;
  }
  // Fortran order: element (i0, ..., i_{d-1}) is at i0 + s0*(i1 + s1*(...)).
  // Walk the C-order multi-index and track the Fortran offset.
  const std::size_t nd = shape.size();
  std::vector<std::size_t> fstride(nd), idx(nd, 0);
  std::size_t s = 1;
  for (std::size_t d = 0; d < nd; ++d) {
    fstride[d] = s;
    s *= static_cast<std::size_t>(shape[d]);
  }
  std::size_t f = 0;
  for (std::size_t k = 0; k < n; ++k) {
    out.data[k] = element(f);
    for (std::size_t d = nd; d-- > 0;) {  // increment the C multi-index, last axis fastest
      if (++idx[d] < static_cast<std::size_t>(shape[d])) {
        f += fstride[d];
        break;
      }
      f -= fstride[d] * (idx[d] - 1);
      idx[d] = 0;
    }
  }
  return out;
}

inline Array read(const std::string& path, const ReadOptions& opt) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail("npy::read: '", path, "' is a directory");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail("npy::read: cannot open '", path, "'");
  const std::streamoff end = in.tellg();
  if (end < 0) fail("npy::read: cannot determine the size of '", path, "'");
  const auto size = static_cast<std::uint64_t>(end);
  // The payload may be at most max_bytes; allow 16 MiB for the header.
  const std::uint64_t slack = std::uint64_t(16) << 20;
  if (size > opt.max_bytes + slack)
    fail("npy::parse: ", path, ": at byte offset 0: the file is ", size,
         " bytes, more than ReadOptions::max_bytes (", opt.max_bytes, ") plus 16 MiB of header");
  std::vector<std::uint8_t> buf(static_cast<std::size_t>(size));
  in.seekg(0);
  if (size > 0 && !in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(size)))
    fail("npy::read: cannot read ", size, " bytes from '", path, "'");
  return parse(buf.data(), buf.size(), opt, path);
}

// ---- writer -------------------------------------------------------------------

inline std::vector<std::uint8_t> serialize(const Array& a) {
  std::uint64_t count = 1;
  for (long d : a.shape) {
    require(d >= 0, "npy::serialize", "expected non-negative shape dimensions, got ", d);
    const auto ud = static_cast<std::uint64_t>(d);
    require(ud == 0 || count <= std::numeric_limits<std::uint64_t>::max() / ud, "npy::serialize",
            "shape product overflows");
    count *= ud;
  }
  require(count == a.data.size(), "npy::serialize", "shape holds ", count, " elements, data has ",
          a.data.size());
  const char* descr = a.dtype == DType::f8   ? "<f8"
                      : a.dtype == DType::f4 ? "<f4"
                      : a.dtype == DType::f2 ? "<f2"
                                             : "<u2";
  std::ostringstream h;
  h << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < a.shape.size(); ++i) h << (i ? ", " : "") << a.shape[i];
  if (a.shape.size() == 1) h << ',';
  h << "), }";
  std::string header = h.str();
  std::size_t prefix = 10;  // version 1.0: magic, 2 version bytes, uint16 length
  std::size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  if (total - prefix > 65535) {
    prefix = 12;
    total = (prefix + header.size() + 1 + 63) / 64 * 64;
  }
  header.append(total - prefix - header.size() - 1, ' ');
  header.push_back('\n');

  const std::size_t isz = item_size(a.dtype);
  std::vector<std::uint8_t> out;
  out.reserve(total + a.data.size() * isz);
  for (std::uint8_t b : detail::kMagic) out.push_back(b);
  out.push_back(prefix == 10 ? 1 : 2);
  out.push_back(0);
  detail::store_le(out, header.size(), prefix - 8);
  out.insert(out.end(), header.begin(), header.end());
  for (double x : a.data) {
    switch (a.dtype) {
      case DType::f8:
        detail::store_le(out, std::bit_cast<std::uint64_t>(x), 8);
        break;
      case DType::f4:
        detail::store_le(out, encode_f4(x), 4);
        break;
      case DType::f2:
        detail::store_le(out, encode_f2(x), 2);
        break;
      case DType::bf16:
        detail::store_le(out, encode_bf16(x), 2);
        break;
    }
  }
  return out;
}

inline void write(const std::string& path, const Array& a) {
  const std::vector<std::uint8_t> bytes = serialize(a);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail("npy::write: cannot open '", path, "' for writing");
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) fail("npy::write: error writing ", bytes.size(), " bytes to '", path, "'");
}

// ---- matrices -------------------------------------------------------------------

inline Mat<double> to_matrix(const Array& a) {
  long r = 1, c = 1;
  if (a.shape.size() == 2) {
    r = a.shape[0];
    c = a.shape[1];
  } else if (a.shape.size() == 1) {
    c = a.shape[0];
  } else if (!a.shape.empty()) {
    fail("npy::to_matrix: expected an array of 0, 1 or 2 dimensions, got ", a.shape.size());
  }
  require(r >= 0 && c >= 0, "npy::to_matrix", "expected non-negative dimensions, got ", r, "x", c);
  require(static_cast<std::uint64_t>(r) * static_cast<std::uint64_t>(c) == a.data.size(),
          "npy::to_matrix", "shape ", r, "x", c, " does not match ", a.data.size(),
          " data elements");
  Mat<double> m(r, c);
  for (std::size_t i = 0; i < a.data.size(); ++i) m.data()[i] = a.data[i];
  return m;
}

inline Array from_matrix(const Mat<double>& m, DType dtype) {
  Array a;
  a.shape = {static_cast<long>(m.rows()), static_cast<long>(m.cols())};
  a.dtype = dtype;
  a.data.resize(static_cast<std::size_t>(m.size()));
  for (std::size_t i = 0; i < a.data.size(); ++i) a.data[i] = round_to(m.data()[i], dtype);
  return a;
}

}  // namespace scaleref::npy
