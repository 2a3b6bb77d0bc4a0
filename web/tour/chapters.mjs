// The guided tour's chapters, in order: each a slug (its link, #tour/NAME)
// and its steps. A step is declarative: the state it sets (resolved against
// the model on screen by tour_state.mjs), the element it points at, the
// sentences it says (`say`: js/tour_text.mjs computes them from what is on
// screen) and, for lesson 11, MiniMind's own code lines (shown untranslated).
// The last step of a chapter is its exercise ({exercise: NAME}). A chapter is
// one entry here: adding one adds one object.
//
// State values (all optional; what a step leaves out is the tour's default):
//   model   'minimind-demo' or a preset name        text   'lesson' (the trained
//   model's lesson sentence, heads.json), 'lesson-twice', or a literal text
//   layer, head   a number, or {role} (a head of that measured role, heads.json)
//   row     null, a number, 'pronoun' (the text's last 他/她), 'last', {token} (its first row; a list:
//           the first spelling found), {second: k} (row k of a text typed twice, in its second copy)
//   cell    null or {query: row spec, key: 'top'} (the row's largest weight)
//   ablate  [] or 'pronoun-heads' (heads.json's pronoun heads)
//   stage, causal, scale   as the store has them;  panel  'train' (opened, never started)
import { DEMO } from '../demo_model.mjs';

const LESSON = { model: DEMO, text: 'lesson', layer: { role: 'pronoun' }, head: { role: 'pronoun' }, row: 'pronoun' };

// A step on the lesson's state: it points at `point` and says `say`'s sentences, or asks `exercise`.
const lessonSays = (point, say) => ({ state: LESSON, point, say });
const lessonExercise = (point, exercise) => ({ state: LESSON, point, exercise });

// Lesson 11's Attention.forward (MiniMind's model/model_minimind.py), line by line.
const CODE = {
  proj: [
    'xq, xk, xv = self.q_proj(x), self.k_proj(x), self.v_proj(x)',
    'xq = xq.view(bsz, seq_len, self.n_local_heads, self.head_dim)',
    'xk = xk.view(bsz, seq_len, self.n_local_kv_heads, self.head_dim)',
    'xv = xv.view(bsz, seq_len, self.n_local_kv_heads, self.head_dim)',
  ],
  norm: ['xq, xk = self.q_norm(xq), self.k_norm(xk)', 'cos, sin = position_embeddings', 'xq, xk = apply_rotary_pos_emb(xq, xk, cos, sin)'],
  gqa: [
    'xq, xk, xv = (',
    '    xq.transpose(1, 2),',
    '    repeat_kv(xk, self.n_rep).transpose(1, 2),',
    '    repeat_kv(xv, self.n_rep).transpose(1, 2)',
    ')',
  ],
  scores: [
    'scores = (xq @ xk.transpose(-2, -1)) / math.sqrt(self.head_dim)',
    'scores[:, :, :, -seq_len:] += torch.full((seq_len, seq_len), float("-inf")).triu(1)',
    'output = F.softmax(scores.float(), dim=-1).type_as(xq) @ xv',
    'output = output.transpose(1, 2).reshape(bsz, seq_len, -1)',
    'output = self.resid_dropout(self.o_proj(output))',
  ],
};

// The induction head on the lesson sentence typed twice, at its second copy's row 3 and that row's largest weight.
const INDUCTION_CELL = {
  ...LESSON,
  text: 'lesson-twice',
  layer: { role: 'induction' },
  head: { role: 'induction' },
  row: { second: 3 },
  cell: { query: { second: 3 }, key: 'top' },
};

const LAB = { model: 'lab-a', text: 'lesson', layer: 0, head: 1, row: 'last' };

