// The typed tokens as chips, each with its id (rebuilt only when they change).
// Special tokens (MiniMind's bos, <|im_start|>) are marked, with `specialTitle`.
// marks[i], when given, is the title of a chip whose id another word shares
// (hashed ids without a tokenizer): such chips are marked too.
const drawn = new WeakMap(); // list -> the tokens and ids it shows

export function renderChips(list, tokens, ids, special = null, specialTitle = '', marks = null) {
  const key = JSON.stringify([tokens, ids, special, specialTitle, marks]);
  if (drawn.get(list) === key) return;
  drawn.set(list, key);
  list.replaceChildren(
    ...tokens.map((token, i) => {
      const item = document.createElement('li');
      item.className = special?.[i] ? 'chip special' : 'chip';
      if (special?.[i]) item.title = specialTitle;
      const text = document.createElement('span');
      text.className = 'chip-text';
      text.textContent = token;
      const id = document.createElement('span');
      id.className = 'chip-id';
      id.textContent = `#${ids[i]}`;
      item.append(text);
      if (token !== `#${ids[i]}`) item.append(id); // typed ids need no second label
      if (marks?.[i]) {
        item.classList.add('collision');
        item.dataset.collision = String(ids[i]);
        item.title = marks[i];
        const mark = document.createElement('span');
        mark.className = 'chip-collision';
        mark.setAttribute('aria-label', marks[i]);
        mark.textContent = '≡';
        item.append(mark);
      }
      return item;
    }),
  );
}
