// Type declarations of the MiniMind Playground JS API (js/minimind.mjs).
// Written by hand: Emscripten 3.1.6 does not generate them.

/** A float32 tensor, row-major. */
/** A value of an error: a count, an id, a size, a name. */
export type ErrorValue = number | string;

/** One problem of a config: the same parts as a MiniMindError; kind "" when the core names none. */
export interface ErrorProblem {
  kind: string;
  values: Record<string, ErrorValue>;
  message: string;
}

/**
 * What the core rejects: a stable kind ("safetensors.header_too_long",
 * "config.invalid", "token_id.out_of_range", ...), the values the message is
 * made of, and the English message.
 */
export class MiniMindError extends Error {
  constructor(message: string, options?: { kind?: string; values?: Record<string, ErrorValue>; problems?: ErrorProblem[] });
  readonly name: 'MiniMindError';
  kind: string;
  values: Record<string, ErrorValue>;
  /** A config's problems (kind "config.invalid"). */
  problems?: ErrorProblem[];
}

/** An error as plain data, for postMessage. */
export function errorFields(error: unknown): {
  message: string;
  kind: string;
  values: Record<string, ErrorValue>;
  problems?: ErrorProblem[];
};

export interface Tensor {
  shape: number[];
  data: Float32Array;
}

/** One traced stage of one layer (layer -1: model-level stages). Batch-first shapes. */
export interface TraceEntry extends Tensor {
  layer: number;
  stage: StageName;
}

/** The trace entries, with a lookup by layer and stage. */
export interface TraceResult extends Array<TraceEntry> {
  get(layer: number, stage: StageName): TraceEntry | undefined;
}

export type StageName =
  | 'block_input'
  | 'attn_norm'
  | 'q_proj'
  | 'k_proj'
  | 'v_proj'
  | 'q_norm'
  | 'k_norm'
  | 'q_rope'
  | 'k_rope'
  | 'scores_raw'
  | 'scores_scaled'
  | 'scores_masked'
  | 'attn_weights'
  | 'head_outputs'
  | 'attn_concat'
  | 'o_proj'
  | 'attn_residual'
  | 'ffn_norm'
  | 'ffn_gate'
  | 'ffn_up'
  | 'ffn_act'
  | 'ffn_down'
  | 'router_probs'
  | 'router_experts'
  | 'router_weights'
  | 'block_output'
  | 'final_norm'
  | 'logits';

export type PresetName = 'lab-a' | 'lab-b' | 'minimind2-small' | 'minimind2' | 'minimind2-moe' | 'minimind-3' | 'minimind-3-moe';

/** Which intermediates to capture: true = every stage of every layer. */
export type TraceRequest =
  | boolean
  | {
      /** Layer indices, or 'all' (the default). */
      layers?: number[] | 'all';
      /** Stage names; all stages when omitted. */
      stages?: StageName[];
      /** Bound on the floats kept (default 64 Mi); a larger trace throws. */
      maxFloats?: number;
    };

export interface ForwardOptions {
  trace?: TraceRequest;
  /** [B][T] (or [T] for one sequence): 1 real token, 0 padding (adds -1e9 to its scores). */
  attentionMask?: ArrayLike<number> | ArrayLike<number>[];
  /** false: no causal mask, the future leaks into every row. Default true. */
  causalMask?: boolean;
  /** false: no ÷√head_dim, softmax turns winner-takes-all. Default true. */
  scaleScores?: boolean;
  /** Head ablation: these heads' outputs are zeroed before o_proj (their attention is still traced). */
  ablate?: [number, number][];
}

export interface ForwardResult {
  /** [B, T, V]; row t predicts token t + 1. */
  logits: Tensor;
  trace: TraceResult;
}

/** The switches of the interpretability tools: MiniMind runs with both on and every head on (the default). */
export interface InterpSwitches {
  causalMask?: boolean;
  scaleScores?: boolean;
  /** Heads switched off, [layer, head], as forward() takes them: their z is zeroed before o_proj. */
  ablate?: [number, number][];
}

export interface LensOptions extends InterpSwitches {
  /** Tokens kept per layer and position, most probable first. Default 5. */
  top?: number;
  /** A token whose probability is reported at every layer and position. */
  token?: number;
}

