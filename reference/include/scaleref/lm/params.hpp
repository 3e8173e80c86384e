// The tiny LM's parameters: a flat, ordered list of named matrices (the
// layout is a pure function of the Config), their initial values, and the
// facts the optimizer needs (weight decay, kind). Gradients use the same
// structure, so the optimizer, the logger, the tape formulation and the tests
// walk one list.
//
// Names (l = 0 .. L-1; lm/config.hpp gives the model):
//   embed [vocab, d], pos [max_seq, d] (positions)
//   layers.<l>.attn_norm.<p>, layers.<l>.ffn_norm.<p>, final_norm.<p>
//       p: the norm module's parameters (rmsnorm gamma; layernorm gamma, beta;
//       dyt alpha, gamma, beta; seednorm alpha, beta, gamma); with a scale-
//       vector strategy other than standard: gamma (shared g: DP, DNP), r, u
//       (MD), nothing (none, AP, HG); final_norm keeps gamma except for none
//   layers.<l>.attn.<r>.W [d_out, d_in]          plain map
//   layers.<l>.attn.<r>.V, .alpha [1, d_out]     SDD map
//   layers.<l>.attn.<r>.g [1, d_in] (HG), .a [1, d_out] (AP, DP, DNP)
//   layers.<l>.attn.gate_proj.W [H, d] (gated_attention)
//   layers.<l>.attn.q_norm.gamma, .k_norm.gamma [1, d_h] (qk_norm)
//   layers.<l>.ffn.<r>...                        r in gate, up, down
//   head [vocab, d] (unless tie_embeddings)
// Attention maps are q, k, v, o in that order; gate_proj and the QK-norm
// gains follow o.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <scaleref/error.hpp>
#include <scaleref/init/initializers.hpp>
#include <scaleref/lm/config.hpp>
#include <scaleref/norm/dyt.hpp>
#include <scaleref/norm/layernorm.hpp>
#include <scaleref/norm/rmsnorm.hpp>
#include <scaleref/norm/seednorm.hpp>
#include <scaleref/random/stream.hpp>
#include <scaleref/sdd/init.hpp>
#include <scaleref/sdd/layer.hpp>
#include <scaleref/types.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace scaleref::lm {

enum class Kind {
  embedding,     // embed, pos, head: a table
  matrix,        // a projection's W, an SDD map's V, the attention gate's W
  norm,          // a norm module's parameter (gains, biases, DyT alpha, SeeDNorm alpha/beta)
  scale_vector,  // g, g_r, a, r, u of a scale-vector strategy
  sdd_alpha,     // an SDD map's alpha
};

struct ParamInfo {
  std::string name;
  long rows = 0, cols = 0;
  Kind kind = Kind::matrix;
  bool decay = false;  // weight decay reaches it
  int layer = 0;       // 1 .. L inside decoder layer l - 1; 0 outside
  // For matrices: the role the initializers read; for the rest unused.
  init::Role role = init::Role::embedding;
};

// A parameter name assembled from parts ("layers.3." + "attn." + "q." + "W") in
// a fixed buffer instead of on the heap: the forward and backward look their
// parameters up by name on every step, and a step allocates nothing.
class Name {
 public:
  Name(std::string_view s = {}) { append(s); }
  Name(const char* s) : Name(std::string_view(s)) {}
  Name operator+(std::string_view tail) const {
    Name n = *this;
    n.append(tail);
    return n;
  }
  operator std::string_view() const { return {buf_.data(), len_}; }

 private:
  void append(std::string_view s) {
    require(len_ + s.size() <= buf_.size(), "lm::Name", "a parameter name longer than ",
            buf_.size(), " characters: '", std::string_view(buf_.data(), len_), s, "'");
    std::copy(s.begin(), s.end(), buf_.begin() + static_cast<std::ptrdiff_t>(len_));
    len_ += s.size();
  }
  std::array<char, 96> buf_{};
  std::size_t len_ = 0;
};

template <class S>
struct ParamStore {
  std::vector<ParamInfo> info;
  std::vector<Mat<S>> values;

