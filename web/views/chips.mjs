// The typed tokens as chips, each with its id (rebuilt only when they change).
const drawn = new WeakMap(); // list -> the tokens and ids it shows

export function renderChips(list, tokens, ids) {
  const key = JSON.stringify([tokens, ids]);
  if (drawn.get(list) === key) return;
  drawn.set(list, key);
  list.replaceChildren(
    ...tokens.map((token, i) => {
      const item = document.createElement('li');
      item.className = 'chip';
      const text = document.createElement('span');
      text.className = 'chip-text';
      text.textContent = token;
      const id = document.createElement('span');
      id.className = 'chip-id';
      id.textContent = `#${ids[i]}`;
      item.append(text);
      if (token !== `#${ids[i]}`) item.append(id); // typed ids need no second label
      return item;
    }),
  );
}