export interface LensResult {
  /** The rows' names: 'embed' (the embedding's output), then 'L0'..'L{L-1}' (the output of block b, blocks from 0). */
  residuals: string[];
  /** [L + 1][position] of the top tokens, rows as `residuals` names them: row 0 the embedding's, row b + 1 block b's. */
  lens: { id: number; p: number }[][][];
  /** With options.token: its probability, [L + 1][position]. */
  token?: { id: number; p: number[][] };
}

export interface PatchRequest extends InterpSwitches {
  /** Token ids of the clean and the corrupt run: the same length. */
  clean: ArrayLike<number>;
  corrupt: ArrayLike<number>;
  /** The metric is logit(answer) - logit(wrong) at the last position. */
  answer: number;
  wrong: number;
  /** false: skip the sweep over heads (result null). Default true. */
  heads?: boolean;
  /** false: skip the sweep over residual layers and positions (result null). Default true. */
  residual?: boolean;
}

export interface PatchResult {
  metric: { clean: number; corrupt: number };
  /** [L][H]: the metric with head (l, h)'s output (before o_proj, every position) from the clean run; null for a head switched off. */
  heads: (number | null)[][] | null;
  /** The residual rows' names: 'embed', then 'L0'..'L{L-1}' (blocks from 0). */
  residuals: string[];
  /** [L + 1][T]: the metric with residual row r (as `residuals` names it) at position t from the clean run. */
  residual: number[][] | null;
  /** The same as (patched - corrupt) / (clean - corrupt); null when clean and corrupt tie. */
  restoration: { heads: (number | null)[][] | null; residual: number[][] | null } | null;
}

export interface CircuitRequest {
  /** Token ids of the clean and the corrupt run: the same length. */
  clean: ArrayLike<number>;
  corrupt: ArrayLike<number>;
  /** The metric is logit(answer) - logit(wrong) at the last position. */
  answer: number;
  wrong: number;
  /** Path-patch only the `top` edges of largest |score| (the others get patched null). Default: every edge. */
  top?: number;
  /** Split each edge's score by position (edge.positions, [T]). Default false. */
  positions?: boolean;
  /** The order of `edges` and the curve in `faithfulness`: by |score| ('eap', default) or by |patched - clean|. */
  rank?: 'eap' | 'patched';
  /** false: skip both faithfulness curves (null). Default true. */
  faithfulness?: boolean;
  /** Heads switched off ([layer, head] pairs, as forward() takes them) in every run: their edges score 0. */
  ablate?: [number, number][];
}

export interface CircuitEdge {
  /** Sender: "embed", "L{k}H{h}" (head h's write through its o_proj columns) or "L{k}ffn". */
  from: string;
  /** Receiver: "L{l}H{h}.q" / ".k" / ".v", "L{l}ffn" or "logits". */
  to: string;
  /** Edge attribution patching: Σ_t (corrupt - clean output)[t] · ∂metric/∂(receiver input)[t], at the clean run. */
  score: number;
  /** Path patching: the clean run's metric with only this receiver's input given the sender's corrupt output; null outside top. */
  patched: number | null;
  /** With positions: the score split by position, [T] (they sum to score). */
  positions?: number[];
}

export interface FaithfulnessPoint {
  /** N: the circuit is the top N edges (0, 1, 2, 5, 10, ... and every edge). */
  edges: number;
  /** (metric - corrupt) / (clean - corrupt) of the circuit's run; null where clean = corrupt. */
  share: number | null;
  metric: number;
}

export interface CircuitResult {
  metric: { clean: number; corrupt: number };
  /** Every edge, strongest first by `rank`. */
  edges: CircuitEdge[];
  /** The curve of the requested rank; null with faithfulness false. */
  faithfulness: FaithfulnessPoint[] | null;
  curves: { eap: FaithfulnessPoint[]; patched: FaithfulnessPoint[] } | null;
  rank: 'eap' | 'patched';
  senders: string[];
  receivers: string[];
}

export interface AttributeOptions extends InterpSwitches {
  /** Default: the last position. */
  position?: number;
  answer: number;
  wrong: number;
}

