// Compiled with `tsc --noEmit --strict` in npm test: the hand-written
// declarations in js/minimind.d.ts must describe the API as the tests use it.
import { chatPrompt } from '../../js/chat_template.mjs';
import {
  errorFields,
  loadMiniMind,
  MiniMindError,
  type AttributeResult,
  type CircuitResult,
  type ErrorProblem,
  type ForwardResult,
  type GenerationStep,
  type InferredConfig,
  type LensResult,
  type ModelInfo,
  type PatchResult,
  type LayerKeyComposition,
  type QKResult,
  type TimelineEntry,
  type TrainStep,
} from '../../js/minimind.mjs';

async function usage(): Promise<number> {
  const mm = await loadMiniMind({ variant: 'simd' });
  const threaded = await loadMiniMind({ variant: 'threads', threads: 2 });
  const threadCount: number = threaded.threads;
  void threadCount;
  const model = mm.createModel({ preset: 'lab-a', seed: 0 });
  const info: ModelInfo = model.info();
  const result: ForwardResult = model.forward([3, 4, 5], { trace: { layers: [0], stages: ['attn_weights'] }, causalMask: true });
  const weights = result.trace.get(0, 'attn_weights');
  const generator = model.generator([3, 4], { greedy: true }, { prefillTrace: true });
  const step: GenerationStep = generator.step({ trace: { layers: 'all', stages: ['attn_weights'] } });
  const cacheBytes: number = generator.cache.bytes;
  generator.dispose();
  const trainer = model.trainer({ data: [[1, 5, 6, 2]], maxSeqLen: 8, order: 'file' });
  const trainStep: TrainStep = trainer.step();
  const gradients = trainer.lossAndGradients([0]).gradients.length;
  const memory: number = trainer.info().memory.total;
  trainer.dispose();
  const tokenizer = mm.loadTokenizer('{}');
  const entries: TimelineEntry[] = [];
  const timed = model.trainer({ data: [[1, 5, 6, 2]], maxSeqLen: 8, tokenizer, snapshotEvery: 2, onSnapshot: (e) => entries.push(e) });
  timed.step();
  const entryParts: number =
    (entries[0]?.icl ?? 0) +
    (entries[0]?.heads.L0H0.sink ?? 0) +
    (entries[0]?.composition.L1H0?.L0H0 ?? 0) +
    (entries[0]?.attention?.[0] ?? 0);
  void entryParts;
  const composition: LayerKeyComposition[] = model.keyComposition({ ids: [3, 4, 5, 3, 4], cells: [[3, 1]], ablate: [[0, 1]] });
  const compositionParts: number = composition[0].heads[0].gap + composition[0].heads[0].parts[0];
  void compositionParts;
  const losses: Float32Array[] = model.tokenLosses([[3, 4, 5]]);
  void losses;
  const lens: LensResult = model.lens([3, 4, 5], { top: 3, token: 7, causalMask: true, ablate: [[0, 1]] });
  const patched: PatchResult = model.patch({ clean: [3, 4, 5], corrupt: [3, 6, 5], answer: 7, wrong: 8, ablate: [[1, 0]] });
  const dla: AttributeResult = model.attribute([3, 4, 5], { position: 2, answer: 7, wrong: 8, scaleScores: false, ablate: [] });
  const qk: QKResult = model.qk({ ids: [3, 4, 5], layer: 0, head: 1, query: 2, key: 1, versus: 'mean', rankKeys: 3 });
  const qkParts: number = qk.table[0][0] + qk.ropePairs[0] + (qk.versus?.score ?? 0) + (qk.ranked?.[0].score ?? 0);
  void qkParts;
  const circuit: CircuitResult = model.circuit({
    clean: [3, 4, 5],
    corrupt: [3, 6, 5],
    answer: 7,
    wrong: 8,
    top: 10,
    positions: true,
    rank: 'patched',
    ablate: [[0, 1]],
  });
  const circuitParts: number =
    circuit.metric.clean +
    circuit.edges[0].score +
    (circuit.edges[0].patched ?? 0) +
    (circuit.edges[0].positions?.[0] ?? 0) +
    (circuit.faithfulness?.[0].share ?? 0) +
    (circuit.curves?.eap[0].metric ?? 0);
  const circuitNames: string = circuit.edges[0].from + circuit.edges[0].to + circuit.senders[0] + circuit.receivers[0] + circuit.rank;
  void circuitParts;
  void circuitNames;
  const interp: number =
    lens.lens[0][0][0].p +
    (lens.token?.p[0][0] ?? 0) +
    (patched.restoration?.heads?.[0][0] ?? patched.heads?.[0][0] ?? 0) +
    dla.heads[0][0] +
    dla.ffn[0];
  void interp;
  const file: Uint8Array = model.safetensors({ dtype: 'F16' });
  model.dispose();
  const problems: string[] = mm.configProblems({ hidden_size: 64 });
  const typed: ErrorProblem[] = mm.configProblemsTyped({ hidden_size: 64 });
  void typed[0]?.values;
  const warnings: string[] = [...mm.configWarnings({ hidden_size: 64 }), ...(info.warnings ?? [])];
  const inferred: InferredConfig = mm.inferConfig(new Uint8Array(0), { numKeyValueHeads: 2, normTopkProb: true }, { name: 'a.pth' });
  const prompt: string = chatPrompt('你好') + chatPrompt([{ role: 'user', content: 'hi' }], { thinking: true, generation: 3 });
  const loaded = mm.loadModel({ weights: new Uint8Array(0), hints: { inferenceRopeScaling: false }, name: 'model.pth' });
  const assumed: string[] = loaded.info().inferred?.assumed ?? inferred.assumed;
  return (
    info.derived.head_dim +
    (weights?.shape[0] ?? 0) +
    step.token +
    cacheBytes +
    problems.length +
    warnings.length +
    prompt.length +
    assumed.length +
    mm.stages.length +
    trainStep.loss +
    (trainStep.gradNorm ?? 0) +
    gradients +
    memory +
    file.length
  );
}

// What the core rejects: one error type with a kind and named values.
function described(error: unknown): string {
  if (error instanceof MiniMindError) {
    const limit: number | string | undefined = error.values.limit;
    return `${error.kind} ${String(limit)} ${error.problems?.map((p) => p.kind).join() ?? ''} ${error.message}`;
  }
  return errorFields(error).message;
}

void usage;
void described;
