// minimind-train: MiniMind's pretraining recipe natively (the same Trainer
// the Wasm module runs, at native speed): for long runs such as the demo
// model's, and to check that native and Wasm training give the same bits.
//
// Usage: minimind-train (--preset NAME | --config config.json |
//                        --model DIR) --data FILE.jsonl|FILE.txt --out DIR
//        [--tokenizer tokenizer.json] [--epochs 1] [--batch-size 32]
//        [--max-seq-len 340] [--lr 5e-4] [--accumulation-steps 8]
//        [--grad-clip 1.0] [--seed 42] [--order shuffle|file]
//        [--dtype float32|float16] [--log FILE.jsonl] [--threads 1]
//        [--max-batches N] [--save-every N]
// --threads splits the products by output rows: the same bits for any count.
// --max-batches stops after the run's first N batches, on the schedule of the
// whole run: to replay the start of a logged run (scripts/replay_demo.mjs).
// --save-every N also writes the model before the first batch and after
// every N batches to DIR/batch-<N>/ (config.json, model.safetensors, always
// float32: the trainer's weights exactly, whatever --dtype the final file
// takes): to see when a head forms within one run
// (bench/training/induction_search.mjs) and to compute the demo model's
// training timeline (scripts/demo_timeline.mjs).
// Writes DIR/config.json and DIR/model.safetensors; one line per batch on
// stderr (and in --log as JSON, the fields of `minimind train --log`).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>

#include "checkpoint/model_export.h"
#include "checkpoint/model_loader.h"
#include "model/model.h"
#include "model/presets.h"
#include "tokenizer/tokenizer.h"
#include "train/trainer.h"
#include "util/error.h"
#include "util/thread_pool.h"

namespace {

using namespace minimind;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cli.cannot_read", {{"path", path}}, "cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  if (!out.write(bytes.data(), std::streamsize(bytes.size())))
    throw Error("cli.cannot_write", {{"path", path}}, "cannot write " + path);
}

// DIR/config.json and DIR/model.safetensors of the model as it is now.
void save_model(const Model& model, const std::string& dir, const std::string& dtype) {
  std::filesystem::create_directories(dir);
  write_file(dir + "/config.json", config_to_json(model.config()) + "\n");
  const std::vector<uint8_t> file = model_safetensors(model, dtype == "float16" ? DType::F16 : DType::F32);
  write_file(dir + "/model.safetensors", std::string(file.begin(), file.end()));
}

int64_t integer(const std::map<std::string, std::string>& args, const std::string& name, int64_t fallback) {
  const auto it = args.find(name);
  if (it == args.end()) return fallback;
  char* end = nullptr;
  const long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (it->second.empty() || *end != '\0')
    throw Error("cli.not_integer", {{"flag", name}}, "--" + name + " must be an integer");
  return v;
}

double number(const std::map<std::string, std::string>& args, const std::string& name, double fallback) {
  const auto it = args.find(name);
  if (it == args.end()) return fallback;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (it->second.empty() || *end != '\0')
    throw Error("cli.not_number", {{"flag", name}}, "--" + name + " must be a number");
  return v;
}