/** Shares of logit(answer) - logit(wrong), the final norm's scale held fixed: they sum to total. */
export interface AttributeResult {
  position: number;
  total: number;
  embedding: number;
  /** [L][H]; 0 for a head switched off. */
  heads: number[][];
  /** [L]: each block's FFN (an MoE layer's as a whole). */
  ffn: number[];
}

export interface QKOptions extends InterpSwitches {
  ids: ArrayLike<number>;
  /** Block, from 0. */
  layer: number;
  head: number;
  /** Positions index the ids as given. */
  query: number;
  key: number;
  /** Contrast with another key position, or the row's attention-weighted mean. */
  versus?: number | 'mean';
  /** Block 0 only: the vocabulary ids whose key at `key` scores highest. */
  rankKeys?: number;
}

export interface KeyCompositionOptions extends InterpSwitches {
  ids: ArrayLike<number>;
  /** [query, key] positions of the ids as given: key ≤ query, query ≥ 1. */
  cells: Array<[number, number]>;
}

/** One block's heads: each head's gap (score on the cell's key minus the mean of the row's other keys) split by key-side writer. */
export interface LayerKeyComposition {
  /** Block, from 1. */
  layer: number;
  /** embed, L{k}H{h}, L{k}ffn for the earlier blocks. */
  components: string[];
  heads: Array<{ head: number; gap: number; parts: number[] }>;
}

/**
 * One attention score split into [q-side component][k-side component] at the
 * run's frozen norm scales: a linearisation, not the effect of removing a
 * component. The table sums to score.
 */
export interface QKResult {
  layer: number;
  head: number;
  query: number;
  key: number;
  /** After q/k norm and RoPE (÷√Dh unless scaleScores is false), before mask and softmax. */
  score: number;
  /** The softmax weight of (query, key) in the run. */
  weight: number;
  /** The key is after the query under the causal mask: weight 0, score still given. */
  masked: boolean;
  /** [C]: embed, then L{k}H0 .. L{k}H{H-1}, L{k}ffn for each earlier block. */
  components: string[];
  /** [C][C] */
  table: number[][];
  /** [Dh/2]: the score's part from dims p and p + Dh/2 (RoPE's pair p). */
  ropePairs: number[];
  /** [Dh/2]: the same with RoPE removed (both vectors before rotation). */
  ropePairsUnrotated: number[];
  /** score(query, key) - score(query, versus), split the same way. */
  versus?: { key: number | 'mean'; score: number; table: number[][] };
  /** Best first. */
  ranked?: { id: number; score: number }[];
}

export interface SamplingOptions {
  /** argmax instead of sampling. */
  greedy?: boolean;
  temperature?: number; // default 0.85
  topK?: number; // default 50, 0 = off
  topP?: number; // default 0.85, 1 = off
  repetitionPenalty?: number; // default 1.0
  seed?: number; // default 0
}

/** config.json fields (Hugging Face key names) plus what the core derives. */
export interface ModelInfo {
  hidden_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  num_key_value_heads: number;
  head_dim: number;
  intermediate_size: number;
  vocab_size: number;
  rms_norm_eps: number;
  rope_theta: number;
  max_position_embeddings: number;
  tie_word_embeddings: boolean;
  use_qk_norm: boolean;
  use_moe: boolean;
  generation: 2 | 3;
  derived: {
    head_dim: number;
    n_rep: number;
    q_proj: [number, number];
    k_proj: [number, number];
    v_proj: [number, number];
    o_proj: [number, number];
    intermediate_size: number;
  };
  parameters: number;
  /** Bytes of the weights as float32. */
  weight_bytes: number;
  /** A built model's weights as kept in memory (model.info() only, not describeConfig). */
  stored_weights?: { bytes: number; tensors_by_storage: Partial<Record<'F32' | 'F16' | 'BF16', number>> };
  /**
   * model.info() only: what building or loading noticed, one sentence each (unknown config.json keys;
   * tied embeddings whose file has an lm_head.weight that differs: the model uses lm_head.weight).
   */
  warnings?: string[];
  /** A loaded .pth that is a training checkpoint (MiniMind's *_resume.pth): what it is, which part was read. */
  file?: string;
  /** A .pth loaded without config: the config inferred from its tensors (as mm.inferConfig returns it). */
  inferred?: InferredConfig;
  [key: string]: unknown;
}

