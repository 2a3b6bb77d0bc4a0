// Next-token candidates as a list, most likely first: "label (#id): p". A
// candidate that is a character's first bytes also shows the character the
// model goes on to make (<0xE5><0x94> → 唱); with heads switched off, each
// also shows its probability with every head on.
export function renderCandidates(list, candidates, t) {
  list.replaceChildren(
    ...candidates.map((c) => {
      const item = document.createElement('li');
      const label = c.whole ? t('predict.whole', { label: c.label, whole: c.whole }) : c.label;
      const p = c.p.toFixed(3);
      // A model without a tokenizer labels a token by its id already.
      const token = label === `#${c.id}` ? label : `${label} (#${c.id})`;
      item.textContent =
        c.pOn === null || c.pOn === undefined ? `${token}: ${p}` : t('predict.withOn', { token, p, pOn: c.pOn.toFixed(3) });
      return item;
    }),
  );
}
