// Every kernel access goes through the one instrumented path
// (scaleref/cuda/kernel.hpp: DevPtr, DevRows, ld, st; cuda/README.md, "The
// emulator"). Under the emulator the types enforce it: emu::Ptr cannot be
// dereferenced, a raw pointer converts to one only explicitly, a kernel
// parameter that is a raw pointer or an unmarked struct fails a static_assert
// at the launch, and `__shared__` is not defined (tests/CMakeLists.txt
// compiles a planted kernel of each kind and requires the error). What the
// types cannot see, this test reads in the sources:
//   - a struct marked `using kernel_args = void;` (a promise that it may be a
//     kernel parameter) declares no raw pointer member;
//   - no `__global__` function takes a raw pointer;
//   - no kernel source spells `__shared__` (SCALEREF_SHARED instead), or
//     reaches the storage behind the path (`_storage_`,
//     `dynamic_shared_base`, `detail::raw`);
//   - a marked struct holds no host Rows (its data is a raw pointer);
//   - st(p, v)'s pointer holds no comma that nvcc's macro would split at.
// Each rule is first shown to fail on a planted source.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// The text with // and /* */ comments blanked (newlines kept, so line numbers hold).
std::string strip_comments(const std::string& s) {
  std::string out = s;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out.compare(i, 2, "//") == 0) {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out.compare(i, 2, "/*") == 0) {
      while (i < out.size() && out.compare(i, 2, "*/") != 0) {
        if (out[i] != '\n') out[i] = ' ';
        ++i;
      }
      if (i + 1 < out.size()) out[i] = out[i + 1] = ' ';
    } else if (out[i] == '"') {  // skip string literals
      for (++i; i < out.size() && out[i] != '"'; ++i)
        if (out[i] == '\\') ++i;
    }
  }
  return out;
}

int line_at(const std::string& s, std::size_t pos) {
  return 1 + static_cast<int>(std::count(s.begin(), s.begin() + static_cast<long>(pos), '\n'));
}

// The index just past the brace that closes the one opening at `open`.
std::size_t matching_brace(const std::string& s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == '{') ++depth;
    if (s[i] == '}' && --depth == 0) return i + 1;
  }
  return s.size();
}

// Problems in one source text (comments already stripped), "name:line: why" each.
std::vector<std::string> problems(const std::string& name, const std::string& text) {
  std::vector<std::string> out;
  const auto at = [&](std::size_t pos, const std::string& why) {
    out.push_back(name + ":" + std::to_string(line_at(text, pos)) + ": " + why);
  };
  // __shared__, outside the macro that defines SCALEREF_SHARED
  for (std::size_t p = text.find("__shared__"); p != std::string::npos;
       p = text.find("__shared__", p + 1))
    if (name.find("scaleref/cuda/kernel.hpp") == std::string::npos)
      at(p, "__shared__ outside SCALEREF_SHARED / SCALEREF_DYNAMIC_SHARED");
  // raw pointers in __global__ parameter lists: the signature runs to the
  // body's '{'; its parameters are the first (...) after __launch_bounds__(...)
  for (std::size_t p = text.find("__global__"); p != std::string::npos;
       p = text.find("__global__", p + 1)) {
    std::string sig = text.substr(p, text.find('{', p) - p);
    if (const auto lb = sig.find("__launch_bounds__"); lb != std::string::npos)
      sig.erase(lb, sig.find(')', lb) + 1 - lb);
    const std::size_t open = sig.find('(');
    const std::string params = open == std::string::npos ? "" : sig.substr(open);
    if (params.find('*') != std::string::npos)
      at(p, "a __global__ function takes a raw pointer: " + params);
  }
  // structs that promise to be kernel parameters: their own braces are the
  // first after the `struct` or `class` keyword before the marker
  static const std::regex marker(R"(using\s+kernel_args\s*=\s*void\s*;)");
  static const std::regex raw_member(
      R"((^|[;{}])\s*(const\s+)?[\w:<>, ]+?\s*[*&]\s*(const\s+)?\w+\s*(\[[^\]]*\])?\s*(=[^;]*)?;)");
  static const std::regex host_rows(R"((^|[^\w])Rows<)");
  static const std::regex keyword(R"(\b(struct|class)\s+\w+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), marker);
       it != std::sregex_iterator(); ++it) {
    const auto pos = static_cast<std::size_t>(it->position());
    std::size_t open = std::string::npos;
    for (auto k =
             std::sregex_iterator(text.begin(), text.begin() + static_cast<long>(pos), keyword);
         k != std::sregex_iterator(); ++k)
      open = text.find('{', static_cast<std::size_t>(k->position()));
    if (open == std::string::npos || open > pos) {
      at(pos, "kernel_args outside a struct");
      continue;
    }
    const std::size_t end = matching_brace(text, open);
    // the struct's own level: the braces nested in it (member function
    // bodies, default member initializers) blanked with what they hold, the
    // last one made a ';' so that the next member starts a declaration
    std::string body = text.substr(open + 1, end - open - 2);
    int depth = 0;
    for (char& c : body) {
      const char was = c;
      if (depth > 0 || was == '{') c = was == '\n' ? was : ' ';
      if (was == '{') ++depth;
      if (was == '}' && depth > 0 && --depth == 0) c = ';';
    }
    std::smatch m;
    if (std::regex_search(body, m, raw_member))
      at(open + 1 + static_cast<std::size_t>(m.position()),
         "a struct marked kernel_args has a raw pointer or reference member: " + m.str());
    if (std::regex_search(body, m, host_rows))
      at(open + 1 + static_cast<std::size_t>(m.position()),
         "a struct marked kernel_args holds a host Rows (a raw pointer): use DevRows");
  }
  // the raw storage behind the path, reached around it (in the kernels; the
  // emulator's own tests reach it on purpose)
  if (name.rfind("cuda/", 0) == 0 && name.find("scaleref/cuda/kernel.hpp") == std::string::npos)
    for (const char* raw : {"_storage_", "dynamic_shared_base", "detail::raw"})
      for (std::size_t p = text.find(raw); p != std::string::npos; p = text.find(raw, p + 1))
        at(p, std::string(raw) + ": device memory reached around DevPtr");
  // st(p, v) is a macro under nvcc: its pointer must not hold a comma outside
  // parentheses (the emulator's function would accept it)
  static const std::regex st_call(R"(\bst\()");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), st_call);
       it != std::sregex_iterator(); ++it) {
    const auto from = static_cast<std::size_t>(it->position()) + 3;
    int parens = 0, angles = 0;
    for (std::size_t i = from; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '(') ++parens;
      if (c == ')' && parens-- == 0) break;
      if (c == '<') ++angles;
      if (c == '>') --angles;
      if (c == ',' && parens == 0) {
        if (angles > 0)
          at(from, "st(...)'s pointer holds a comma that nvcc's macro splits at: name it first");
        break;
      }
    }
  }
  return out;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// How many problems a planted source has.