/** The config a .pth implies, and which keys were assumed rather than read off the tensors. */
export interface InferredConfig {
  config: Record<string, unknown>;
  fields: { key: string; source: 'inferred' | 'hint' | 'default' }[];
  /** keys taken from hints or MiniMind's defaults */
  assumed: string[];
  /** what the file is, for a training checkpoint */
  file?: string;
}

export interface GenerationStep {
  token: number;
  isEos: boolean;
  /** [V] logits the token was chosen from. */
  logits: Float32Array;
  /** [V] the distribution it was drawn from (after temperature, penalty, top-k, top-p). */
  probabilities: Float32Array;
  /** The new token's forward: attention rows are [1, H, 1, Tk]. */
  trace: TraceResult;
}

export interface CacheInfo {
  tokens: number;
  layers: number;
  /** [tokens, Hkv, head_dim] for k and for v, per layer. */
  shapePerLayer: [number, number, number];
  bytes: number;
}

export class Generator {
  readonly prefillTrace: TraceResult;
  /** Default trace: attention weights of every layer. */
  step(options?: { trace?: TraceRequest }): GenerationStep;
  /** [V] the distribution the next step draws from. */
  nextProbabilities(): Float32Array;
  readonly ids: number[];
  readonly finished: boolean;
  readonly cache: CacheInfo;
  dispose(): void;
}

/** Options of Model.trainer(): MiniMind's train_pretrain.py arguments (its defaults, but 1 epoch). */
export interface TrainerOptions {
  /** MiniMind pretraining JSONL ({"text"} or {"ids"} per line), plain text (format 'text'), or texts / id arrays. */
  data: string | string[] | ArrayLike<number>[];
  /** For string data: 'jsonl' (default) or 'text' (one sample per non-empty line). */
  format?: 'jsonl' | 'text';
  /** Needed when the data holds texts. */
  tokenizer?: Tokenizer;
  /** Default 1. */
  epochs?: number;
  /** Default 32. */
  batchSize?: number;
  /** Every sample padded or cut to this many tokens; default 340. */
  maxSeqLen?: number;
  /** Default 5e-4; the batch's rate follows MiniMind's get_lr cosine. */
  learningRate?: number;
  /** Default 8: the loss is divided by it and the optimizer steps every that many batches. */
  accumulationSteps?: number;
  /** clip_grad_norm_'s max norm; default 1.0. */
  gradClip?: number;
  /** Seeds each epoch's shuffled order (the project's own generator, not torch.randperm); default 42. */
  seed?: number;
  /** 'shuffle' (default) or 'file' (the data's order). */
  order?: 'shuffle' | 'file';
  /**
   * Receives the run's timeline: an entry at batch 0 (on the first step() call, before its batch),
   * after every snapshotEvery batches and after the last. Needs `tokenizer` (MiniMind's) for the probes.
   */
  onSnapshot?: (entry: TimelineEntry) => void;
  /** Batches between timeline entries; default max(1, floor(totalBatches / 100)). */
  snapshotEvery?: number;
  /** The sentence whose attention each entry keeps (read after the bos, cut to 64 tokens); default the lessons' 小明把苹果给了小红，她很开心. */
  probe?: string;
}

/** A head's role scores on the timeline's light probes (scoreHeadRoles). */
export interface HeadRoleScores {
  previousToken: number;
  induction: number;
  pronoun: number;
  /** The attention on the bos. */
  sink: number;
}

/** One moment of a training run (js/timeline.mjs timelineEntry), measured on fixed probes. */
export interface TimelineEntry {
  /** Batches done. */
  step: number;
  /** Token positions trained on so far: batch rows × maxSeqLen. */
  tokens: number;
  /** Mean next-token loss on the held-out sequences (nats). */
  loss: number;
  /** Mean training loss of the batches since the entry before; null at batch 0. */
  trainLoss: number | null;
  /** In-context-learning score: mean loss at the last quarter of positions minus at positions 4-7 (nats). */
  icl: number;
  /** Per head, named L{layer}H{head} (blocks from 0). */
  heads: Record<string, HeadRoleScores>;
  /** Per head of blocks ≥ 1: each earlier head's share of its gap on the induction key, null while the gap is below the threshold. */
  composition: Record<string, Record<string, number> | null>;
  /** Per head of blocks ≥ 1: its score on the induction key minus the mean of the row's other keys (logits of the softmax). */
  gaps: Record<string, number>;
  /** Tokens of the probe sentence. */
  T: number;
  /** The probe's attention, every layer and head, as IEEE half-float bits [L, H, T, T]. */
  attention: Uint16Array | null;
}

