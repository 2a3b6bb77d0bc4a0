# Compiler flags, in one place.
add_library(minimind_flags INTERFACE)
# No FMA contraction: products and sums round exactly as written, the same
# in the native and the Wasm build.
target_compile_options(minimind_flags INTERFACE -Wall -Wextra -Wno-unused-parameter -ffp-contract=off)
if(MINIMIND_SANITIZE)
  target_compile_options(minimind_flags INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                                                  -fno-sanitize-recover=undefined)
  target_link_options(minimind_flags INTERFACE -fsanitize=address,undefined)
endif()
