// Where a weight matrix sits in a decoder-only transformer: the one list of
// roles, with their names, that the initializers (init/initializers.hpp), SDD's
// alpha rule (sdd/init.hpp), the model and the command-line tool share.
#pragma once

#include <scaleref/spec/common.hpp>

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

}  // namespace scaleref::init
