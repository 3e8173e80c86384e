// What every method's spec header (scaleref/spec/*.hpp) is made of: one name
// table per enum, the tensors a method reads and the settings it takes. Plain
// constexpr data, no Eigen, no Boost, no heap (names() aside, a host helper),
// so the same headers compile for the reference, the CUDA kernels (nvcc and
// the emulator), the command-line tool, the audit and the LM's configuration,
// and each fact is written once.
//
// Scalar formulas that host and device share are marked SCALEREF_HOST_DEVICE.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <scaleref/host_device.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace scaleref::spec {

// One entry of an enum's name table: the value and the name the papers use
// for it (the name every program prints and every parser accepts).
template <class E>
struct Named {
  E value;
  const char* name;
};

template <class E, std::size_t N>
using NameTable = std::array<Named<E>, N>;

// The name of e in `table`; "?" for a value the table does not hold (an
// enum cast from an out-of-range integer).
template <class E, std::size_t N>
constexpr const char* name_of(const NameTable<E, N>& table, E e) {
  for (const auto& entry : table)
    if (entry.value == e) return entry.name;
  return "?";
}

// Whether e is one of the table's values (not an enum cast from an
// out-of-range integer).
template <class E, std::size_t N>
constexpr bool holds(const NameTable<E, N>& table, E e) {
  for (const auto& entry : table)
    if (entry.value == e) return true;
  return false;
}

// The value named `text` (exact spelling), if any.
template <class E, std::size_t N>
constexpr std::optional<E> value_of(const NameTable<E, N>& table, std::string_view text) {
  for (const auto& entry : table)
    if (std::string_view(entry.name) == text) return entry.value;
  return std::nullopt;
}

// Every value of the table, in its order.
template <class E, std::size_t N>
constexpr std::array<E, N> values_of(const NameTable<E, N>& table) {
  std::array<E, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = table[i].value;
  return out;
}

// A parameter's initial value as its paper gives it, which a caller who
// leaves the parameter out (the command line, Python) gets: every entry 0,
// every entry 1, or every entry the value of the setting `Tensor::initial_setting`
// (DyT's and SeeDNorm's alpha_init). `none`: the caller must pass the tensor
// (x, a weight matrix, AdaSeeDNorm's conditions).
enum class Initial { none, zeros, ones, setting };

// One tensor of a method: its name as the paper writes it, its shape in
// symbols ("N" rows of a batch, "D", "d_in", "d_out", "1"), whether the paper
// puts it under weight decay, where the paper says so (inputs: ""), and its
// initial value.
struct Tensor {
  std::string_view name;
  std::array<std::string_view, 2> shape;
  bool weight_decay = false;
  std::string_view source;
  Initial initial = Initial::none;
  std::string_view initial_setting;  // Initial::setting only

  constexpr Tensor() = default;
  constexpr Tensor(std::string_view name_, std::array<std::string_view, 2> shape_,
                   bool weight_decay_ = false, std::string_view source_ = "",
                   Initial initial_ = Initial::none, std::string_view initial_setting_ = "")
      : name(name_),
        shape(shape_),
        weight_decay(weight_decay_),
        source(source_),
        initial(initial_),
        initial_setting(initial_setting_) {}
};

// A norm's gain gamma (initially 1) and bias beta (initially 0), [1, D], neither
// under weight decay: LayerNorm's and DyT's.
inline constexpr Tensor kNormGain{"gamma",
                                  {"1", "D"},
                                  false,
                                  "norm gains carry no weight decay in the papers' setups",
                                  Initial::ones};
inline constexpr Tensor kNormBias{"beta",
                                  {"1", "D"},
                                  false,
                                  "biases carry no weight decay in the papers' setups",
                                  Initial::zeros};

// The tensors of one configuration of a method, in the order every program
// passes them (x first, then the parameters the configuration has).
struct TensorList {
  static constexpr std::size_t kMax = 8;
  std::array<Tensor, kMax> items{};
  std::size_t size = 0;

  constexpr TensorList& add(const Tensor& t) {
    items.at(size++) = t;  // at most kMax: a longer list does not compile in a constant expression
    return *this;
  }
  constexpr const Tensor* begin() const { return items.data(); }
  constexpr const Tensor* end() const { return items.data() + size; }
};

// The tensors' names, in order (host only).
inline std::vector<std::string> names(const TensorList& list) {
  std::vector<std::string> out;
  for (const Tensor& t : list) out.emplace_back(t.name);
  return out;
}

// An input of a batch: [N, d].
constexpr Tensor batch_input(std::string_view name, std::string_view d) {
  return {name, {"N", d}, false, ""};
}

enum class SettingType { real, integer, boolean, choice };

inline constexpr NameTable<SettingType, 4> kSettingTypes{{{SettingType::real, "real"},
                                                          {SettingType::integer, "integer"},
                                                          {SettingType::boolean, "bool"},
                                                          {SettingType::choice, "choice"}}};

// One setting of a method: its name (the key of the CLI and of config files),
// its type, its default (none: the caller must give it) and its meaning.
struct Setting {
  static constexpr std::size_t kMaxChoices = 12;

  std::string_view name;
  SettingType type = SettingType::real;
  bool required = false;
  double number = 0;        // the default of a real, integer (exact to 2^53) or bool
  std::string_view choice;  // the default of a choice, by name
  std::array<std::string_view, kMaxChoices> choices{};  // a choice's names, in table order
  std::size_t n_choices = 0;
  std::string_view meaning;
};

constexpr Setting real_setting(std::string_view name, double def, std::string_view meaning) {
  return {name, SettingType::real, false, def, {}, {}, 0, meaning};
}
constexpr Setting integer_setting(std::string_view name, long def, std::string_view meaning) {
  return {name, SettingType::integer, false, static_cast<double>(def), {}, {}, 0, meaning};
}
// An integer without a default (a size the caller must choose).
constexpr Setting required_integer(std::string_view name, std::string_view meaning) {
  return {name, SettingType::integer, true, 0, {}, {}, 0, meaning};
}
constexpr Setting bool_setting(std::string_view name, bool def, std::string_view meaning) {
  return {name, SettingType::boolean, false, def ? 1.0 : 0.0, {}, {}, 0, meaning};
}
template <class E, std::size_t N>
constexpr Setting choice_setting(std::string_view name, const NameTable<E, N>& table, E def,
                                 std::string_view meaning) {
  static_assert(N <= Setting::kMaxChoices, "spec::choice_setting: too many choices");
  Setting s{name, SettingType::choice, false, 0, name_of(table, def), {}, N, meaning};
  for (std::size_t i = 0; i < N; ++i) s.choices[i] = table[i].name;
  return s;
}

}  // namespace scaleref::spec
