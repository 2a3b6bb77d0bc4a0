// The panels build their DOM with one helper: an element of `tag` with a
// class and attributes, appended to `parent`.

/** A new <tag class="className" ...attributes> appended to parent. */
export function make(tag, className, parent, attributes = {}) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  parent.append(node);
  return node;
}

/** A section's part: <div class="className"> appended to parent, its <h4> title first. [part, title] */
export function makePart(className, parent) {
  const part = make('div', className, parent);
  return [part, make('h4', null, part)];
}