export const CHAPTERS = [
  {
    slug: 'tokens',
    steps: [
      { state: { ...LESSON, row: null }, point: 'chips', say: 'tokens.split' },
      lessonSays('heatmap', 'tokens.rows'),
      lessonExercise('chips', 'tokens-count'),
    ],
  },
  {
    slug: 'scores',
    steps: [
      { state: { ...LESSON, stage: 'scores_raw' }, point: 'heatmap', say: 'scores.raw' },
      { state: { ...LESSON, stage: 'scores_scaled' }, point: 'heatmap', say: 'scores.scaled' },
      { state: { ...LESSON, stage: 'scores_masked' }, point: 'heatmap', say: 'scores.masked' },
      { state: { ...LESSON, stage: 'attn_weights' }, point: 'heatmap', say: 'scores.softmax' },
      { state: { ...LESSON, stage: 'scores_raw' }, point: 'heatmap', exercise: 'scores-top' },
    ],
  },
  {
    slug: 'mask',
    steps: [
      { state: { ...LESSON, causal: false }, point: 'prediction-box', say: 'mask.off' },
      lessonSays('prediction-box', 'mask.on'),
      { state: { ...LESSON, causal: false, row: { token: ['明', '小明'] } }, point: 'heatmap', exercise: 'mask-cheat' },
    ],
  },
  {
    slug: 'scale',
    steps: [
      { state: { ...LESSON, scale: false }, point: 'heatmap', say: 'scale.off' },
      lessonSays('heatmap', 'scale.on'),
      { state: { ...LESSON, scale: false }, point: 'heatmap', exercise: 'scale-sharper' },
    ],
  },
  {
    slug: 'forward',
    steps: [
      { state: LAB, point: 'view-title', say: 'forward.proj', code: CODE.proj },
      { state: LAB, point: 'view-title', say: 'forward.norm', code: CODE.norm },
      { state: LAB, point: 'overview', say: 'forward.gqa', code: CODE.gqa },
      { state: LAB, point: 'heatmap', say: 'forward.scores', code: CODE.scores },
      { state: LAB, point: 'overview', exercise: 'forward-gqa' },
    ],
  },
  {
    slug: 'heads',
    steps: [
      lessonSays('head-note', 'heads.role'),
      {
        state: { ...LESSON, layer: { role: 'previous-token' }, head: { role: 'previous-token' }, row: 'last' },
        point: 'head-note',
        say: 'heads.role',
      },
      {
        state: { ...LESSON, text: 'lesson-twice', layer: { role: 'induction' }, head: { role: 'induction' }, row: { second: 3 } },
        point: 'head-note',
        say: 'heads.role',
      },
      { state: { ...LESSON, layer: { role: 'sink' }, head: { role: 'sink' }, row: 'last' }, point: 'head-note', say: 'heads.role' },
      { state: { ...LESSON, layer: 0, head: 0 }, point: 'overview', exercise: 'pronoun-head' },
      lessonExercise('chips', 'other-name'),
    ],
  },
  {
    slug: 'switch-off',
    steps: [
      { state: { ...LESSON, ablate: 'pronoun-heads' }, point: 'prediction-box', say: 'switchoff.off' },
      lessonExercise('overview', 'switch-off'),
    ],
  },
  {
    slug: 'why',
    steps: [
      lessonSays('#why .why-lens', 'why.lens'),
      lessonSays('#why .why-attribution', 'why.attribution'),
      lessonSays('#why .why-patch', 'why.patch'),
      lessonExercise('why', 'lens-block'),
    ],
  },
  {
    slug: 'weight',
    steps: [
      { state: { ...LESSON, cell: { query: 'pronoun', key: 'top' } }, point: 'qk', say: 'weight.cell' },
      // Block 0 reads only the embeddings; a head of a later block shows the
      // earlier heads that wrote its keys (the induction head's come from the
      // previous-token head), so the exercise asks there.
      { state: INDUCTION_CELL, point: 'qk', say: 'weight.cell' },
      { state: INDUCTION_CELL, point: 'qk', exercise: 'weight-source' },
    ],
  },
  {
    // The circuit of the lesson's pair (web/panels/circuit_panel.mjs); the
    // exercise asks which of EAP's top edges path patching finds strongest.
    slug: 'circuit',
    steps: [
      lessonSays('#circuit .circuit-graph-box', 'circuit.graph'),
      lessonSays('#circuit .circuit-slider', 'circuit.slider'),
      lessonExercise('#circuit .circuit-graph-box', 'circuit-edge'),
    ],
  },
  {
    slug: 'train',
    steps: [
      { state: { ...LESSON, row: null, panel: 'train' }, point: 'train', say: 'train.panel' },
      { state: { ...LESSON, row: null, panel: 'train' }, point: 'train', exercise: 'train-setting' },
    ],
  },
];

/** Every step of the tour, in order: {chapter: slug, index (0-based over the tour), first (of its chapter), ...step}. */
export const STEPS = CHAPTERS.flatMap((chapter) =>
  chapter.steps.map((step, k) => ({ ...step, chapter: chapter.slug, first: k === 0 })),
).map((step, index) => ({ ...step, index }));

/** The 0-based indexes [first, last] of a chapter's steps, or null. */
export function chapterRange(slug) {
  const indexes = STEPS.filter((step) => step.chapter === slug).map((step) => step.index);
  return indexes.length ? [indexes[0], indexes.at(-1)] : null;
}
