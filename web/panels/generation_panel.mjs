// The generation panel: Step (one token) and Play (keep going) from the
// prompt with the sampling settings, the text so far (decoded: a byte token
// that completes a character shows the character), the candidates for the
// next token and the KV cache's size. While a generation is on, the matrix
// shows its growing matrices (shown_matrix.mjs).
//
// A generation ends when the model chooses its end-of-sequence token, when
// the model has no position left, or when the matrix is full (MAX_TOKENS);
// a line says which, and Reset (or new text) starts again. Every answer, and
// every reset, takes the busy state down: nothing leaves the run bar up.
import { nextGeneration, startedGeneration } from '../generation_steps.mjs';
import { renderCandidates } from '../views/candidates.mjs';
import { MAX_TOKENS } from './input_panel.mjs';

/** input: the input panel ({currentTokens, requestTokens}): generation starts from its tokens. */
export function setupGenerationPanel({ store, t, $, client, input }) {
  let stepsWanted = 0;

  function samplingOptions() {
    const number = (id) => Number($(id).value);
    return {
      greedy: $('gen-greedy').checked,
      temperature: number('gen-temperature'),
      topK: Math.max(0, Math.floor(number('gen-top-k'))),
      topP: number('gen-top-p'),
      repetitionPenalty: number('gen-penalty'),
      seed: Math.max(0, Math.floor(number('gen-seed'))),
    };
  }

  // Step: start from the prompt if needed, then one token; Play: keep going.
  function requestSteps(count) {
    const s = store.get();
    if (!s.model.info || s.generation?.end) return stopPlaying();
    stepsWanted = count;
    if (s.generation) return continueGeneration();
    const current = input.currentTokens();
    if (!current.viaWorker && current.ids.length === 0) return stopPlaying();
    client.startGeneration(input.requestTokens(current), { chat: $('gen-chat').checked, sampling: samplingOptions() });
    store.set({ busy: { kind: 'generation', since: client.pendingSince('gen-start') } });
  }

  function continueGeneration() {
    const g = store.get().generation;
    if (!g || g.end || stepsWanted <= 0) return stopPlaying();
    stepsWanted -= 1;
    client.step();
    store.set({ busy: { kind: 'generation', since: client.pendingSince('gen-step') } });
  }

  function stopPlaying() {
    stepsWanted = 0;
    if (store.get().playing) store.set({ playing: false });
  }

  // Nothing asked for before a reset is wanted any more: its answer is dropped.
  function reset() {
    stepsWanted = 0;
    client.supersede('gen-start');
    client.supersede('gen-step');
    const { busy } = store.get();
    store.set({ generation: null, playing: false, busy: busy?.kind === 'generation' ? null : busy });
  }

  // A cancel asks for no more tokens.
  function stop() {
    stepsWanted = 0;
  }

  // The worker's answers: the prompt's state (a prompt that fills the matrix ends at once), then one token at a time.
  function started(message) {
    store.set({ generation: startedGeneration(message, MAX_TOKENS), computeError: null, busy: null });
    continueGeneration();
  }

  // A token fed through the cache adds its row; one that ended generation
  // unfed (the eos, or the last position) adds none. The worker labels every
  // token again: a byte that completes a character relabels its first bytes.
  function stepped(message) {
    const g = store.get().generation;
    if (!g) return store.set({ busy: null }); // reset or replaced meanwhile
    let next;
    try {
      next = nextGeneration(g, message, MAX_TOKENS);
    } catch (error) {
      return failed(String(error?.message ?? error));
    }
    store.set({ generation: next, busy: null });
    continueGeneration();
  }

  // A start or a step the worker could not run: nothing is on its way, and Play stops.
  function failed(message, error, request = 'gen-step') {
    stepsWanted = 0;
    // A generation reset or replaced meanwhile (a new model) has no error to show, but a start
    // that failed (say a temperature of 0) does; the worker's error keeps its kind and values,
    // worded in the page's language when drawn.
    const shown = store.get().generation || request === 'gen-start';
    const patch = shown ? { computeError: error?.kind !== undefined ? error : message } : {};
    store.set({ busy: null, playing: false, ...patch });
  }

  function tokenName(chosen) {
    return chosen.whole ? t('predict.whole', { label: chosen.label, whole: chosen.whole }) : chosen.label;
  }

  function statusLine(g, info) {
    // A prompt that fills the matrix ends before any step, and says so.
    if (!g.chosen)
      return g.end === 'tokens'
        ? `${t('gen.started', { count: g.T })} ${t('gen.endTokens', { max: MAX_TOKENS })}`
        : t('gen.started', { count: g.T });
    const chose = { step: g.step, token: tokenName(g.chosen), p: g.chosen.p.toFixed(3) };
    if (g.end === 'eos') return t('gen.endEos', chose);
    if (g.end === 'positions')
      return `${t('gen.stepped', chose)} ${t('gen.endPositions', { max: info?.max_position_embeddings ?? g.T + 1 })}`;
    if (g.end === 'tokens') return `${t('gen.stepped', chose)} ${t('gen.endTokens', { max: MAX_TOKENS })}`;
    return t('gen.stepped', chose);
  }

  // Without a tokenizer the tokens are bare ids, shown apart.
  function renderText(g) {
    const box = $('gen-text');
    if (!g.text) return (box.textContent = g.tokens.join(' '));
    const prompt = document.createElement('span');
    prompt.className = 'gen-prompt';
    prompt.textContent = g.text.prompt;
    const generated = document.createElement('span');
    generated.className = 'gen-new';
    generated.textContent = g.text.generated;
    box.replaceChildren(prompt, generated);
  }

  function renderGeneration() {
    const s = store.get();
    const g = s.generation;
    const over = Boolean(g?.end);
    $('gen-play').textContent = t(s.playing ? 'gen.pause' : 'gen.play');
    $('gen-step').disabled = over || !s.model.info;
    $('gen-play').disabled = (over || !s.model.info) && !s.playing;
    $('gen-chat').disabled = !s.files?.tokenizer;
    $('gen-status').dataset.end = g?.end ?? '';
    if (!g) {
      $('gen-status').textContent = '';
      $('gen-text').textContent = '';
      $('gen-candidates').replaceChildren();
      $('gen-cache').textContent = '';
      return;
    }
    const reset = over ? ` ${t('gen.again')}` : '';
    $('gen-status').textContent = `${statusLine(g, s.model.info)}${reset}${s.ablate.length ? ` ${t('gen.everyHead')}` : ''}`;
    renderText(g);
    renderCandidates($('gen-candidates'), g.candidates, t);
    const [tokens, hkv, dh] = g.cache.shapePerLayer;
    $('gen-cache').textContent = t('gen.cache', { tokens, hkv, dh, layers: g.cache.layers, kib: (g.cache.bytes / 1024).toFixed(1) });
  }

  store.subscribe((state, changed) => {
    if (['generation', 'playing', 'model', 'files', 'lang', 'ablate'].some((k) => changed.has(k))) renderGeneration();
  });

  $('gen-step').addEventListener('click', () => requestSteps(1));
  $('gen-play').addEventListener('click', () => {
    if (store.get().playing) return stopPlaying();
    store.set({ playing: true });
    requestSteps(Infinity);
  });
  $('gen-reset').addEventListener('click', () => reset());

  return { reset, stop, started, stepped, failed };
}