  std::size_t size() const { return info.size(); }
  bool has(std::string_view name) const { return find(name) != info.size(); }
  std::size_t index_of(std::string_view name) const {
    const std::size_t i = find(name);
    require(i != info.size(), "lm::ParamStore", "no parameter named '", name, "'");
    return i;
  }
  const Mat<S>& at(std::string_view name) const { return values[index_of(name)]; }
  Mat<S>& at(std::string_view name) { return values[index_of(name)]; }

  // Makes this store p's layout with every entry zero (a gradient accumulator),
  // keeping its storage when it has that layout already.
  template <class T>
  void zero_like(const ParamStore<T>& p) {
    bool same = info.size() == p.info.size() && values.size() == p.values.size();
    for (std::size_t i = 0; same && i < info.size(); ++i)
      same = info[i].name == p.info[i].name && values[i].rows() == p.values[i].rows() &&
             values[i].cols() == p.values[i].cols();
    if (!same) {
      info = p.info;
      values.resize(p.values.size());
    }
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i].setZero(p.values[i].rows(), p.values[i].cols());
  }

  // The same layout, every entry zero (a gradient accumulator).
  ParamStore zeros_like() const {
    ParamStore out{info, {}};
    out.values.reserve(values.size());
    for (const auto& v : values) out.values.push_back(Mat<S>::Zero(v.rows(), v.cols()));
    return out;
  }

 private:
  std::size_t find(std::string_view name) const {
    for (std::size_t i = 0; i < info.size(); ++i)
      if (info[i].name == name) return i;
    return info.size();
  }
};

// The same parameters in another scalar type (exact for double -> Real50).
template <class T, class S>
ParamStore<T> cast_params(const ParamStore<S>& p) {
  ParamStore<T> out{p.info, {}};
  for (const auto& v : p.values) out.values.push_back(v.template cast<T>());
  return out;
}

