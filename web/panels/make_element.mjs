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
