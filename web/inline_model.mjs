// The keystroke fast path for tiny models. The worker owns every model and
// does all the long work (building, files, generation, big models); but a
// message to the worker and back costs at least one frame, whatever the
// model, so for models whose forward pass takes a fraction of a millisecond
// (lab-a, lab-b, small custom configs) the page also keeps a twin of the
// worker's model on the main thread and answers a keystroke at once: the
// matrix is painted in the same frame as the typed character.
// The twin is built from the same preset, seed and config as the worker's
// model (the seeded weights are the same everywhere), and its answer has the
// shape of the worker's 'result' message.
import { STAGES } from './url_state.mjs';
import { loadRuntime, runtimeOptions } from './wasm_runtime.mjs';

// About 0.3 ms per forward of a lesson sentence at lab-a's 0.1 M parameters;
// 2 M parameters stay well under a frame.
const INLINE_MAX_PARAMETERS = 2_000_000;

export class InlineModel {
  #runtime = null; // Promise of the JS API, loaded on first use
  #model = null;
  #key = null; // the spec the twin is (being) built for

  /**
   * spec: {preset, seed, config} of the model the worker has just loaded, or
   * null (a model from files, or none); info: that model's info.
   */
  prepare(spec, info) {
    const key = spec && info && info.parameters <= INLINE_MAX_PARAMETERS ? JSON.stringify(spec) : null;
    if (key === this.#key) return;
    this.#model?.dispose();
    this.#model = null;
    this.#key = key;
    if (key) this.#build(spec, key).catch(() => this.#key === key && (this.#key = null)); // the worker still answers
  }

  async #build({ preset, seed, config }, key) {
    // One thread, and the instruction set the worker uses (the page's ?variant=), for the worker's numbers.
    this.#runtime ??= loadRuntime(runtimeOptions(import.meta.url, { search: globalThis.location?.search ?? '', threads: 1 }));
    const mm = await this.#runtime;
    if (this.#key !== key) return; // another model was loaded meanwhile
    this.#model = config ? mm.createModel({ config: { ...mm.presetConfig(preset), ...config }, seed }) : mm.createModel({ preset, seed });
  }

  get ready() {
    return this.#model !== null;
  }

  /** The worker's 'result' message for these tokens, or null when there is no twin (or it failed). */
  forward({ ids, tokens, dropped }, { causal, scale, ablate = [] }) {
    if (!this.#model || ids.length === 0) return null;
    const started = performance.now();
    try {
      const options = { trace: { layers: 'all', stages: STAGES }, causalMask: causal, scaleScores: scale };
      const { trace } = this.#model.forward(ids, ablate.length ? { ...options, ablate } : options);
      const entries = trace.map(({ layer, stage, shape, data }) => ({ layer, stage, shape, data }));
      return { ids, labels: tokens, dropped, entries, computeMs: performance.now() - started };
    } catch {
      return null; // the worker gives the error its message
    }
  }
}
