// The generation panel: Step (one token) and Play (keep going) from the
// prompt with the sampling settings, the text so far, the candidates for the
// next token and the KV cache's size. While a generation is on, the matrix
// shows its growing matrices (shown_matrix.mjs).
import { appendRows, withLookup } from '../generation_matrix.mjs';
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
    if (!s.model.info) return;
    stepsWanted = count;
    if (s.generation) return continueGeneration();
    const current = input.currentTokens();
    if (!current.viaWorker && current.ids.length === 0) return;
    client.startGeneration(input.requestTokens(current), { chat: $('gen-chat').checked, sampling: samplingOptions() });
    store.set({ busy: { kind: 'generation', since: client.pendingSince('gen-start') } });
  }

  function continueGeneration() {
    const g = store.get().generation;
    if (!g || g.finished || stepsWanted <= 0) {
      if (store.get().playing) store.set({ playing: false });
      return;
    }
    stepsWanted -= 1;
    client.step();
    store.set({ busy: { kind: 'generation', since: client.pendingSince('gen-step') } });
  }

  function reset() {
    stepsWanted = 0;
    store.set({ generation: null, playing: false });
  }

  // A cancel asks for no more tokens.
  function stop() {
    stepsWanted = 0;
  }

  // The worker's answers: the prompt's state, then one token at a time.
  function started({ ids, labels, entries, cache, candidates }) {
    const generation = {
      ids,
      tokens: labels,
      entries: withLookup(entries),
      T: ids.length,
      cache,
      candidates,
      finished: false,
      step: 0,
      chosen: null,
    };
    store.set({ generation, computeError: null, busy: null });
    continueGeneration();
  }

  function stepped(message) {
    const g = store.get().generation;
    if (!g) return;
    const T = g.T + 1;
    store.set({
      generation: {
        ids: [...g.ids, message.token],
        tokens: [...g.tokens, message.label],
        entries: appendRows(g.entries, message.entries),
        T,
        cache: message.cache,
        candidates: message.candidates,
        finished: message.finished || T >= MAX_TOKENS,
        step: g.step + 1,
        chosen: { label: message.label, p: message.chosenP, isEos: message.isEos },
      },
      busy: null,
    });
    continueGeneration();
  }

  // A start or a step the worker could not run: nothing is on its way, and Play stops.
  function failed(message) {
    store.set({ busy: null });
    store.set({ playing: false, computeError: message });
  }

  function renderGeneration() {
    const s = store.get();
    const g = s.generation;
    $('gen-play').textContent = t(s.playing ? 'gen.pause' : 'gen.play');
    $('gen-step').disabled = Boolean(g?.finished) || !s.model.info;
    $('gen-play').disabled = (Boolean(g?.finished) || !s.model.info) && !s.playing;
    $('gen-chat').disabled = !s.files?.tokenizer;
    if (!g) {
      $('gen-status').textContent = '';
      $('gen-text').textContent = '';
      $('gen-candidates').replaceChildren();
      $('gen-cache').textContent = '';
      return;
    }
    const status = !g.chosen
      ? t('gen.started', { count: g.T })
      : g.chosen.isEos
        ? t('gen.eos', { step: g.step })
        : t('gen.stepped', { step: g.step, token: g.chosen.label, p: g.chosen.p.toFixed(3) });
    const full = g.finished && !g.chosen?.isEos && g.T >= MAX_TOKENS ? ` ${t('gen.full', { max: MAX_TOKENS })}` : '';
    $('gen-status').textContent = `${status}${full}${s.ablate.length ? ` ${t('gen.everyHead')}` : ''}`;
    // Tokenizer pieces carry their own spaces; bare ids need them.
    $('gen-text').textContent = g.tokens.join(s.files?.tokenizer ? '' : ' ');
    renderCandidates($('gen-candidates'), g.candidates, t);
    const [tokens, hkv, dh] = g.cache.shapePerLayer;
    $('gen-cache').textContent = t('gen.cache', { tokens, hkv, dh, layers: g.cache.layers, kib: (g.cache.bytes / 1024).toFixed(1) });
  }

  store.subscribe((state, changed) => {
    if (['generation', 'playing', 'model', 'files', 'lang', 'ablate'].some((k) => changed.has(k))) renderGeneration();
  });

  $('gen-step').addEventListener('click', () => requestSteps(1));
  $('gen-play').addEventListener('click', () => {
    if (store.get().playing) {
      stepsWanted = 0;
      store.set({ playing: false });
      return;
    }
    store.set({ playing: true });
    requestSteps(Infinity);
  });
  $('gen-reset').addEventListener('click', () => reset());

  return { reset, stop, started, stepped, failed };
}