std::size_t count(const char* source) {
  return problems("cuda/src/planted.cu", strip_comments(source)).size();
}

TEST(EmuSources, EachRuleFailsOnAPlantedSource) {
  EXPECT_EQ(count(R"(
template <class D>
__global__ void __launch_bounds__(256) k(DevRows<const D> x, const D* gamma) {}
)"),
            1u);
  EXPECT_EQ(count(R"(
__global__ void k(DevPtr<float> out) { __shared__ float s[32]; }
)"),
            1u);
  EXPECT_EQ(count(R"(
struct Net {
  using kernel_args = void;
  DevPtr<const float> alpha;
  const float* beta;
  void add(float* p) { beta = p; }
};
)"),
            1u);
  // a member after a brace-initialized one and a function; a host Rows
  EXPECT_EQ(count(R"(
template <class D>
struct Outputs {
  using kernel_args = void;
  DevPtr<D> out[4] = {};
  void add(D* p) { out[0] = DevPtr<D>(p); }
  D* late;
  Rows<const D> host;
};
)"),
            2u);
  // the storage behind SCALEREF_SHARED; a pointer with a comma in st
  EXPECT_EQ(count(R"(
__global__ void k(DevPtr<float> out) {
  SCALEREF_SHARED(float, s, 32);
  s_storage_[threadIdx.x] = 1.0f;
  st(ptr_cast<Pack<float, 4>*>(out), Pack<float, 4>{});
}
)"),
            2u);
  // and passes the same shapes written through the path
  EXPECT_EQ(count(R"(
template <class D>
__global__ void __launch_bounds__(256) k(DevRows<const D> x, DevPtr<const D> gamma) {
  SCALEREF_SHARED(float, s, 32);  // not __shared__ float s[32];
  const DevPtr<Pack<D, 4>> q = ptr_cast<Pack<D, 4>*>(gamma);
  st(q, Pack<D, 4>{});
}
template <class D>
struct Net {
  using kernel_args = void;
  DevPtr<const float> alpha = {};
  int heads;
  DevRows<const D> gamma_c;
  void add(float* p) { alpha = DevPtr<const float>(p); }
};
)"),
            0u);
}

TEST(EmuSources, EveryKernelSourceReachesDeviceMemoryOnlyThroughThePath) {
  const fs::path root = SCALEREF_SOURCE_DIR;
  std::vector<fs::path> files;
  for (const char* dir : {"cuda/src", "cuda/bench", "cuda/include/scaleref/cuda"})
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      const auto ext = e.path().extension();
      if (ext == ".cu" || ext == ".cuh" || ext == ".hpp") files.push_back(e.path());
    }
  files.push_back(root / "tests/emu_test.cpp");
  files.push_back(root / "reference/include/scaleref/random/stream.hpp");
  ASSERT_GT(files.size(), 20u);
  std::vector<std::string> all;
  int kernels = 0, marked = 0;
  for (const auto& f : files) {
    const std::string text = strip_comments(read(f));
    for (auto p = text.find("__global__"); p != std::string::npos;
         p = text.find("__global__", p + 1))
      ++kernels;
    for (auto p = text.find("kernel_args = void"); p != std::string::npos;
         p = text.find("kernel_args = void", p + 1))
      ++marked;
    for (auto& s : problems(fs::relative(f, root).string(), text)) all.push_back(s);
  }
  EXPECT_GE(kernels, 40);  // the scan saw the kernels
  EXPECT_GE(marked, 5);    // and the marked structs
  for (const auto& s : all) ADD_FAILURE() << s;
}

}  // namespace
