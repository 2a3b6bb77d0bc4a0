# minimind_json: nlohmann-json's header for the core. Natively it is the
# package's own target. Under Emscripten that target would add
# -isystem /usr/include, which hides the Wasm sysroot's libc headers, so the
# build links just the nlohmann/ folder into a directory of its own.
add_library(minimind_json INTERFACE)
if(EMSCRIPTEN)
  get_target_property(json_dirs nlohmann_json::nlohmann_json INTERFACE_INCLUDE_DIRECTORIES)
  list(GET json_dirs 0 json_dir)
  set(json_shim ${CMAKE_BINARY_DIR}/json_include)
  file(MAKE_DIRECTORY ${json_shim})
  file(CREATE_LINK ${json_dir}/nlohmann ${json_shim}/nlohmann SYMBOLIC)
  target_include_directories(minimind_json SYSTEM INTERFACE ${json_shim})
else()
  target_link_libraries(minimind_json INTERFACE nlohmann_json::nlohmann_json)
endif()