export interface TrainStep {
  /** 0-based, as MiniMind counts epochs. */
  epoch: number;
  /** 1-based within the epoch (MiniMind's step). */
  batch: number;
  /** The batch's mean loss before the division by accumulationSteps (what MiniMind logs). */
  loss: number;
  lr: number;
  /** clip_grad_norm_'s value when the optimizer stepped, else null. */
  gradNorm: number | null;
  /** Labelled positions of the batch. */
  tokens: number;
  optimizerStep: boolean;
  optimizerSteps: number;
  ms: number;
}

export interface TrainerInfo {
  samples: number;
  maxSeqLen: number;
  batchesPerEpoch: number;
  totalBatches: number;
  batchesDone: number;
  optimizerSteps: number;
  done: boolean;
  /** Bytes. */
  memory: {
    weights: number;
    gradients: number;
    adam: number;
    activations: number;
    transposedWeights: number;
    modelWeights: number;
    total: number;
  };
}

export interface LossAndGradients {
  loss: number;
  tokens: number;
  gradients: { name: string; shape: number[]; data: Float32Array }[];
  /** The gradients as an F32 safetensors file, keyed by parameter name. */
  safetensors: Uint8Array;
}

/** One parameter's part of a trainer's state, in the trainer's parameter order. */
export interface TrainerParameterState {
  name: string;
  shape: number[];
  /** AdamW's first and second moments, [numel]. */
  expAvg: Float32Array;
  expAvgSq: Float32Array;
  /** The gradient summed since the last optimizer step, or null when none is pending. */
  grad: Float32Array | null;
}

/** What continuing a run needs beside the model's weights (Trainer.state, Trainer.restore). */
export interface TrainerState {
  /** 0-based; the number of epochs once the run is done. */
  epoch: number;
  /** Batches done in `epoch` (MiniMind's step). */
  batch: number;
  /** torch's state['step'], the same for every parameter. */
  optimizerSteps: number;
  parameters: TrainerParameterState[];
}

/** mm.trainingState(): a resume checkpoint's counters and AdamW's state_dict(). */
export interface TrainingCheckpointState {
  epoch: number | null;
  step: number | null;
  worldSize: number | null;
  optimizer: null | {
    groups: { lr: number; betas: [number, number]; eps: number; weightDecay: number; amsgrad: boolean; params: number[] }[];
    /** index: the parameter's place in MiniMind's model.parameters(). */
    state: { index: number; step: number; shape: number[]; expAvg: Float32Array; expAvgSq: Float32Array }[];
  };
  /** Why an "optimizer" entry could not be read, or null. */
  optimizerProblem: string | null;
}

export class Trainer {
  info(): TrainerInfo;
  readonly done: boolean;
  /** The parameters trained, in the order state() lists them (not MiniMind's model.parameters() order). */
  parameters(): { name: string; shape: number[] }[];
  /** The optimizer's state, the position and any pending gradient (copies). */
  state(): TrainerState;
  /** Continues a saved run: state() of a trainer over the same weights, data and options. */
  restore(state: TrainerState): void;
  /** Runs the next batch; each optimizer step is written into the model. */
  step(): TrainStep;
  /** Loss and gradients of the given samples (indices into the data) as one batch; training state untouched. */
  lossAndGradients(samples: ArrayLike<number>): LossAndGradients;
  /** Frees the trainer; the model stays. */
  dispose(): void;
}

