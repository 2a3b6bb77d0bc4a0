// WasmModel's calls that build the objects which keep it alive.
#include "model_binding.h"

#include "generator_binding.h"
#include "tokenizer_binding.h"
#include "trainer_binding.h"

namespace minimind::wasm {

WasmGenerator* WasmModel::generator(const val& prompt, const std::string& sampling_json,
                                    const std::string& trace_json) const {
  return guarded([&] {
    return new WasmGenerator(model_, to_ids(prompt), parse_sampling(json::parse(sampling_json)),
                             parse_trace_request(json::parse(trace_json)));
  });
}

WasmTrainer* WasmModel::trainer(const std::string& data, const std::string& format, const WasmTokenizer* tokenizer,
                                const std::string& options_json) {
  return guarded([&] {
    const json options = json::parse(options_json);
    if (format != "jsonl" && format != "text") {
      throw std::invalid_argument("data format must be \"jsonl\" or \"text\", got \"" + format + "\"");
    }
    DataOptions data_options;
    data_options.max_seq_len = options.value("maxSeqLen", data_options.max_seq_len);
    data_options.bos_id = int32_t(model_->config().bos_token_id);
    data_options.eos_id = int32_t(model_->config().eos_token_id);
    PretrainDataset dataset = PretrainDataset::parse(data, format == "jsonl" ? DataFormat::Jsonl : DataFormat::Text,
                                                     tokenizer ? &tokenizer->tokenizer() : nullptr, data_options);
    return new WasmTrainer(model_, std::move(dataset), parse_trainer_options(options), weights_version_);
  });
}

}  // namespace minimind::wasm
