// The guided tour's sentences, composed from what is on screen now: the
// tokens of the text, the selected row (and cell), the layer and head shown
// and that head's measured role, the stage, the switches, the heads switched
// off and the prediction. Never a fixed claim: when the learner types,
// switches or clicks during a step, the same `say` gives other sentences.
// Returns [{key, params}]; the page words them with its catalogue
// (web/messages/tour_terms.mjs), nested {key, params} values included
// and lists of them (joined by the catalogue's separator).
//
// view: {tokens: string[T], special: boolean[T] | null, row, cell: {query, key} | null,
//   layer, head, stage, causal, scale, ablate: [[layer, head]], preset,
//   info: {L, H, Hkv, Dh, D, qkNorm, ropeTheta}, role: {role, score, value} | null,
//   rows: {scores_raw, scores_scaled, attn_weights}: the shown head's values in row `at` ([T] each),
//   at: the row those are from (the selected row, else the last),
//   prediction: {query, top: {label, p}, on: {label, p} | null, masked: {label, p} | null (with the mask on)} | null}

const two = (x) => x.toFixed(2);

/** The largest entries of a row, [{index, value}], largest first; masked (−∞, or 0 after softmax with the mask) left out. */
export function rowLargest(values, count = 2, keep = () => true) {
  return [...values]
    .map((value, index) => ({ index, value }))
    .filter(({ index, value }) => Number.isFinite(value) && keep(index))
    .sort((a, b) => b.value - a.value)
    .slice(0, count);
}

/** Head name as the page words it ("layer 0 head 3"). */
const headName = (layer, head) => ({ key: 'overview.headName', params: { layer, head } });

function quoted(tokens, index) {
  return tokens[index] ?? '';
}

// What a step says about the row it looks at: the row's number and token.
function rowParams(view) {
  return { row: view.at, token: quoted(view.tokens, view.at) };
}

// Keys the row can see: itself and before with the mask on, every key without it.
function visible(view) {
  return (j) => !view.causal || j <= view.at;
}

