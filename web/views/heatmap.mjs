// The [T, T] matrix of one layer, head and stage as a high-DPI canvas
// heatmap: queries are rows, keys are columns, token labels on both axes
// and axis titles (laid out by matrix_layout.mjs, as the exports), masked
// future cells hatched. Hover or focus (arrow keys) a cell to read
// it; click a row or press Enter to select it, and a click on a cell or Enter
// on the focused one also opens "why this weight" for it (onCellSelect). A
// tap (no hover on a phone) reads the cell and selects its row; tapping other cells of the selected
// row reads them without unselecting it, tapping the same cell again does. Labels are drawn with
// fillText, so token text is never parsed as HTML. A redraw reads no
// layout (the container's width comes from a ResizeObserver) and keeps the
// canvas when its size has not changed, so typing redraws within a frame.
import { hatchPattern, textColorOn } from '../colors.mjs';
import { paintCells } from './cells.mjs';
import { cellAtPoint, cellBox, drawLabels, labelFont, labelSummary, matrixLayout } from './matrix_layout.mjs';

export class HeatmapView {
  #canvas;
  #ctx;
  #model = null; // what render() was given
  #layout = null;
  #focus = null; // {i, j}
  #handlers;
  #width; // of the canvas's container's content box, CSS px
  #focusAtPress = null; // the focused cell when the pointer went down (a tap's mousemove moves it)
  #hatch = null;
  #textWidths = new Map(); // size|text -> its width
  #textColors = new Map(); // cell colour -> the colour of its number

