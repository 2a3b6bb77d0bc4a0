// The page's one state store: views read state and redraw when it changes;
// nothing else holds page state.
export function createStore(initial) {
  let state = initial;
  const listeners = new Set();
  return {
    get: () => state,
    /** Merges `patch` into the state and notifies with the changed keys. */
    set(patch) {
      const changed = Object.keys(patch).filter((key) => !Object.is(state[key], patch[key]));
      if (changed.length === 0) return;
      state = { ...state, ...patch };
      for (const listener of listeners) listener(state, new Set(changed));
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
