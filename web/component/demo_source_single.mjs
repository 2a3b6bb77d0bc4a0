// The single-file element's trained model: models/minimind-demo/'s files
// inlined into the bundle (scripts/build_site.mjs resolves the `demo-file:`
// imports), so that a course package with one script file has the default
// model too. Replaces web/demo_source.mjs in that build.
import config from 'demo-file:config.json';
import heads from 'demo-file:heads.json';
import tokenizer from 'demo-file:tokenizer.json';
import weights from 'demo-file:model.safetensors';

/** {config: text, weights: Uint8Array, tokenizer: text, heads: object}, as demo_source.mjs gives them. */
export function demoFiles() {
  return Promise.resolve({ config, weights, tokenizer, heads: JSON.parse(heads) });
}
