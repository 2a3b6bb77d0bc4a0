// The Train panel's small DOM helpers: an element from a tag, attributes and
// children (data-i18n keys for its text, so applyTranslations fills it), a
// text that changes only when it differs, and a labelled number input.

/** Sets a node's text only when it changed (no layout work for an equal number). */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** An element: attributes as given (class, i18n: a message key, text), then the children. */
export function make(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === 'class') node.className = value;
    else if (key === 'i18n') node.dataset.i18n = value;
    else if (key === 'text') node.textContent = value;
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value === true ? '' : String(value));
  }
  node.append(...children);
  return node;
}

/** A labelled number input with its one-line explanation (keys train.field.NAME, train.help.NAME). */
export function numberField(name, value, limits) {
  const input = make('input', { name, type: 'number', inputmode: 'decimal', value: String(value), ...limits });
  return make(
    'label',
    { class: 'train-field' },
    make('span', { class: 'train-field-name', i18n: `train.field.${name}` }),
    input,
    make('span', { class: 'train-help', i18n: `train.help.${name}` }),
  );
}

/** Fills a <select> with options 0..count-1 (rebuilt only when the count changed) and chooses `value`. */
export function fillSelect(select, count, value) {
  if (select.options.length !== count) select.replaceChildren(...Array.from({ length: count }, (_, k) => new Option(String(k), String(k))));
  select.value = String(value);
}
