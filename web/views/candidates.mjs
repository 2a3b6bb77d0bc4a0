// Next-token candidates as a list, most likely first: "label (#id): p". A
// candidate that is a character's first bytes is labelled by the character
// the model's own next tokens complete (唱…, js/token_text.mjs), its raw
// bytes in the item's tooltip; with heads switched off, each also shows its
// probability with every head on.
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
      if (c.kind) item.dataset.kind = c.kind;
      if (c.raw && c.raw !== c.label) item.title = c.raw;
      return item;
    }),
  );
}