const SAY = {
  'tokens.split'(view) {
    const lines = [{ key: 'tour.tokens.split', params: { text: view.text, count: view.tokens.length, list: view.tokens.join(' | ') } }];
    const bos = view.special?.[0] ? view.tokens[0] : null;
    lines.push(bos ? { key: 'tour.tokens.bos', params: { bos } } : { key: 'tour.tokens.noBos', params: {} });
    if (view.row !== null) lines.push({ key: 'tour.row.selected', params: rowParams(view) });
    return lines;
  },
  'tokens.rows'(view) {
    const seen = view.causal ? view.at + 1 : view.tokens.length;
    return [
      { key: 'tour.tokens.rows', params: { T: view.tokens.length } },
      { key: view.causal ? 'tour.tokens.sees' : 'tour.tokens.seesAll', params: { ...rowParams(view), count: seen, first: view.tokens[0] } },
    ];
  },
  'scores.raw'(view) {
    return scoreStage(view, 'scores_raw');
  },
  'scores.scaled'(view) {
    return scoreStage(view, 'scores_scaled');
  },
  'scores.masked'(view) {
    const masked = view.causal ? view.tokens.length - view.at - 1 : 0;
    return [
      { key: 'tour.stage.is', params: { stage: { key: `stage.${view.stage}`, params: {} } } },
      { key: view.causal ? 'tour.scores.masked' : 'tour.scores.unmasked', params: { ...rowParams(view), masked, T: view.tokens.length } },
    ];
  },
  'scores.softmax'(view) {
    return [{ key: 'tour.stage.is', params: { stage: { key: `stage.${view.stage}`, params: {} } } }, ...weightLines(view)];
  },
  'mask.off'(view) {
    return [...maskLines(view), ...predictionLines(view)];
  },
  'mask.on'(view) {
    return [...maskLines(view), ...predictionLines(view)];
  },
  'scale.off'(view) {
    return [...scaleLines(view), ...weightLines(view)];
  },
  'scale.on'(view) {
    return [...scaleLines(view), ...weightLines(view)];
  },
  'forward.proj'(view) {
    const { H, Hkv, Dh, D } = view.info;
    return [
      { key: 'tour.forward.proj', params: { preset: view.preset, T: view.tokens.length, D, H, Hkv, Dh, HDh: H * Dh, KDh: Hkv * Dh } },
      ...weightLines(view),
    ];
  },
  'forward.norm'(view) {
    const { Dh, qkNorm, ropeTheta } = view.info;
    return [
      { key: qkNorm ? 'tour.forward.norm' : 'tour.forward.noNorm', params: { Dh } },
      { key: 'tour.forward.rope', params: { theta: ropeTheta, pairs: Dh / 2, T: view.tokens.length } },
      { key: 'tour.row.selected', params: rowParams(view) },
    ];
  },
  'forward.gqa'(view) {
    const { H, Hkv } = view.info;
    const rep = H / Hkv;
    const kv = Math.floor(view.head / rep);
    const sharing = Array.from({ length: rep }, (_, k) => kv * rep + k);
    return [
      { key: rep > 1 ? 'tour.forward.gqa' : 'tour.forward.noGqa', params: { H, Hkv, rep, head: view.head, kv, heads: sharing.join(', ') } },
      ...weightLines(view),
    ];
  },
  'forward.scores'(view) {
    const { H, Dh, D } = view.info;
    return [
      { key: 'tour.forward.scores', params: { H, T: view.tokens.length, Dh, sqrt: Math.sqrt(Dh).toFixed(3), HDh: H * Dh, D } },
      ...weightLines(view),
    ];
  },
  'heads.role'(view) {
    const name = headName(view.layer, view.head);
    const lines = [
      view.role
        ? {
            key: 'tour.heads.role',
            params: {
              head: name,
              role: { key: `role.${view.role.role}`, params: {} },
              score: { key: `score.${view.role.score}`, params: {} },
              value: two(view.role.value),
            },
          }
        : { key: 'tour.heads.noRole', params: { head: name } },
    ];
    const top = rowLargest(view.rows.attn_weights, 1, visible(view))[0];
    const role = view.role?.role;
    if (top && role === 'previous-token' && view.at > 0)
      lines.push({
        key: 'tour.heads.previous',
        params: { ...rowParams(view), previous: quoted(view.tokens, view.at - 1), weight: two(view.rows.attn_weights[view.at - 1]) },
      });
    else if (top && role === 'sink')
      lines.push({ key: 'tour.heads.sink', params: { ...rowParams(view), first: view.tokens[0], weight: two(view.rows.attn_weights[0]) } });
    else if (top && role === 'induction' && copiesOn(view, top.index))
      lines.push({
        key: 'tour.heads.induction',
        params: { ...rowParams(view), key: quoted(view.tokens, top.index), weight: two(top.value), index: top.index },
      });
    else lines.push(...weightLines(view));
    return lines;
  },
  'switchoff.off'(view) {
    const p = view.prediction;
    const heads = view.ablate.map(([layer, head]) => headName(layer, head));
    const lines = [];
    if (heads.length === 0) lines.push({ key: 'tour.switchoff.none', params: rowParams(view) });
    else lines.push({ key: 'tour.switchoff.off', params: { count: heads.length, heads } });
    if (p?.top && p.on && heads.length)
      lines.push({
        key: p.on.label === p.top.label ? 'tour.switchoff.same' : 'tour.switchoff.changed',
        params: { ...rowParams(view), after: p.top.label, pAfter: p.top.p.toFixed(3), before: p.on.label, pBefore: p.on.p.toFixed(3) },
      });
    else lines.push(...predictionLines(view));
    return lines;
  },
  'why.lens'(view) {
    return [...predictionLines(view), { key: 'tour.why.lens', params: { L: view.info.L, last: view.info.L - 1 } }];
  },
  'why.attribution'(view) {
    return [...predictionLines(view), { key: 'tour.why.attribution', params: { H: view.info.H, L: view.info.L } }];
  },
  'why.patch'(view) {
    return [...predictionLines(view), { key: 'tour.why.patch', params: rowParams(view) }];
  },
  'circuit.graph'(view) {
    return [...predictionLines(view), { key: 'tour.circuit.graph', params: { H: view.info.H, L: view.info.L } }];
  },
  'circuit.slider'(view) {
    return [{ key: 'tour.circuit.slider', params: rowParams(view) }];
  },
  'weight.cell'(view) {
    if (!view.cell) return [{ key: 'tour.weight.none', params: rowParams(view) }];
    const { query, key } = view.cell;
    const weight = view.cellWeight;
    return [
      {
        key: 'tour.weight.cell',
        params: {
          head: headName(view.layer, view.head),
          query: quoted(view.tokens, query),
          key: quoted(view.tokens, key),
          q: query,
          k: key,
          weight: weight === null ? '—' : two(weight),
        },
      },
      { key: 'tour.weight.split', params: { Dh: view.info.Dh } },
    ];
  },
  'train.panel'(view) {
    return [
      { key: 'tour.train.panel', params: { preset: view.preset, L: view.info.L, H: view.info.H } },
      { key: 'tour.train.never', params: {} },
    ];
  },
};

