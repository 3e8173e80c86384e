// Where a weight matrix sits in a decoder-only transformer: the one list of
// roles the initializers (init/initializers.hpp), SDD's alpha rule
// (sdd/init.hpp) and the model share.
#pragma once

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

inline const char* role_name(Role r) {
  switch (r) {
    case Role::embedding:
      return "embedding";
    case Role::query:
      return "query";
    case Role::key:
      return "key";
    case Role::value:
      return "value";
    case Role::attention_output:
      return "attention_output";
    case Role::gate:
      return "gate";
    case Role::up:
      return "up";
    case Role::ffn_output:
      return "ffn_output";
    case Role::head:
      return "head";
  }
  return "?";
}

inline bool in_decoder_layer(Role r) { return r != Role::embedding && r != Role::head; }

// The residual output projections, the only matrices SIR scales down.
inline bool is_residual_output(Role r) {
  return r == Role::attention_output || r == Role::ffn_output;
}

}  // namespace scaleref::init
