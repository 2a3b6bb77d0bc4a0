// The instruction set a benchmark binary was compiled for, for its report.
#pragma once

inline const char* isa() {
#if defined(__AVX512F__)
  return "avx512";
#elif defined(__AVX2__)
  return "avx2";
#elif defined(__AVX__)
  return "avx";
#elif defined(__SSE4_2__)
  return "sse4.2";
#elif defined(__SSE2__)
  return "sse2";
#elif defined(__wasm_simd128__)
  return "wasm-simd128";
#elif defined(__wasm__)
  return "wasm";
#else
  return "other";
#endif
}
