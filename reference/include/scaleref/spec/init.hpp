// The initializers' spec (rescale Sec. 2.3, smallinit Sec. 4.2; the laws are in
// scaleref/init/initializers.hpp): where a weight matrix sits in a
// decoder-only transformer (the one list of roles, with their names, that the
// initializers, SDD's alpha rule, the model and the command-line tool share),
// the methods by the papers' names with their settings, and what a draw reads.
#pragma once

#include <cstddef>
#include <scaleref/spec/common.hpp>
#include <variant>

namespace scaleref::init {

// Where a matrix sits in a decoder-only transformer.
enum class Role {
  // outside the decoder layers: the token embedding and the LM head, both [vocab, d]
  embedding,
  head,
  // the attention maps of decoder layer l
  query,
  key,
  value,
  attention_output,
  // the FFN maps of decoder layer l (ffn_output: down_proj, fc2)
  gate,
  up,
  ffn_output,
};

inline constexpr spec::NameTable<Role, 9> kRoles{{{Role::embedding, "embedding"},
                                                  {Role::head, "head"},
                                                  {Role::query, "query"},
                                                  {Role::key, "key"},
                                                  {Role::value, "value"},
                                                  {Role::attention_output, "attention_output"},
                                                  {Role::gate, "gate"},
                                                  {Role::up, "up"},
                                                  {Role::ffn_output, "ffn_output"}}};

constexpr const char* role_name(Role r) { return spec::name_of(kRoles, r); }

inline bool in_decoder_layer(Role r) { return r != Role::embedding && r != Role::head; }

// The residual output projections, the only matrices SIR scales down.
inline bool is_residual_output(Role r) {
  return r == Role::attention_output || r == Role::ffn_output;
}

// A matrix to initialize: [d_out, d_in] and its place in the model. No
// defaults: every initializer that depends on the place must be told it.
struct Shape {
  long d_out;  // rows, n_out
  long d_in;   // columns, n_in (the fan-in)
  Role role;
};

// The methods, named as the papers name them.
struct Gaussian {
  double sigma = 0.02;
};
struct XavierNormal {};
struct XavierUniform {};
struct KaimingNormal {};
struct KaimingUniform {};
struct SIR {
  double sigma = 0.02;  // the base std every other matrix keeps
  int n_layers = 0;     // N, the number of decoder layers: must be set
};
struct DSInit {
  double alpha = 1.0;  // rescale gives no default; 1 makes eq. 14 eq. 13 divided by sqrt(l)
};
struct LIR {
  double sigma = 0.02;  // the base std, kept by the embedding and the head
};
struct GammaInit {
  double gamma = 1.0;
};

using Config = std::variant<Gaussian, XavierNormal, XavierUniform, KaimingNormal, KaimingUniform,
                            SIR, DSInit, LIR, GammaInit>;

// The methods' names, by their index in Config.
inline constexpr spec::NameTable<std::size_t, 9> kMethods{{{0, "Gaussian"},
                                                           {1, "XavierNormal"},
                                                           {2, "XavierUniform"},
                                                           {3, "KaimingNormal"},
                                                           {4, "KaimingUniform"},
                                                           {5, "SIR"},
                                                           {6, "DSInit"},
                                                           {7, "LIR"},
                                                           {8, "GammaInit"}}};
static_assert(std::variant_size_v<Config> == kMethods.size());

inline const char* method_name(const Config& c) { return spec::name_of(kMethods, c.index()); }

// What a draw reads (init::draw: the method and its setting, the shape, the
// role, the layer index, the random stream), as the command-line tool's keys.
inline constexpr std::array<spec::Setting, 11> kSettings{
    spec::choice_setting("method", kMethods, std::size_t{0}, "the initializer"),
    spec::required_integer("d_out", "rows of W"),
    spec::required_integer("d_in", "columns of W (the fan-in)"),
    spec::choice_setting("role", kRoles, Role::query, "where W sits in the transformer"),
    spec::integer_setting("layer", 1, "decoder layer index l >= 1 (not read for embedding, head)"),
    spec::integer_setting("seed", 0, "the random stream's seed"),
    spec::integer_setting("tensor", 0, "the random stream's tensor id"),
    spec::real_setting("sigma", Gaussian{}.sigma, "Gaussian, SIR, LIR: the base std"),
    spec::integer_setting("n_layers", SIR{}.n_layers, "SIR: N, must be set"),
    spec::real_setting("alpha", DSInit{}.alpha, "DSInit: alpha in (0, 1]"),
    spec::real_setting("gamma", GammaInit{}.gamma, "GammaInit: sigma = d_in^(-gamma)")};

}  // namespace scaleref::init