  constructor(canvas, handlers) {
    this.#canvas = canvas;
    this.#ctx = canvas.getContext('2d');
    this.#handlers = handlers;
    canvas.tabIndex = 0;
    canvas.addEventListener('mousemove', (e) => this.#setFocus(this.#cellAt(e), false));
    canvas.addEventListener('mouseleave', () => this.#setFocus(null, false));
    canvas.addEventListener('pointerdown', () => {
      this.#focusAtPress = this.#focus;
    });
    canvas.addEventListener('click', (e) => {
      const cell = this.#cellAt(e, true);
      if (!cell) return;
      const inside = this.#cellAt(e);
      if (inside) handlers.onCellSelect?.(inside);
      if (e.pointerType === 'touch' && inside) {
        const before = this.#focusAtPress;
        const again = before && before.i === inside.i && before.j === inside.j;
        this.#setFocus(inside, true);
        if (this.#model?.selectedRow === cell.i && !again) return;
      }
      handlers.onRowSelect?.(cell.i);
    });
    canvas.addEventListener('focus', () => {
      if (!this.#focus && this.#model?.tokens.length) this.#setFocus({ i: 0, j: 0 }, true);
    });
    canvas.addEventListener('blur', () => this.#setFocus(null, true));
    canvas.addEventListener('keydown', (e) => this.#key(e));
    // The container's padding leaves room for the canvas's focus ring (the container scrolls, and clips).
    const container = canvas.parentElement;
    if (container) {
      const style = getComputedStyle(container);
      this.#width = container.clientWidth - (parseFloat(style.paddingLeft) || 0) - (parseFloat(style.paddingRight) || 0);
    } else this.#width = 600;
    if (container && globalThis.ResizeObserver) {
      new ResizeObserver((entries) => {
        const width = Math.floor(entries.at(-1).contentRect.width);
        if (width === this.#width) return;
        this.#width = width;
        if (this.#model) this.#draw();
      }).observe(container);
    }
  }

  /**
   * model: {tokens, values: Float32Array [T·T] of the stage shown, masked(i, j),
   *         scale: {color}, decimals, selectedRow, selectedCell?: {query, key} (outlined, dashed),
   *         titles?: {query, key} (the axis titles)}
   */
  render(model) {
    this.#model = model;
    if (this.#focus && (this.#focus.i >= model.tokens.length || this.#focus.j >= model.tokens.length)) this.#focus = null;
    this.#draw();
  }

  /** The canvas with its labels, for the PNG export. */
  get canvas() {
    return this.#canvas;
  }

  #measureText = (text, size) => {
    const key = `${size}|${text}`;
    let width = this.#textWidths.get(key);
    if (width === undefined) {
      this.#ctx.font = labelFont(size);
      width = this.#ctx.measureText(text).width;
      if (this.#textWidths.size > 4096) this.#textWidths.clear();
      this.#textWidths.set(key, width);
    }
    return width;
  };

  #measure() {
    const { tokens, titles = null } = this.#model;
    const base = { tokens, titles, measure: this.#measureText, width: Math.max(240, this.#width) };
    const layout = matrixLayout(base);
    // A long sentence's matrix fits in most of the window's height (the window's, not a layout read),
    // so that a row near the bottom, the lesson's 她, is in view with the matrix's top.
    const room = (globalThis.innerHeight || 1000) * 0.7 - (layout.top - layout.y);
    if (layout.cell * tokens.length <= room || layout.cell <= 24) return layout;
    return matrixLayout({ ...base, maxCell: Math.max(24, Math.floor(room / Math.max(1, tokens.length))) });
  }

  /** The focused cell's box in the canvas's CSS pixels, or null. */
  cellBox(cell) {
    const layout = this.#layout;
    return layout && cell && cell.i < layout.T && cell.j < layout.T ? cellBox(layout, cell) : null;
  }

  #draw() {
    const model = this.#model;
    const layout = (this.#layout = this.#measure());
    const ratio = globalThis.devicePixelRatio || 1;
    const canvas = this.#canvas;
    const ctx = this.#ctx;
    const width = Math.round(layout.width * ratio);
    const height = Math.round(layout.height * ratio);
    if (canvas.width !== width || canvas.height !== height) {
      // A new size reallocates the canvas: only when the matrix grows or shrinks.
      canvas.width = width;
      canvas.height = height;
      canvas.style.width = `${layout.width}px`;
      canvas.style.height = `${layout.height}px`;
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    const { tokens, values, masked, scale, decimals, selectedRow } = model;
    const T = tokens.length;
    const { cell, left, top } = layout;
    this.#hatch ??= hatchPattern(ctx);
    paintCells(ctx, { T, x: left, y: top, cell, values, masked, color: scale.color, hatch: this.#hatch });
    if (cell >= 34) {
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.font = '11px system-ui, sans-serif';
      for (let i = 0; i < T; i += 1) {
        for (let j = 0; j < T; j += 1) {
          if (masked(i, j)) continue;
          const value = values[i * T + j];
          ctx.fillStyle = this.#textColor(scale.color(value));
          ctx.fillText(value.toFixed(decimals), left + j * cell + cell / 2, top + i * cell + cell / 2);
        }
      }
    }
    // Grid lines, selected row, focused cell.
    ctx.strokeStyle = 'rgba(255,255,255,0.6)';
    ctx.lineWidth = 1;
    for (let k = 0; k <= T; k += 1) {
      ctx.beginPath();
      ctx.moveTo(left + k * cell + 0.5, top);
      ctx.lineTo(left + k * cell + 0.5, top + T * cell);
      ctx.moveTo(left, top + k * cell + 0.5);
      ctx.lineTo(left + T * cell, top + k * cell + 0.5);
      ctx.stroke();
    }
    if (selectedRow !== null && selectedRow < T) {
      ctx.strokeStyle = '#d62728';
      ctx.lineWidth = 2;
      ctx.strokeRect(left + 1, top + selectedRow * cell + 1, T * cell - 2, cell - 2);
    }
    const chosen = model.selectedCell;
    if (chosen && chosen.query < T && chosen.key < T) {
      ctx.setLineDash([4, 3]);
      ctx.strokeStyle = '#d62728';
      ctx.lineWidth = 2;
      ctx.strokeRect(left + chosen.key * cell + 2, top + chosen.query * cell + 2, cell - 4, cell - 4);
      ctx.setLineDash([]);
    }
    if (this.#focus) {
      ctx.strokeStyle = '#000';
      ctx.lineWidth = 3;
      ctx.strokeRect(left + this.#focus.j * cell + 1.5, top + this.#focus.i * cell + 1.5, cell - 3, cell - 3);
      ctx.strokeStyle = '#fff';
      ctx.lineWidth = 1;
      ctx.strokeRect(left + this.#focus.j * cell + 1.5, top + this.#focus.i * cell + 1.5, cell - 3, cell - 3);
    }
    // Labels (every step-th token when cells are smaller than a line) and the axis titles.
    drawLabels(ctx, layout, { bold: { row: selectedRow } });
    // Which labels are drawn, and where: the exports draw the same ones (tests compare them).
    const summary = JSON.stringify(labelSummary(layout));
    if (canvas.dataset.layout !== summary) canvas.dataset.layout = summary;
  }

  #textColor(fill) {
    let color = this.#textColors.get(fill);
    if (color === undefined) {
      color = textColorOn(fill);
      if (this.#textColors.size > 4096) this.#textColors.clear();
      this.#textColors.set(fill, color);
    }
    return color;
  }

  #cellAt(event, allowLabel = false) {
    if (!this.#layout || !this.#model) return null;
    const rect = this.#canvas.getBoundingClientRect();
    const x = event.clientX - rect.left;
    const y = event.clientY - rect.top;
    const cell = cellAtPoint(this.#layout, x, y);
    if (cell || !allowLabel) return cell;
    // A click on a row's label selects that row.
    const i = Math.floor((y - this.#layout.top) / this.#layout.cell);
    return x < this.#layout.left && i >= 0 && i < this.#model.tokens.length ? { i, j: 0 } : null;
  }

  #setFocus(cell, announce) {
    const same = cell && this.#focus && cell.i === this.#focus.i && cell.j === this.#focus.j;
    if (same || (!cell && !this.#focus)) return;
    this.#focus = cell;
    if (this.#model) this.#draw();
    this.#handlers.onCellFocus?.(cell, announce);
  }

  #key(event) {
    const T = this.#model?.tokens.length ?? 0;
    if (!T) return;
    const f = this.#focus ?? { i: 0, j: 0 };
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1], Home: [0, -T], End: [0, T] };
    if (moves[event.key]) {
      const [di, dj] = moves[event.key];
      this.#setFocus({ i: Math.min(T - 1, Math.max(0, f.i + di)), j: Math.min(T - 1, Math.max(0, f.j + dj)) }, true);
      event.preventDefault();
    } else if (event.key === 'Enter' || event.key === ' ') {
      this.#handlers.onRowSelect?.(f.i);
      if (event.key === 'Enter') this.#handlers.onCellSelect?.(f);
      event.preventDefault();
    }
  }
}