export class Model {
  info(): ModelInfo;
  forward(ids: ArrayLike<number> | ArrayLike<number>[], options?: ForwardOptions): ForwardResult;
  generator(prompt: ArrayLike<number>, sampling?: SamplingOptions, options?: { prefillTrace?: TraceRequest }): Generator;
  /** Per layer and head ([L][H]): the mean attention weight each probe's query puts on its keys. */
  attentionMass(probes: { ids: ArrayLike<number>; query: number; keys: number[] }[], options?: { ablate?: [number, number][] }): number[][];
  /** Per layer and head ([L][H]): the mean entropy in nats of the attention rows (rows after the first). */
  attentionEntropy(sequences: ArrayLike<number>[]): number[][];
  /** Next-token loss at every position of each sequence (NaN at position 0), one Float32Array per sequence. */
  tokenLosses(sequences: ArrayLike<number>[]): Float32Array[];
  /** MiniMind's pretraining loop over this model; forward, trace and generation see each optimizer step. */
  trainer(options: TrainerOptions): Trainer;
  /** model.safetensors bytes with MiniMind's tensor names (tied: both embedding keys). */
  safetensors(options?: { dtype?: 'F32' | 'F16' }): Uint8Array;
  /** The logit lens: every residual read through the final norm and lm_head. */
  lens(ids: ArrayLike<number>, options?: LensOptions): LensResult;
  /** Activation patching from the clean run into the corrupt one. */
  patch(request: PatchRequest): PatchResult;
  /** Direct logit attribution at one position. */
  attribute(ids: ArrayLike<number>, options: AttributeOptions): AttributeResult;
  /** QK attribution of one attention score (the last run is kept for the next cell of the same text). */
  qk(options: QKOptions): QKResult;
  keyComposition(options: KeyCompositionOptions): LayerKeyComposition[];
  /** The circuit behind logit(answer) - logit(wrong): every edge scored (EAP), path-patched, and the faithfulness curves. */
  circuit(request: CircuitRequest): CircuitResult;
  /** config.json text with MiniMind's key names. */
  configJson(): string;
  /** Frees the Wasm memory of the model; generators made from it stay usable. */
  dispose(): void;
}

export interface LessonAttention {
  raw: { shape: [number, number]; data: Float32Array };
  scaled: { shape: [number, number]; data: Float32Array };
  masked: { shape: [number, number]; data: Float32Array };
  weights: { shape: [number, number]; data: Float32Array };
  output?: { shape: [number, number]; data: Float32Array };
}

/** What tensor shapes cannot tell about a .pth. */
export interface InferHints {
  /** default 8 (needed for generation-2 checkpoints, which have no q_norm to give head_dim) */
  numAttentionHeads?: number;
  /** generation 2: gives head_dim from k_proj instead, and so the heads */
  numKeyValueHeads?: number;
  /** default 1e6 */
  ropeTheta?: number;
  /** default 1e-6 (generation 3) or 1e-5 (generation 2) */
  rmsNormEps?: number;
  /** default 32768 */
  maxPositionEmbeddings?: number;
  /** YaRN; default false */
  inferenceRopeScaling?: boolean;
  /** MoE top-k; default 1 (generation 3) or 2 (generation 2) */
  numExpertsPerTok?: number;
  /** MoE; default true */
  normTopkProb?: boolean;
}

export interface TokenDisplay {
  /** readable text; bytes of an incomplete character as <0xE4><0xBD> */
  text: string;
  partial: boolean;
  special: boolean;
  /** tokens sharing a character have the same group */
  group: number;
  groupText: string;
}

export class Tokenizer {
  readonly vocabSize: number;
  encode(text: string): number[];
  decode(ids: ArrayLike<number>, options?: { skipSpecialTokens?: boolean }): string;
  display(ids: ArrayLike<number>): TokenDisplay[];
  tokenToId(token: string): number;
  dispose(): void;
}

