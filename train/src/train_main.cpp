// scaleref_train: trains the tiny LM on a synthetic task and logs the papers'
// diagnostics to a CSV (scaleref/train/trainer.hpp lists every key).
//
//   scaleref_train --task=modular --steps=500 --log=run.csv
//   scaleref_train --config run.cfg --lr=3e-4          (flags override the file)
//
// Progress goes to stderr; a bad or unknown key exits with status 2 and a
// message naming it (a run too large for memory is refused so, with the memory
// it would need), a failed run (a non-finite loss, an unwritable log, memory
// exhausted after all) with 1.
#include <exception>
#include <iostream>
#include <new>
#include <scaleref/error.hpp>
#include <scaleref/train/trainer.hpp>
#include <string>
#include <vector>

namespace {

constexpr const char* kUsage =
    "usage: scaleref_train [--config FILE] [--key=value | --key value]...\n"
    "  data:      task=modular|kv_recall|grammar seq val_fraction modulus\n"
    "             modular_holdout=pairs|windows kv_keys kv_values kv_pairs grammar_depth "
    "data_seed\n"
    "  run:       steps batch optimizer=adamw|sgd lr min_lr warmup schedule=cosine|constant\n"
    "             beta1 beta2 adam_eps weight_decay momentum nesterov sgd_decay=coupled|decoupled\n"
    "             clip (0: off)\n"
    "  rescale:   rescale=none|tvr|zwr|uwr rescale_every rescale_target\n"
    "             rescale_form=paper|authors_code rescale_threshold rescale_depth_scaled\n"
    "  logging:   eval_every eval_batches log=FILE.csv log_every progress_every\n"
    "             stable_rank_matrices=name,name stable_rank_iterations threads\n"
    "  model:     the lm::Config keys (vocab d_model n_layers n_heads d_ff max_seq norm\n"
    "             placement ... seed): lm::Config in scaleref/lm/config.hpp, read by\n"
    "             train::parse_model_config\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const auto& a : args)
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    }
  scaleref::train::Setup setup;
  try {
    setup = scaleref::train::parse_setup("", args);
  } catch (const scaleref::Error& e) {
    std::cerr << "scaleref_train: " << e.what() << "\n" << kUsage;
    return 2;
  }
  try {
    const scaleref::train::Result r = scaleref::train::run(setup, &std::cerr);
    std::cerr << "train: validation loss " << r.evals.front().val_loss << " -> "
              << r.evals.back().val_loss << " (" << r.task.name << ")\n";
    return 0;
  } catch (const scaleref::Error& e) {
    std::cerr << "scaleref_train: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "scaleref_train: out of memory: the run needed more than this process may "
                 "allocate (smaller d_model, d_ff, n_layers, vocab, batch or seq)\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "scaleref_train: " << e.what() << "\n";
    return 1;
  }
}