namespace detail {

inline init::Role proj_role(Proj p) {
  switch (p) {
    case Proj::q:
      return init::Role::query;
    case Proj::k:
      return init::Role::key;
    case Proj::v:
      return init::Role::value;
    case Proj::o:
      return init::Role::attention_output;
    case Proj::gate:
      return init::Role::gate;
    case Proj::up:
      return init::Role::up;
    case Proj::down:
      return init::Role::ffn_output;
  }
  fail("lm::proj_role: unknown projection");
}

// [d_out, d_in] of a projection.
inline std::pair<long, long> proj_shape(const Config& c, Proj p) {
  const long d = c.d_model, f = c.ffn_width();
  if (p == Proj::gate || p == Proj::up) return {f, d};
  if (p == Proj::down) return {d, f};
  return {d, d};
}

// Weight decay of a scale vector under the config's policy (its name in
// scalevec::kScaleVectors: g, a, r, u, g_q ...).
inline bool scale_vector_decay(const Config& c, std::string_view name) {
  return scalevec::decayed(c.scale_vector_decay, name);
}

template <std::size_t N>
bool module_decay(const std::array<spec::Tensor, N>& specs, std::string_view name) {
  for (const auto& s : specs)
    if (s.name == name) return s.weight_decay;
  fail("lm::module_decay: no parameter '", name, "' in the module's kParams");
}

inline void add(std::vector<ParamInfo>& out, std::string name, long rows, long cols, Kind kind,
                bool decay, int layer, init::Role role = init::Role::embedding) {
  out.push_back(ParamInfo{std::move(name), rows, cols, kind, decay, layer, role});
}

// A block norm's parameters (prefix "layers.<l>.attn_norm." etc.).
inline void add_norm(std::vector<ParamInfo>& out, const Config& c, const std::string& prefix,
                     int layer, bool is_final) {
  const long d = c.d_model;
  switch (c.norm) {
    case NormKind::rmsnorm: {
      const ScaleVectors s = c.scale_vectors;
      const bool gamma =
          s == ScaleVectors::standard || uses_shared_g(s) || (is_final && s != ScaleVectors::none);
      // Under a scale-vector strategy the RMSNorm gain is the shared g.
      if (gamma) add(out, prefix + "gamma", 1, d, Kind::norm, scale_vector_decay(c, "g"), layer);
      if (s == ScaleVectors::md && !is_final) {
        add(out, prefix + "r", 1, 1, Kind::scale_vector, scale_vector_decay(c, "r"), layer);
        add(out, prefix + "u", 1, d, Kind::scale_vector, scale_vector_decay(c, "u"), layer);
      }
      return;
    }
    case NormKind::layernorm:
      add(out, prefix + "gamma", 1, d, Kind::norm, module_decay(norm::layernorm::kParams, "gamma"),
          layer);
      add(out, prefix + "beta", 1, d, Kind::norm, module_decay(norm::layernorm::kParams, "beta"),
          layer);
      return;
    case NormKind::dyt:
      add(out, prefix + "alpha", 1, 1, Kind::norm, module_decay(norm::dyt::kParams, "alpha"),
          layer);
      add(out, prefix + "gamma", 1, d, Kind::norm, module_decay(norm::dyt::kParams, "gamma"),
          layer);
      add(out, prefix + "beta", 1, d, Kind::norm, module_decay(norm::dyt::kParams, "beta"), layer);
      return;
    case NormKind::seednorm:
    case NormKind::seednorm_mh:
      for (const char* p : {"alpha", "beta", "gamma"})
        add(out, prefix + p, 1, d, Kind::norm, module_decay(norm::seednorm::kParams, p), layer);
      return;
  }
}

inline void add_proj(std::vector<ParamInfo>& out, const Config& c, const std::string& prefix,
                     Proj p, int layer) {
  const auto [d_out, d_in] = proj_shape(c, p);
  const init::Role role = proj_role(p);
  const std::string base = prefix + proj_name(p) + ".";
  if (c.uses_sdd(p)) {
    add(out, base + "V", d_out, d_in, Kind::matrix, true, layer, role);
    add(out, base + "alpha", 1, d_out, Kind::sdd_alpha, module_decay(sdd::kParams, "alpha"), layer,
        role);
  } else {
    add(out, base + "W", d_out, d_in, Kind::matrix, true, layer, role);
  }
  if (!reads_norm(p)) return;
  if (c.scale_vectors == ScaleVectors::hg) {
    const std::string name = std::string("g_") + proj_name(p);
    add(out, base + "g", 1, d_in, Kind::scale_vector, scale_vector_decay(c, name), layer);
  }
  if (uses_output_a(c.scale_vectors))
    add(out, base + "a", 1, d_out, Kind::scale_vector, scale_vector_decay(c, "a"), layer);
}

}  // namespace detail

// The ordered parameter list of a model (validates c first).
inline std::vector<ParamInfo> layout(const Config& c) {
  validate(c);
  using detail::add;
  std::vector<ParamInfo> out;
  const long d = c.d_model;
  add(out, "embed", c.vocab, d, Kind::embedding, true, 0, init::Role::embedding);
  if (c.positions) add(out, "pos", c.max_seq, d, Kind::embedding, true, 0, init::Role::embedding);
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string layer = "layers." + std::to_string(l) + ".";
    const int index = l + 1;  // the initializers' 1-based layer index
    const bool pre_or_post = c.placement != Placement::none;
    if (pre_or_post) detail::add_norm(out, c, layer + "attn_norm.", index, false);
    for (Proj p : {Proj::q, Proj::k, Proj::v, Proj::o})
      detail::add_proj(out, c, layer + "attn.", p, index);
    if (c.gated_attention)
      add(out, layer + "attn.gate_proj.W", c.n_heads, d, Kind::matrix, true, index,
          init::Role::query);
    if (c.qk_norm) {
      const bool decay = detail::module_decay(norm::rmsnorm::kParams, "gamma");
      add(out, layer + "attn.q_norm.gamma", 1, c.head_dim(), Kind::norm, decay, index);
      add(out, layer + "attn.k_norm.gamma", 1, c.head_dim(), Kind::norm, decay, index);
    }
    if (pre_or_post) detail::add_norm(out, c, layer + "ffn_norm.", index, false);
    for (Proj p : {Proj::gate, Proj::up, Proj::down})
      detail::add_proj(out, c, layer + "ffn.", p, index);
  }
  if (c.final_norm) detail::add_norm(out, c, "final_norm.", 0, true);
  if (!c.tie_embeddings) add(out, "head", c.vocab, d, Kind::embedding, true, 0, init::Role::head);
  return out;
}