int run(const std::map<std::string, std::string>& args) {
  static const char* const kFlags[] = {"preset",
                                       "config",
                                       "model",
                                       "data",
                                       "out",
                                       "tokenizer",
                                       "epochs",
                                       "batch-size",
                                       "max-seq-len",
                                       "lr",
                                       "accumulation-steps",
                                       "grad-clip",
                                       "seed",
                                       "order",
                                       "dtype",
                                       "log",
                                       "threads",
                                       "max-batches",
                                       "save-every"};
  for (const auto& [name, value] : args) {
    bool known = false;
    for (const char* flag : kFlags) known = known || name == flag;
    if (!known) throw Error("cli.unknown_flag", {{"flag", name}}, "unknown flag --" + name);
  }
  const auto get = [&](const std::string& name) {
    const auto it = args.find(name);
    return it == args.end() ? std::string() : it->second;
  };
  if (get("data").empty() || get("out").empty())
    throw Error("cli.missing_data_out", {}, "give --data FILE and --out DIR");
  const uint64_t seed = uint64_t(integer(args, "seed", 42));
  const int64_t threads = integer(args, "threads", 1);
  if (threads < 1 || threads > kMaxThreads)
    throw Error("cli.threads", {{"value", threads}, {"limit", int64_t(kMaxThreads)}},
                "--threads must be between 1 and " + std::to_string(kMaxThreads));
  set_thread_count(int(threads));
  const std::string folder = get("model");
  const auto open_model = [&]() {
    if (!folder.empty()) {
      const std::string weights = read_file(folder + "/model.safetensors");
      return model_from_safetensors(parse_config_json(read_file(folder + "/config.json")),
                                    reinterpret_cast<const uint8_t*>(weights.data()), weights.size());
    }
    if (!get("config").empty()) {
      return Model::random(parse_config_json(read_file(get("config"))), seed, {}, WeightPacking::Narrowest,
                           RandomInit::MiniMind);
    }
    return Model::random(preset_config(get("preset").empty() ? "lab-a" : get("preset")), seed, {},
                         WeightPacking::Narrowest, RandomInit::MiniMind);
  };
  Model model = open_model();

  DataOptions data_options;
  data_options.max_seq_len = integer(args, "max-seq-len", 340);
  data_options.bos_id = int32_t(model.config().bos_token_id);
  data_options.eos_id = int32_t(model.config().eos_token_id);
  const std::string tokenizer_path =
      !get("tokenizer").empty() ? get("tokenizer") : (!folder.empty() ? folder + "/tokenizer.json" : std::string());
  std::unique_ptr<Tokenizer> tokenizer;
  if (!tokenizer_path.empty() && std::filesystem::exists(tokenizer_path)) {
    tokenizer = std::make_unique<Tokenizer>(Tokenizer::from_json(read_file(tokenizer_path)));
  }
  const std::string data_path = get("data");
  const bool text = data_path.size() >= 4 && data_path.compare(data_path.size() - 4, 4, ".txt") == 0;
  PretrainDataset data = PretrainDataset::parse(read_file(data_path), text ? DataFormat::Text : DataFormat::Jsonl,
                                                tokenizer.get(), data_options);

  TrainerOptions o;
  o.epochs = integer(args, "epochs", 1);
  o.batch_size = integer(args, "batch-size", 32);
  o.accumulation_steps = integer(args, "accumulation-steps", 8);
  o.learning_rate = number(args, "lr", 5e-4);
  o.grad_clip = number(args, "grad-clip", 1.0);
  o.seed = seed;
  const std::string order = get("order").empty() ? "shuffle" : get("order");
  if (order != "shuffle" && order != "file")
    throw Error("cli.order", {{"value", order}}, "--order must be shuffle or file");
  o.shuffle = order == "shuffle";
  const std::string dtype = get("dtype").empty() ? "float32" : get("dtype");
  if (dtype != "float32" && dtype != "float16")
    throw Error("cli.dtype", {{"value", dtype}}, "--dtype must be float32 or float16");

  const int64_t max_batches = integer(args, "max-batches", 0);
  if (max_batches < 0)
    throw Error("cli.negative", {{"flag", std::string("max-batches")}, {"value", max_batches}},
                "--max-batches must not be negative (0: the whole run)");

  const int64_t save_every = integer(args, "save-every", 0);
  if (save_every < 0)
    throw Error("cli.negative", {{"flag", std::string("save-every")}, {"value", save_every}},
                "--save-every must not be negative (0: only the final model)");

  Trainer trainer(model, std::move(data), o);
  std::ofstream log;
  if (!get("log").empty()) log.open(get("log"));
  const auto start = std::chrono::steady_clock::now();
  const double split_before = split_seconds();
  int64_t tokens = 0;
  if (save_every > 0) save_model(model, get("out") + "/batch-0", "float32");
  while (!trainer.done() && (max_batches == 0 || trainer.batches_done() < max_batches)) {
    const TrainStep s = trainer.step();
    tokens += std::min(o.batch_size, trainer.data().size() - (s.batch - 1) * o.batch_size) * data_options.max_seq_len;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "epoch %lld batch %lld/%lld loss %.4f lr %.3e %.0f tokens/s\n", (long long)s.epoch + 1,
                 (long long)s.batch, (long long)trainer.batches_per_epoch(), s.loss, s.lr, double(tokens) / seconds);
    if (log.is_open()) {
      char line[512];
      char norm[32] = "null";
      if (s.grad_norm) std::snprintf(norm, sizeof norm, "%.17g", *s.grad_norm);
      std::snprintf(line, sizeof line,
                    "{\"epoch\": %lld, \"batch\": %lld, \"loss\": %.17g, \"lr\": %.17g, \"optimizer_step\": %s, "
                    "\"grad_norm\": %s, \"tokens\": %lld, \"ms\": %.3f}\n",
                    (long long)s.epoch, (long long)s.batch, s.loss, s.lr, s.optimizer_step ? "true" : "false", norm,
                    (long long)s.tokens, s.ms);
      log << line;
    }
    if (save_every > 0 && trainer.batches_done() % save_every == 0 && !trainer.done())
      save_model(model, get("out") + "/batch-" + std::to_string(trainer.batches_done()), "float32");
  }
  if (thread_count() > 1) {
    // What share of the run the threads shared (the rest ran on one thread).
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double split = split_seconds() - split_before;
    std::fprintf(stderr, "%d threads: %.2f s of %.2f s split across threads (%.1f%%)\n", thread_count(), split, seconds,
                 100.0 * split / seconds);
  }
  save_model(model, get("out"), dtype);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--", 0) != 0 || i + 1 >= argc) {
      std::fprintf(stderr, "minimind-train: expected --name value, got %s\n", a.c_str());
      return 2;
    }
    args[a.substr(2)] = argv[++i];
  }
  try {
    return run(args);
  } catch (const Error& e) {
    // English for developers, with the kind a script can match.
    std::fprintf(stderr, "minimind-train: %s [%s]\n", e.what(), e.kind().c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "minimind-train: %s\n", e.what());
    return 1;
  }
}
