// Lesson 11's lab record as a table: each line the lesson asks the learner to
// record, what it means, the value the lesson says to expect and ours (from
// mm.labRecord), then the attention weights of batch 0, head 0. Built with
// textContent only. On a narrow screen the table scrolls inside its box,
// which says so ("scroll →" above it, the hidden side faded: scroll_cue.mjs).
import { LAB_IDS, LAB_RECORDS, WEIGHTS_KEY, parseLabRecord, recordRows } from '../lab_record.mjs';
import { watchOverflow } from './scroll_cue.mjs';

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function weightsTable(weights, t) {
  const table = element('table', 'lab-weights');
  table.id = 'lab-weights';
  const caption = element('caption', '', t('lab.weightsCaption'));
  const head = element('tr');
  head.append(element('th', 'corner', ''));
  weights[0]?.forEach((_, j) => head.append(element('th', '', String(j))));
  const thead = element('thead');
  thead.append(head);
  const body = element('tbody');
  weights.forEach((row, i) => {
    const tr = element('tr');
    tr.append(element('th', '', String(i)));
    row.forEach((value, j) => {
      const td = element('td', '', value);
      if (j > i) td.dataset.masked = 'true'; // the future: the lesson expects exactly 0
      tr.append(td);
    });
    body.append(tr);
  });
  table.append(caption, thead, body);
  return table;
}

/** view: {t, lab, record: {preset, seed, text} | null, error, embed, onClose()} */
export function renderLabView(container, { t, lab, record, error, embed, onClose }) {
  const children = [];
  let scroll = null;
  let hint = null;
  const header = element('div', 'lab-header');
  header.append(element('h2', '', t(`lab.title.${lab}`)));
  if (!embed) {
    const close = element('button', 'lab-close', t('lab.close'));
    close.type = 'button';
    close.id = 'lab-close';
    close.addEventListener('click', onClose);
    header.append(close);
  }
  children.push(header);
  children.push(element('p', 'hint lab-intro', t(`lab.intro.${lab}`)));
  if (!embed) children.push(element('pre', 'lab-command', LAB_RECORDS[lab].command));
  if (error) children.push(element('p', 'error', t('error.compute', { message: error })));
  if (record && record.preset === lab) {
    const parsed = parseLabRecord(record.text);
    const table = element('table', 'lab-record');
    table.id = 'lab-record';
    const caption = element('caption', '', t('lab.caption', { preset: lab, seed: parsed.seed, ids: LAB_IDS }));
    const head = element('tr');
    for (const key of ['lab.record', 'lab.meaning', 'lab.expected', 'lab.ours', 'lab.match']) {
      head.append(element('th', key === 'lab.meaning' ? 'lab-meaning' : '', t(key)));
    }
    const thead = element('thead');
    thead.append(head);
    const body = element('tbody');
    let extraHeading = false;
    for (const row of recordRows(lab, parsed)) {
      if (row.extra && !extraHeading) {
        extraHeading = true;
        const tr = element('tr', 'lab-extra-heading');
        const th = element('th', '', t('lab.extra'));
        th.colSpan = 5;
        tr.append(th);
        body.append(tr);
      }
      const tr = element('tr');
      tr.dataset.key = row.key;
      if (row.status) tr.dataset.status = row.status;
      const meaning = t(`lab.meaning.${row.key}`);
      if (row.key === WEIGHTS_KEY) {
        const cell = element('td', '');
        cell.colSpan = 3;
        cell.append(element('p', 'lab-weights-note', t('lab.weightsNote')), weightsTable(parsed.weights, t));
        tr.append(element('td', 'code', row.key), element('td', 'lab-meaning', meaning), cell);
      } else {
        tr.append(
          element('td', 'code', row.key),
          element('td', 'lab-meaning', meaning),
          element('td', 'code lesson-value', row.lesson ?? '—'),
          element('td', 'code our-value', row.ours ?? '—'),
          element('td', row.status ? `check-${row.status}` : '', row.status ? t(`lab.status.${row.status}`) : ''),
        );
      }
      body.append(tr);
    }
    table.append(caption, thead, body);
    hint = element('p', 'scroll-hint', t('table.scrollHint'));
    hint.hidden = true;
    scroll = element('div', 'lesson-scroll lab-record-scroll');
    scroll.append(table);
    children.push(hint, scroll);
    children.push(element('p', 'hint', t('lab.matrixNote', { preset: lab, ids: LAB_IDS })));
  } else if (!error) {
    children.push(element('p', 'hint', t('status.computing')));
  }
  container.replaceChildren(...children);
  if (scroll) watchOverflow(scroll, hint);
}
