// The typed tokens as chips, each with its id.
export function renderChips(list, tokens, ids) {
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