// The row looks at the token after an earlier copy of its own token (what an induction head does), at key `key`.
function copiesOn(view, key) {
  return key > 0 && key - 1 < view.at && view.tokens[key - 1] === view.tokens[view.at];
}

function scoreStage(view, stage) {
  const values = view.rows[stage];
  const top = rowLargest(values, 1, visible(view))[0];
  const { H, Dh } = view.info;
  const lines = [{ key: 'tour.stage.is', params: { stage: { key: `stage.${view.stage}`, params: {} } } }];
  if (stage === 'scores_raw') lines.push({ key: 'tour.scores.raw', params: { H, T: view.tokens.length, Dh } });
  else lines.push({ key: view.scale ? 'tour.scores.scaled' : 'tour.scores.scaleOff', params: { Dh, sqrt: Math.sqrt(Dh).toFixed(3) } });
  if (top)
    lines.push({ key: 'tour.scores.top', params: { ...rowParams(view), value: two(top.value), key: quoted(view.tokens, top.index) } });
  return lines;
}

function weightLines(view) {
  const [first, second] = rowLargest(view.rows.attn_weights, 2, visible(view));
  if (!first) return [{ key: 'tour.row.selected', params: rowParams(view) }];
  return [
    second
      ? {
          key: 'tour.weights.two',
          params: {
            ...rowParams(view),
            key: quoted(view.tokens, first.index),
            weight: two(first.value),
            key2: quoted(view.tokens, second.index),
            weight2: two(second.value),
          },
        }
      : { key: 'tour.weights.one', params: { ...rowParams(view), key: quoted(view.tokens, first.index), weight: two(first.value) } },
  ];
}

function maskLines(view) {
  if (view.causal) return [{ key: 'tour.mask.on', params: { ...rowParams(view), count: view.at + 1 } }];
  const w = view.rows.attn_weights;
  let future = 0;
  for (let j = view.at + 1; j < w.length; j += 1) future += w[j];
  const later = rowLargest(w, 1, (j) => j > view.at)[0];
  return [
    later
      ? {
          key: 'tour.mask.off',
          params: {
            ...rowParams(view),
            later: w.length - view.at - 1,
            future: two(future),
            key: quoted(view.tokens, later.index),
            weight: two(later.value),
          },
        }
      : { key: 'tour.mask.offLast', params: rowParams(view) },
  ];
}

function scaleLines(view) {
  const { Dh } = view.info;
  return [{ key: view.scale ? 'tour.scale.on' : 'tour.scale.off', params: { Dh, sqrt: Math.sqrt(Dh).toFixed(2) } }];
}

function predictionLines(view) {
  const p = view.prediction;
  if (!p?.top) return [{ key: 'tour.row.selected', params: rowParams(view) }];
  const next = view.tokens[view.at + 1];
  const lines = [{ key: 'tour.predict.top', params: { ...rowParams(view), top: p.top.label, p: p.top.p.toFixed(3) } }];
  // Copying: with the mask off the next token is the top prediction, and with it on it was not.
  if (!view.causal && next !== undefined) {
    const copies = p.top.label === next && p.masked && p.masked.label !== next;
    lines.push({ key: copies ? 'tour.predict.cheats' : 'tour.predict.sees', params: { next } });
    if (p.masked) lines.push({ key: 'tour.predict.masked', params: { masked: p.masked.label, p: p.masked.p.toFixed(3) } });
  }
  return lines;
}

/** The sentences of `say` for `view` ([] for an unknown say). */
export function tourSentences(say, view) {
  return SAY[say]?.(view) ?? [];
}

/** Every `say` the tour knows. */
export const SAYS = Object.keys(SAY);
