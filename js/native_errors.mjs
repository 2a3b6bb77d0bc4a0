// Throws the bindings' errors on the JS side of a call. A failing binding
// (guarded() in wasm/js_values.h) leaves its MiniMindError in the module's
// pendingError slot and returns normally, so embind frees its argument
// copies and the Wasm frames unwind as on success; throwing from inside Wasm
// leaked them (every build: embind's string buffers; the threads build's
// JS-based exceptions: every frame's temporaries too).

// Wraps every bound function and class method of `native` (an Emscripten
// module) so a pending error is thrown once the call has returned.
export function throwPendingErrors(native) {
  const slot = { error: undefined };
  const rethrowing = (call) =>
    function (...args) {
      const out = call.apply(this, args);
      const error = slot.error;
      if (error === undefined) return out;
      slot.error = undefined;
      throw error;
    };
  const wrapOwnFunctions = (target, skip) => {
    for (const name of Object.getOwnPropertyNames(target)) {
      const descriptor = Object.getOwnPropertyDescriptor(target, name);
      if (skip.includes(name) || typeof descriptor.value !== 'function' || !descriptor.writable) continue;
      target[name] = rethrowing(descriptor.value);
    }
  };
  for (const name of Object.keys(native)) {
    const value = native[name];
    if (typeof value !== 'function') continue;
    if (/^Native[A-Z]/.test(name)) {
      // An embind class: its class functions and its methods.
      wrapOwnFunctions(value, ['prototype', 'length', 'name']);
      wrapOwnFunctions(value.prototype, ['constructor']);
    } else if (/^[a-z]/.test(name)) {
      native[name] = rethrowing(value); // a bound free function (camelCase)
    }
  }
  native.pendingError = slot;
}
