// main() of a fuzz target in a build without libFuzzer (GCC): the short run of
// the default suite. Every file of the seed folders goes to
// LLVMFuzzerTestOneInput, then --mutations inputs made from them by a fixed
// pseudo-random sequence (bit flips, byte inserts and deletions, chunk copies,
// splices of two inputs), so the run is the same every time.
//
//   <target> [--mutations N] DIR...
//
// A failure is whatever escapes the target (it lets only scaleref::Error go):
// the replay prints the input's origin and its bytes and exits 1.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

using Bytes = std::vector<std::uint8_t>;
constexpr std::size_t kMaxSize = 4096;  // libFuzzer's default -max_len

Bytes read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// One mutation of `b`, with `other` for a splice. Sizes stay within kMaxSize.
Bytes mutate(Bytes b, const Bytes& other, std::mt19937_64& rng) {
  const auto below = [&](std::size_t n) {
    return n == 0 ? 0 : static_cast<std::size_t>(rng() % n);
  };
  switch (rng() % 5) {
    case 0:  // flip one bit
      if (!b.empty()) b[below(b.size())] ^= static_cast<std::uint8_t>(1u << below(8));
      break;
    case 1:  // insert a byte: a printable one or any
      if (b.size() < kMaxSize)
        b.insert(b.begin() + static_cast<std::ptrdiff_t>(below(b.size() + 1)),
                 static_cast<std::uint8_t>(rng() % 2 ? 32 + below(95) : below(256)));
      break;
    case 2: {  // delete a run of up to 8 bytes
      const std::size_t at = below(b.size() + 1),
                        n = std::min<std::size_t>(below(9), b.size() - at);
      b.erase(b.begin() + static_cast<std::ptrdiff_t>(at),
              b.begin() + static_cast<std::ptrdiff_t>(at + n));
      break;
    }
    case 3: {  // copy a chunk of up to 16 bytes to another place
      const std::size_t from = below(b.size() + 1),
                        n = std::min({below(17), b.size() - from, kMaxSize - b.size()});
      const Bytes chunk(b.begin() + static_cast<std::ptrdiff_t>(from),
                        b.begin() + static_cast<std::ptrdiff_t>(from + n));
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(below(b.size() + 1)), chunk.begin(),
               chunk.end());
      break;
    }
    default: {  // splice: a prefix of b and a suffix of the other input
      const std::size_t cut = below(b.size() + 1), from = below(other.size() + 1);
      b.resize(cut);
      b.insert(b.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
      b.resize(std::min(b.size(), kMaxSize));
      break;
    }
  }
  return b;
}

bool run(const Bytes& b, const std::string& origin) {
  try {
    LLVMFuzzerTestOneInput(b.data(), b.size());
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: escaped the target: %s\ninput (%zu bytes):", origin.c_str(), e.what(),
                 b.size());
  } catch (...) {
    std::fprintf(stderr,
                 "%s: a non-std exception escaped the target\ninput (%zu bytes):", origin.c_str(),
                 b.size());
  }
  for (const std::uint8_t c : b) std::fprintf(stderr, " %02x", c);
  std::fprintf(stderr, "\n");
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  long mutations = 2000;
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--mutations" && i + 1 < argc) {
      mutations = std::stol(argv[++i]);
      continue;
    }
    for (const auto& e : std::filesystem::directory_iterator(a))
      if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());  // the folder's order is the file system's
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s [--mutations N] DIR... (a folder of seed inputs)\n", argv[0]);
    return 2;
  }
  std::vector<Bytes> seeds;
  for (const auto& f : files) {
    seeds.push_back(read_file(f));
    if (!run(seeds.back(), f.string())) return 1;
  }
  std::mt19937_64 rng(20261122);
  Bytes current = seeds[0];
  for (long i = 0; i < mutations; ++i) {
    // Mostly build on the last input (a few steps deep), now and then restart from a seed.
    if (rng() % 4 == 0) current = seeds[rng() % seeds.size()];
    current = mutate(std::move(current), seeds[rng() % seeds.size()], rng);
    if (!run(current, "mutation " + std::to_string(i))) return 1;
  }
  std::printf("%zu seeds and %ld mutations: no failure\n", seeds.size(), mutations);
  return 0;
}
