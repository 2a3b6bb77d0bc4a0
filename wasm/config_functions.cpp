#include "config_functions.h"

#include "js_options.h"
#include "js_values.h"
#include "model/presets.h"
#include "util/error_kinds.h"

namespace minimind::wasm {

val preset_names_array() {
  val out = val::array();
  for (const std::string& name : preset_names()) out.call<void>("push", name);
  return out;
}

std::string preset_config_json(const std::string& name) {
  return guarded([&] { return config_to_json(preset_config(name)); });
}

val config_warnings(const std::string& config_json) {
  return guarded([&] {
    val out = val::array();
    try {
      std::vector<std::string> warnings;
      parse_config_warning(config_json, warnings);
      for (const std::string& w : warnings) out.call<void>("push", w);
    } catch (const ConfigError&) {
    }
    return out;
  });
}

val config_problems(const std::string& config_json) {
  return guarded([&] {
    val out = val::array();
    try {
      parse_config_json(config_json);
    } catch (const ConfigError& e) {
      for (const std::string& p : e.problems()) out.call<void>("push", p);
    }
    return out;
  });
}

std::string describe_config(const std::string& config_json) {
  return guarded([&] { return info_json(parse_config_json(config_json)).dump(); });
}

std::string stage_names_json() { return json(all_stage_names()).dump(); }

std::string error_kinds_json() { return json(error_kinds()).dump(); }

}  // namespace minimind::wasm
