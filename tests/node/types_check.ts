// Compiled with `tsc --noEmit --strict` in npm test: the hand-written
// declarations in js/minimind.d.ts must describe the API as the tests use it.
import { chatPrompt } from '../../js/chat_template.mjs';
import {
  loadMiniMind,
  type ForwardResult,
  type GenerationStep,
  type InferredConfig,
  type ModelInfo,
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
  const file: Uint8Array = model.safetensors({ dtype: 'F16' });
  model.dispose();
  const problems: string[] = mm.configProblems({ hidden_size: 64 });
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

void usage;
