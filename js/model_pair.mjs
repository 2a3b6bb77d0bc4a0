// A model and its tokenizer, built as one unit, for whoever holds a model in
// use (the page's compute worker, the training worker): either both come
// back, or whatever was built is disposed and the error is thrown. The model
// in use is never touched here, so a load that fails (bad files, a failed
// download, a config the core rejects) leaves it in use; the holder swaps
// only on success (replaceModel).
import { MiniMindError } from './minimind_error.mjs';

/**
 * mm: the loaded module. build(): the new model (mm.createModel or mm.loadModel).
 * tokenizer: a tokenizer.json text, or null. accept(info): throws when the
 * holder cannot use the model (the trainer: dense models only).
 * Returns {model, tokenizer, tokenizerText, info}.
 */
export function buildModelPair(mm, { build, tokenizer = null, accept = () => {} }) {
  let nextTokenizer = null;
  let model = null;
  try {
    nextTokenizer = tokenizer === null ? null : mm.loadTokenizer(tokenizer);
    model = build();
    const info = model.info();
    // Ids past the model's vocabulary would index rows its embedding does not have.
    if (nextTokenizer && nextTokenizer.vocabSize > info.vocab_size) {
      throw new MiniMindError(
        `tokenizer.json has ${nextTokenizer.vocabSize} ids but the model only ${info.vocab_size}: they do not belong together`,
        { kind: 'tokenizer.vocab_mismatch', values: { tokenizer: nextTokenizer.vocabSize, model: info.vocab_size } },
      );
    }
    accept(info);
    return { model, tokenizer: nextTokenizer, tokenizerText: nextTokenizer ? tokenizer : null, info };
  } catch (error) {
    model?.dispose();
    nextTokenizer?.dispose();
    throw error;
  }
}

/**
 * The holder's model in use, {model, tokenizer, tokenizerText} (each null when
 * there is none), replaced by `next` from buildModelPair: the old one is
 * disposed only now that the new one exists. Returns the new holding.
 */
export function replaceModel(current, next) {
  current.model?.dispose();
  current.tokenizer?.dispose();
  return { model: next.model, tokenizer: next.tokenizer, tokenizerText: next.tokenizerText };
}