export class MiniMind {
  /** Bytes of Wasm memory the module holds now (it grows as needed and never shrinks). */
  wasmMemoryBytes(): number;
  /** Bytes the module's allocator hands out now (falls back when memory is freed; for leak tests). */
  heapBytesInUse(): number;
  readonly variant: 'simd' | 'relaxed' | 'scalar' | 'threads' | 'relaxed-threads';
  /** Threads the module computes with (1 unless a threads variant); the same numbers for any count. */
  readonly threads: number;
  readonly stages: StageName[];
  /** Every error kind the core can raise (core/util/error_kinds.h), sorted. */
  readonly errorKinds: string[];
  presets(): PresetName[];
  presetConfig(name: PresetName | string): Record<string, unknown>;
  /** Every problem of the config, one sentence each; [] when usable. */
  configProblems(config: string | Record<string, unknown>): string[];
  /** configProblems typed: each problem's kind and values (to word it in any language) with that sentence as message. */
  configProblemsTyped(config: string | Record<string, unknown>): ErrorProblem[];
  /** The keys of a usable config that MiniMind does not read (ignored), one sentence each. */
  configWarnings(config: string | Record<string, unknown>): string[];
  labRecord(preset?: 'lab-a' | 'lab-b' | string, seed?: number): string;
  /** Lesson 2.5's attention by hand on typed matrices; masked entries are -Infinity. */
  lessonAttention(input: { q: number[][]; k: number[][]; v?: number[][]; causal?: boolean; scale?: boolean }): LessonAttention;
  lessonSoftmax(scores: number[][], options?: { causal?: boolean }): LessonAttention;
  createModel(spec?: {
    preset?: PresetName | string;
    config?: string | Record<string, unknown>;
    seed?: number;
    /** Called with the fraction of weights initialised (0..1) while a model builds. */
    onProgress?: (fraction: number) => void;
    /**
     * 'narrowest' (default): each weight matrix in the narrowest exact storage, float16 for the seeded
     * weights (half the memory, the same results); 'float32': always float32.
     */
    weightStorage?: 'narrowest' | 'float32';
    /** 'playground' (default: embedding U(-1, 1)) or 'minimind' (MiniMind's from-scratch scale, for training). */
    init?: 'playground' | 'minimind';
  }): Model;
  /** Derived shapes and sizes of a config without building weights; throws its problems. */
  describeConfig(config: string | Record<string, unknown>): ModelInfo;
  /**
   * model.safetensors needs its config; a .pth (a state dict or MiniMind's *_resume.pth) may come without, and
   * its config is inferred with `hints` (info().inferred). `name`: the file's name, for messages.
   */
  loadModel(files: {
    config?: string | Record<string, unknown>;
    weights: Uint8Array | ArrayBuffer;
    hints?: InferHints;
    name?: string;
  }): Model;
  /** The config a .pth implies, and which keys were assumed rather than read off the tensors. */
  inferConfig(weights: Uint8Array | ArrayBuffer, hints?: InferHints, options?: { name?: string }): InferredConfig;
  /** What a training checkpoint (MiniMind's *_resume.pth) holds beside its weights, to continue the run. */
  trainingState(weights: Uint8Array | ArrayBuffer, options?: { name?: string }): TrainingCheckpointState;
  loadTokenizer(tokenizerJson: string | Record<string, unknown>): Tokenizer;
}

/** min(4, ceil(cores / 2)) where Wasm threads can run (Node, a cross-origin isolated page), else 1. */
export function defaultThreadCount(): number;
/** Whether Wasm threads can run here: Node, or a page with SharedArrayBuffer. */
export function threadsAllowed(): boolean;
/** Each build's file name in dist/wasm/, without .mjs / .wasm. */
export const BASE_NAMES: Readonly<Record<'simd' | 'relaxed' | 'scalar' | 'threads' | 'relaxed-threads', string>>;
/** Whether this engine runs relaxed SIMD's fused multiply-add, which the 'relaxed' build needs. */
export function relaxedSimdSupported(): boolean;
/** The build 'auto' loads for that many threads (relaxed: whether the engine has relaxed SIMD). */
export function chooseVariant(threads: number, relaxed?: boolean): 'simd' | 'relaxed' | 'threads' | 'relaxed-threads';

export function loadMiniMind(options?: {
  /**
   * 'auto' (default): 'relaxed' where relaxedSimdSupported(), else 'simd'; their pthreads twins
   * ('relaxed-threads', 'threads') when more than one thread is allowed and asked for.
   */
  variant?: 'auto' | 'simd' | 'relaxed' | 'scalar' | 'threads' | 'relaxed-threads';
  /** 1..16; default defaultThreadCount() for 'auto' and 'threads'. */
  threads?: number;
  /** Where minimind.mjs is; its .wasm is looked up next to it. */
  moduleUrl?: string | URL;
  /** The .wasm bytes, when the caller has them already. */
  wasmBinary?: Uint8Array;
  /** The default export of an Emscripten module the caller imported itself (e.g. a bundled single-file build); nothing is fetched. */
  moduleFactory?: (options: { wasmBinary?: Uint8Array }) => Promise<unknown>;
}): Promise<MiniMind>;
