// Configs and presets without a model: names, problems, warnings, shapes.
#pragma once

#include <emscripten/val.h>

#include <string>

namespace minimind::wasm {

emscripten::val preset_names_array();
std::string preset_config_json(const std::string& name);
// One sentence per unknown key of a usable config.json text (empty when it
// has none, or is not usable: configProblems says why).
emscripten::val config_warnings(const std::string& config_json);
// Every problem of a config.json text (empty array when usable).
emscripten::val config_problems(const std::string& config_json);
// A config's derived shapes and sizes without building weights (throws the
// config's problems).
std::string describe_config(const std::string& config_json);
// The trace's stage names, as JSON.
std::string stage_names_json();
// Every error kind the core raises (util/error_kinds.h), as JSON.
std::string error_kinds_json();

}  // namespace minimind::wasm
