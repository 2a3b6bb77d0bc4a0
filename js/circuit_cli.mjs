// The CLI's `circuit` command, on the JS API's Model.circuit. cli.mjs hands
// in its model and input helpers, so --clean / --corrupt read as they do for
// `patch` (a text gets the bos at position 0 unless --no-bos).
import { patchPair, tokenName } from './cli_pair.mjs';
import { PRONOUN_PAIR } from './pronoun_pair.mjs';

export const CIRCUIT_USAGE = `  circuit   MODEL (--clean "..." | --clean-ids ...) (--corrupt "..." | --corrupt-ids ...)
            [--no-bos] --answer ID|TEXT --wrong ID|TEXT [--top N] [--positions]
            [--rank eap|patched] [--ablate L:H,...] [--json]
            the circuit behind logit(answer) - logit(wrong) at the last position:
            every edge sender -> receiver (embed, L{k}H{h}, L{k}ffn -> L{l}H{h}.q/.k/.v,
            L{l}ffn, logits; blocks from 0) scored by edge attribution patching and
            checked by path patching (the clean run with only that receiver's input
            given the sender's corrupt output; --top N: only the N largest |score|),
            and the faithfulness of the top-N circuits, (metric - corrupt) /
            (clean - corrupt). --rank: order edges by |score| (default) or
            |patched - clean|; --positions: each score split by position; --ablate:
            every run with those heads switched off (their edges score 0). Without
            inputs and with a tokenizer: ${PRONOUN_PAIR.clean} / ${PRONOUN_PAIR.corrupt}`;

export const CIRCUIT_OPTIONS = {
  rank: { type: 'string' },
  positions: { type: 'boolean' },
};

/** The command, given cli.mjs's helpers: {openModel, openTokenizer, inputTokens, integerOption, ablation, UsageError}. */
export function circuitCommands({ openModel, openTokenizer, inputTokens, integerOption, ablation, UsageError }) {
  async function circuit(mm, values) {
    const rank = values.rank ?? 'eap';
    if (rank !== 'eap' && rank !== 'patched') throw new UsageError(`--rank must be eap or patched, got "${values.rank}"`);
    const ablate = ablation(values);
    const { model, folder } = await openModel(mm, values);
    const tokenizer = await openTokenizer(mm, values, folder);
    try {
      const { clean, corrupt, answer, wrong } = patchPair(values, tokenizer, model, { inputTokens, UsageError });
      const top = values.top === undefined ? undefined : integerOption(values, 'top');
      const r = model.circuit({
        clean: clean.ids,
        corrupt: corrupt.ids,
        answer,
        wrong,
        top,
        positions: Boolean(values.positions),
        rank,
        ...(ablate ? { ablate } : {}),
      });
      if (values.json) {
        const edges = r.edges.map(({ from, to, score, patched, positions }) => ({
          from,
          to,
          score,
          patched,
          ...(positions ? { positions } : {}),
        }));
        const faithfulness = r.faithfulness.map(({ edges: n, share }) => ({ edges: n, share }));
        return console.log(JSON.stringify({ metric: r.metric, edges, faithfulness, ...(ablate ? { ablate } : {}) }));
      }
      printCircuit(r, { clean, corrupt, answer, wrong, tokenizer, rank, ablate });
    } finally {
      tokenizer?.dispose();
      model.dispose();
    }
  }

  function printCircuit(r, { clean, corrupt, answer, wrong, tokenizer, rank, ablate }) {
    const { clean: c, corrupt: k } = r.metric;
    const span = c - k;
    console.log(`clean:   ${clean.labels.join(' ')}\ncorrupt: ${corrupt.labels.join(' ')}`);
    if (ablate?.length) console.log(`heads switched off in every run: ${ablate.map(([l, h]) => `L${l}H${h}`).join(', ')}`);
    console.log(
      `logit(${tokenName(tokenizer, answer)}) - logit(${tokenName(tokenizer, wrong)}) at the last position: clean ${c.toFixed(3)}, corrupt ${k.toFixed(3)}`,
    );
    const shown = Math.min(20, r.edges.length);
    console.log(
      `\n${r.edges.length} edges; the ${shown} strongest by ${rank === 'eap' ? '|score| (edge attribution patching)' : '|patched - clean| (path patching)'}.` +
        "\nEach patches corrupt into clean: patched = the clean metric with only that receiver reading the sender's corrupt output;" +
        '\nlost = (clean - patched) / (clean - corrupt).',
    );
    console.log(
      `  ${'sender'.padEnd(8)} -> ${'receiver'.padEnd(10)} ${'score'.padStart(9)} ${'patched'.padStart(9)} ${'lost'.padStart(7)}`,
    );
    for (const e of r.edges.slice(0, shown)) {
      const patched = e.patched === null ? 'not run'.padStart(9) : e.patched.toFixed(3).padStart(9);
      const lost = e.patched === null || span === 0 ? '–'.padStart(7) : ((c - e.patched) / span).toFixed(2).padStart(7);
      console.log(`  ${e.from.padEnd(8)} -> ${e.to.padEnd(10)} ${e.score.toFixed(3).padStart(9)} ${patched} ${lost}`);
      if (e.positions) console.log(`      by position: ${e.positions.map((v, t) => `${corrupt.labels[t]} ${v.toFixed(3)}`).join(', ')}`);
    }
    if (!r.curves) return;
    console.log('\nfaithfulness of the top-N circuits, (metric - corrupt) / (clean - corrupt):');
    for (const [name, curve] of Object.entries(r.curves)) {
      const cells = curve.map((p) => `${p.edges}: ${p.share === null ? '–' : p.share.toFixed(2)}`).join(', ');
      console.log(`  ranked by ${name === 'eap' ? '|score|' : '|patched - clean|'}: ${cells}`);
    }
  }

  return { circuit };
}
