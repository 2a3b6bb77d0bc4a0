# Compiler flags, in one place.
add_library(minimind_flags INTERFACE)
# No FMA contraction: products and sums round exactly as written, the same
# in the native and the Wasm build.
target_compile_options(minimind_flags INTERFACE -Wall -Wextra -Wno-unused-parameter -ffp-contract=off)
if(MINIMIND_WERROR)
  # The project's own code only: Eigen and the other dependencies are system
  # includes, whose warnings the compiler does not report.
  target_compile_options(minimind_flags INTERFACE -Werror)
endif()
# Eigen checks a switch before each of its heap allocations, so that a test
# of a debug build can forbid them (tests/allocation_counter.h).
target_compile_definitions(minimind_flags INTERFACE EIGEN_RUNTIME_NO_MALLOC)
if(MINIMIND_SANITIZE)
  # At the Debug build's -O0 (asserts on). -O1 was measured: the sanitized
  # suite ran in 73 s instead of 100 s, but the build took twice as long.
  target_compile_options(minimind_flags INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                                                  -fno-sanitize-recover=undefined)
  target_link_options(minimind_flags INTERFACE -fsanitize=address,undefined)
endif()

if(MINIMIND_FUZZ)
  # libFuzzer coverage for every file of the core, plus ASan and UBSan; only
  # the fuzz targets link libFuzzer's main (tests/fuzz/CMakeLists.txt).
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "MINIMIND_FUZZ needs clang: configure with CC=clang CXX=clang++ (scripts/fuzz.sh does)")
  endif()
  target_compile_options(minimind_flags INTERFACE -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                                                  -fno-sanitize-recover=undefined -g)
  target_link_options(minimind_flags INTERFACE -fsanitize=address,undefined)
endif()

if(EMSCRIPTEN)
  # Wasm exceptions so C++ catch works and errors reach JS as messages. The
  # pthreads build uses Emscripten's JS-based exceptions: 3.1.6's prebuilt
  # threaded libc++abi does not catch Wasm exceptions (a throw ends the program).
  if(MINIMIND_WASM_THREADS)
    target_compile_options(minimind_flags INTERFACE -fexceptions)
    target_link_options(minimind_flags INTERFACE -fexceptions)
  else()
    target_compile_options(minimind_flags INTERFACE -fwasm-exceptions)
    target_link_options(minimind_flags INTERFACE -fwasm-exceptions)
  endif()
  if(MINIMIND_WASM_SIMD)
    target_compile_options(minimind_flags INTERFACE -msimd128)
  endif()
  if(MINIMIND_WASM_THREADS)
    target_compile_options(minimind_flags INTERFACE -pthread)
    target_link_options(minimind_flags INTERFACE -pthread)
  endif()
  # em++ needs acorn at -O1 and above; nodesource's node does not search
  # Debian's module directory by itself.
  set(CMAKE_CXX_LINKER_LAUNCHER ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs)
endif()
