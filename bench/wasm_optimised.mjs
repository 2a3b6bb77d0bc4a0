// Node flags for timing a Wasm kernel in a loop. V8 first runs a Wasm
// function as its baseline compiler (Liftoff) built it and swaps in the
// optimised code for later calls only: native_bench's timing loop is one
// call, so without this flag it times the baseline code all along (1·512·1408
// with float16 weights, AMD EPYC: 0.365 ms a product, against 0.139 ms
// optimised). A page runs the optimised code once a product has run a few
// times.
export const WASM_OPTIMISED = Object.freeze(['--no-liftoff']);