// The initializer the config names (init/initializers.hpp).
inline init::Config init_config(const Config& c) {
  switch (c.init) {
    case InitMethod::gaussian:
      return init::from_switches(
          init::RescaleSwitches{c.init_sigma, c.lir, c.sir, static_cast<int>(c.n_layers)});
    case InitMethod::xavier_normal:
      return init::XavierNormal{};
    case InitMethod::xavier_uniform:
      return init::XavierUniform{};
    case InitMethod::kaiming_normal:
      return init::KaimingNormal{};
    case InitMethod::kaiming_uniform:
      return init::KaimingUniform{};
    case InitMethod::ds_init:
      return init::DSInit{c.init_alpha};
    case InitMethod::gamma:
      return init::GammaInit{c.init_gamma};
  }
  fail("lm::init_config: unknown method");
}

namespace detail {

// A block norm's parameter (attn_norm, ffn_norm, final_norm), as opposed to
// the QK-norm gains, which are always RMSNorm's.
inline bool is_block_norm(const std::string& name) {
  for (const char* part : {"attn_norm.", "ffn_norm.", "final_norm."})
    if (name.find(part) != std::string::npos) return true;
  return false;
}

// The initial value of a non-matrix parameter, from its name's last part.
template <class S>
Mat<S> initial_vector(const Config& c, const ParamInfo& p) {
  const std::string leaf = p.name.substr(p.name.rfind('.') + 1);
  if (p.kind == Kind::sdd_alpha)
    return sdd::init_alpha<S>(p.cols, p.role, static_cast<int>(c.n_layers), c.sdd_alpha_rule);
  if (p.kind == Kind::scale_vector) return Mat<S>::Ones(p.rows, p.cols);  // g, a, r, u = 1
  if (is_block_norm(p.name) && c.norm == NormKind::dyt) {
    const auto v = norm::dyt::init<S>(c.d_model, norm::dyt::Config{true, c.dyt_alpha_init});
    return leaf == "alpha" ? v.alpha : leaf == "gamma" ? v.gamma : v.beta;
  }
  if (is_block_norm(p.name) && (c.norm == NormKind::seednorm || c.norm == NormKind::seednorm_mh)) {
    const auto v = norm::seednorm::init<S>(c.d_model);
    return leaf == "alpha" ? v.alpha : leaf == "beta" ? v.beta : v.gamma;
  }
  // RMSNorm's and LayerNorm's own init: gamma = 1, beta = 0
  if (leaf == "gamma") return Mat<S>::Ones(p.rows, p.cols);
  if (leaf == "beta") return Mat<S>::Zero(p.rows, p.cols);
  fail("lm::init_params: no initial value for '", p.name, "'");
}

}  // namespace detail

// Every parameter at its initial value: tensor i of the layout draws from the
// Philox stream (c.seed, i), so the model is a pure function of c.
template <class S>
ParamStore<S> init_params(const Config& c) {
  ParamStore<S> out{layout(c), {}};
  const init::Config method = init_config(c);
  for (std::size_t i = 0; i < out.info.size(); ++i) {
    const ParamInfo& p = out.info[i];
    const random::Stream stream{c.seed, static_cast<std::uint32_t>(i)};
    const bool is_v = p.name.size() > 2 && p.name.compare(p.name.size() - 2, 2, ".V") == 0;
    if (is_v) {
      out.values.push_back(
          sdd::init_V<S>(p.rows, p.cols, sdd::VInit{c.d_model, sdd::VReading::std, false}, stream));
    } else if (p.kind == Kind::matrix || p.kind == Kind::embedding) {
      out.values.push_back(
          init::draw<S>(init::Shape{p.rows, p.cols, p.role}, p.layer, method, stream));
    } else {
      out.values.push_back(detail::initial_vector<S>(c, p));
    }
  }
  return out;
}

}  // namespace scaleref::lm
