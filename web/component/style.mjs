// The component's stylesheet, inside its shadow root: the host page's rules
// do not reach in, these do not reach out, and `all: initial` stops the
// inherited ones (font, colour, line height, alignment) at the element.
// A host page can still size and place the element itself (margin, width).
export const STYLE = `
:host {
  all: initial;
  display: block;
  contain: content;
  font: 13px/1.4 system-ui, 'Noto Sans CJK SC', 'PingFang SC', 'Microsoft YaHei', sans-serif;
  color: #1a1a1a;
}
:host([hidden]) {
  display: none;
}
.frame {
  box-sizing: border-box;
  display: flex;
  flex-direction: column;
  gap: 4px;
  width: 100%;
  min-height: 120px;
  margin: 0;
  padding: 8px 10px;
  background: #fff;
  border: 1px solid #d0d0d0;
  border-radius: 6px;
}
.caption {
  display: flex;
  flex-wrap: wrap;
  justify-content: space-between;
  gap: 2px 12px;
  font-weight: 600;
}
.model {
  font-weight: 400;
  color: #5b5b5b;
}
.plot {
  flex: 1 1 auto;
  min-height: 0;
  overflow: auto;
  /* The figure takes the width it is given: a wide table or matrix scrolls
     inside instead of widening the host page's column. */
  width: 0;
  min-width: 100%;
}
.frame.fixed .plot {
  flex-basis: 0;
}
canvas {
  display: block;
  margin: 0 auto;
  cursor: crosshair;
}
.status {
  display: flex;
  align-items: center;
  gap: 8px;
  color: #5b5b5b;
}
.status.error {
  flex-direction: column;
  align-items: flex-start;
  gap: 2px;
  color: #b00020;
  font-weight: 600;
}
.status.error .hint {
  font-weight: 400;
  color: #5b5b5b;
}
progress {
  width: 120px;
}
.footer {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  justify-content: space-between;
  gap: 4px 12px;
  font-size: 12px;
}
.legend {
  display: flex;
  align-items: center;
  gap: 6px;
  min-width: 0;
}
/* The colour bar (180px from the page's legend) narrows before the legend wraps. */
.legend canvas:first-of-type {
  flex: 0 1 auto;
  min-width: 48px;
}
.readout {
  flex: 1 1 auto;
  min-height: 1.4em;
  font-family: ui-monospace, monospace;
  color: #333;
}
a {
  color: #3b4cc0;
  white-space: nowrap;
}
table {
  border-collapse: collapse;
  font-size: 12px;
  font-variant-numeric: tabular-nums;
  margin: 0 auto;
}
th,
td {
  border: 1px solid #d0d0d0;
  padding: 2px 5px;
  text-align: right;
  white-space: pre;
}
td[data-masked] {
  color: #5b5b5b;
  background: #eee;
}
caption {
  text-align: left;
  color: #5b5b5b;
  padding-bottom: 2px;
}
[hidden] {
  display: none !important;
}
`;
