// The page builds its DOM with one helper: an element of `tag` with a class,
// and attributes or a text, appended to `parent` (panels, views, the elements).

/**
 * A new <tag class="className"> appended to parent (when given). content: an
 * object of attributes, or the element's text (a string or a number).
 */
export function make(tag, className, parent, content = {}) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (content !== null && typeof content === 'object') for (const [name, value] of Object.entries(content)) node.setAttribute(name, value);
  else if (content !== null && content !== undefined) node.textContent = content;
  parent?.append(node);
  return node;
}

/** A section's part: <div class="className"> appended to parent, its <h4> title first. [part, title] */
export function makePart(className, parent) {
  const part = make('div', className, parent);
  return [part, make('h4', null, part)];
}
