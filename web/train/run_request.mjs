// What a new run asks the training worker for (train_host.mjs's prepare
// message), read from the panel: the settings, the probe sentence and the
// prompts; the model is a new one of the settings' shape or the
// playground's own, fetched from its compute worker.

/** The settings are not usable: message says why, in the page's language. */
export class SettingsProblem extends Error {}

/**
 * settings: the SettingsView; probe: the probe sentence; prompts: the
 * prompts to write on; chosen: a model to start from instead of the
 * settings' (or null); client: the page's ModelClient; store: the page's
 * store; t(key, params). Returns the prepare request (without id and
 * start); throws a SettingsProblem for settings that cannot be used, or the
 * error of fetching the playground's model.
 */
export async function runRequest({ settings, probe, prompts, chosen = null, client, store, t }) {
  const problems = settings.problems();
  if (probe === '') problems.push(t('train.noProbe'));
  if (problems.length) throw new SettingsProblem(problems.join(' '));
  const model = chosen
    ? chosen
    : settings.model.useLoaded
      ? await playgroundModel({ client, store, t, vocab: settings.model.config().vocab_size })
      : { kind: 'new', config: settings.model.config(), seed: settings.model.seed };
  return {
    model,
    data: settings.data.request(),
    pack: settings.data.pack.checked,
    options: settings.options(),
    probe,
    prompts,
    snapshotEvery: settings.snapshotEvery,
  };
}

// The playground's model as files, from the compute worker (it holds the model as trained or loaded).
async function playgroundModel({ client, store, t, vocab }) {
  const s = store.get();
  const files = await client.modelFiles();
  if (!files.tokenizer && s.model.info && s.model.info.vocab_size < vocab)
    throw new Error(t('train.loadedNoTokenizer', { vocab: s.model.info.vocab_size }));
  return { kind: 'files', config: files.config, weights: files.weights, tokenizer: files.tokenizer ?? undefined };
}
