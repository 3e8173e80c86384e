// libFuzzer target for the trainer's text front end (train/options.hpp,
// trainer.hpp): a config text read by Options::read_text, flags read by
// Options::read_args, and parse_setup over both (never train::run).
// scaleref::Error is the only acceptable failure.
//
// Input: the config text up to the first NUL byte, then the flags, one per
// NUL-separated piece ("lr = 0.1\n\0--steps\0 5\0--task=kv_recall").
// An input with a --config flag is skipped: it would read a file named by the
// input.
// Run: ./train_options_fuzz -max_total_time=60 CORPUS tests/data/fuzz/train_options
#include <cstddef>
#include <cstdint>
#include <scaleref/error.hpp>
#include <scaleref/train/trainer.hpp>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = bytes.find('\0');
  const std::string text = bytes.substr(0, nul);
  std::vector<std::string> args;
  for (std::size_t pos = nul; pos < bytes.size();) {
    const std::size_t end = std::min(bytes.find('\0', pos + 1), bytes.size());
    args.push_back(bytes.substr(pos + 1, end - pos - 1));
    pos = end;
  }
  for (const std::string& a : args)
    if (a.rfind("--config", 0) == 0) return 0;
  try {
    scaleref::train::parse_setup(text, args);
  } catch (const scaleref::Error&) {
  }
  return 0;
}
