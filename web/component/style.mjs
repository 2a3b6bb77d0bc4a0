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
.frame > .note {
  margin: 0;
  padding: 3px 6px;
  font-size: 12px;
  color: #3d3d3d;
  background: #fff6e0;
  border-left: 3px solid #e0a800;
}
.frame > .note[hidden] {
  display: none;
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
.status .details {
  font-weight: 400;
  font-size: 12px;
  color: #5b5b5b;
}
.status .details .raw {
  white-space: pre-wrap;
  overflow-wrap: anywhere;
  margin: 2px 0 0;
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
/* Lesson views: one numbered table per step, side by side while they fit. */
.panels-row {
  display: flex;
  flex-wrap: wrap;
  gap: 10px 18px;
  align-items: flex-start;
}
.panel {
  display: table; /* as wide as its table: the caption wraps instead of widening it */
  margin: 0;
}
.panel figcaption {
  display: table-caption;
  padding-bottom: 3px;
}
.shape {
  font: 11px ui-monospace, monospace;
  color: #5b5b5b;
}
.panel .note {
  display: block;
  font-size: 12px;
  color: #5b5b5b;
}
table.heat,
table.record {
  margin: 0;
}
table.heat td {
  min-width: 3em;
}
thead th,
tbody th {
  background: #f4f4f4;
}
th.corner {
  font-weight: 400;
  color: #5b5b5b;
}
/* −∞ and the masked future: hatched as in the heatmap, never a colour of the scale. */
table.heat td[data-masked] {
  color: #333;
  background: repeating-linear-gradient(135deg, #e4e4e4 0 5px, #c8c8c8 5px 6px);
}
.record-column {
  /* As wide as the record when it fits: the matrix goes beside it, or below. */
  flex: 0 1 auto;
  max-width: 100%;
  min-width: 0;
}
.record-box {
  max-width: 100%;
  overflow-x: auto;
}
/* The sides of a scrolling record with more to see fade (scroll_cue.mjs). */
.record-box[data-overflow='right'] {
  -webkit-mask-image: linear-gradient(to right, #000 calc(100% - 2.5rem), transparent);
  mask-image: linear-gradient(to right, #000 calc(100% - 2.5rem), transparent);
}
.record-box[data-overflow='left'] {
  -webkit-mask-image: linear-gradient(to left, #000 calc(100% - 2.5rem), transparent);
  mask-image: linear-gradient(to left, #000 calc(100% - 2.5rem), transparent);
}
.record-box[data-overflow='left right'] {
  -webkit-mask-image: linear-gradient(to right, transparent, #000 2.5rem, #000 calc(100% - 2.5rem), transparent);
  mask-image: linear-gradient(to right, transparent, #000 2.5rem, #000 calc(100% - 2.5rem), transparent);
}
.scroll-hint {
  margin: 0.3rem 0 0.1rem;
  font-size: 0.8rem;
  color: #555;
}
.scroll-hint[hidden] {
  display: none;
}
table.record th,
table.record td {
  text-align: left;
  white-space: normal;
}
table.record .match {
  white-space: nowrap;
}
table.record .code {
  font-family: ui-monospace, monospace;
  white-space: pre;
}
table.record .meaning {
  min-width: 12em;
  color: #5b5b5b;
}
.match.same {
  color: #1b7a3a;
}
.match.differs {
  color: #b00020;
  font-weight: 600;
}
.lesson-note {
  margin: 6px 0 0;
  max-width: 60em;
  font-size: 12px;
  color: #5b5b5b;
}
[hidden] {
  display: none !important;
}
`;
