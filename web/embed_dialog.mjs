// "Copy embed code": a dialog with the iframe snippet and the component
// snippet of the current view, each with a copy button (the clipboard, or
// the text selected for Ctrl+C where the clipboard is not allowed); and the
// compact embed view's "open in playground" link. A note above the snippets
// says that their URLs (this page's) must point to where the files are hosted.
// The iframe is as tall as the matrix on screen needs to label every row
// (frameHeight), and a preview under its snippet shows that frame.
import { FRAME_HEIGHT, componentSnippet, embedUrl, frameHeight, hostingNote, iframeSnippet, playgroundUrl } from './embed_code.mjs';
import { shown } from './shown_matrix.mjs';
import { chapterSnippet, chapterUrl } from './tour/tour_gallery.mjs';
import { labelFont } from './views/matrix_layout.mjs';

// A snippet's box: heading, note, read-only text of `rows` lines, and a copy
// button with its status; ids embed-NAME, embed-NAME-note, copy-NAME and
// copy-NAME-status. The texts carry data-i18n, so a change of language words them again.
function snippetBox(name, rows, t) {
  const worded = (tag, key, fields = {}) => {
    const element = Object.assign(document.createElement(tag), fields, { textContent: t(key) });
    element.dataset.i18n = key;
    return element;
  };
  const status = Object.assign(document.createElement('span'), { id: `copy-${name}-status` });
  status.setAttribute('role', 'status');
  const buttons = Object.assign(document.createElement('div'), { className: 'buttons' });
  buttons.append(worded('button', 'embedCode.copy', { id: `copy-${name}`, type: 'button' }), status);
  return [
    worded('h3', `embedCode.${name}`),
    Object.assign(document.createElement('p'), { id: `embed-${name}-note`, className: 'note' }),
    Object.assign(document.createElement('textarea'), { id: `embed-${name}`, rows, readOnly: true, spellcheck: false }),
    buttons,
  ];
}

/** tourLinks(): the guided tour's step on screen ({step, chapter, n, chapterName} hashes), or null. */
export function setupEmbed({ store, t, $, tourLinks = () => null }) {
  const dialog = $('embed-dialog');
  // The iframe's snippet above its preview, the component's under it.
  $('embed-preview-title').before(...snippetBox('iframe', 4, t));
  $('embed-preview').after(...snippetBox('component', 5, t));
  const pageUrl = () => `${location.origin}${location.pathname}`;
  const siteBase = () => new URL('.', location.href).href;
  const hosting = document.createElement('p');
  hosting.id = 'embed-hosting';
  hosting.className = 'note';
  (dialog.querySelector('.hint') ?? dialog.firstElementChild).after(hosting);
  // While the tour is open: the links of its step and chapter, and the iframe that shows the chapter alone.
  const tour = document.createElement('div');
  tour.id = 'embed-tour';
  tour.hidden = true;
  hosting.after(tour);
  const tourTitle = document.createElement('h3');
  const tourLinksLine = document.createElement('p');
  const tourSnippet = Object.assign(document.createElement('textarea'), {
    id: 'embed-tour-iframe',
    rows: 3,
    readOnly: true,
    spellcheck: false,
  });
  tour.append(tourTitle, tourLinksLine, tourSnippet);

  function fillTour() {
    const links = tourLinks();
    tour.hidden = !links;
    if (!links) return;
    const title = t(`tour.chapter.${links.chapterName}`);
    tourTitle.textContent = t('tour.embed.title', { chapter: title });
    const link = (hash, text) => Object.assign(document.createElement('a'), { href: chapterUrl(hash), textContent: text });
    tourLinksLine.replaceChildren(
      link(links.step, t('tour.linkStep', { n: links.n })),
      document.createTextNode(' · '),
      link(links.chapter, t('tour.linkChapter', { chapter: title })),
    );
    tourSnippet.value = chapterSnippet(links.chapter, `MiniMind · ${title}`);
  }

  function frameTitle(s) {
    if (s.inputMode === 'manual') return t('embedCode.frameTitleLesson');
    return t('embedCode.frameTitle', { preset: s.config ? `${s.preset} + ${t('model.custom')}` : s.preset, layer: s.layer, head: s.head });
  }

  const context = document.createElement('canvas').getContext('2d');
  const measure = (text, size) => {
    context.font = labelFont(size);
    return context.measureText(text).width;
  };

  // The lesson's and the lab's views fit the least height; the matrix its labels.
  function heightFor(s) {
    const tokens = s.inputMode === 'manual' || s.lab ? null : shown(s)?.tokens;
    return tokens ? frameHeight(tokens, measure, { query: t('matrix.queryAxis'), key: t('matrix.keyAxis') }) : FRAME_HEIGHT;
  }

  // The preview loads a whole playground: only while the dialog is open, and again only when its address or height changes.
  function fillPreview(s, height) {
    const preview = $('embed-preview');
    const src = embedUrl(s, pageUrl());
    if (preview.getAttribute('src') !== src) preview.src = src;
    preview.height = String(height);
    preview.title = frameTitle(s);
    $('embed-preview-title').textContent = t('embedCode.preview', { height });
  }

  let filledHeight = null; // the snippet's height: a new result (new tokens) may change it

  function fill() {
    const s = store.get();
    hosting.textContent = hostingNote(s.lang, siteBase());
    fillTour();
    const height = (filledHeight = heightFor(s));
    $('embed-iframe').value = iframeSnippet(s, pageUrl(), frameTitle(s), height);
    fillPreview(s, height);
    $('embed-iframe-note').textContent = s.files ? t('embedCode.iframeFiles') : '';
    const { snippet, caveat } = componentSnippet(s, { siteBase: siteBase(), pageUrl: pageUrl() });
    $('embed-component').value = snippet ?? '';
    $('embed-component').hidden = snippet === null;
    $('copy-component').hidden = snippet === null;
    $('embed-component-note').textContent = caveat ? t(caveat) : '';
    for (const id of ['copy-iframe-status', 'copy-component-status']) $(id).textContent = '';
  }

  async function copy(textarea, status) {
    try {
      await navigator.clipboard.writeText(textarea.value);
      status.textContent = t('embedCode.copied');
    } catch {
      textarea.focus();
      textarea.select();
      status.textContent = t('embedCode.selected');
    }
  }

  $('embed-code').addEventListener('click', () => {
    fill();
    dialog.showModal();
  });
  $('copy-iframe').addEventListener('click', () => copy($('embed-iframe'), $('copy-iframe-status')));
  $('copy-component').addEventListener('click', () => copy($('embed-component'), $('copy-component-status')));
  $('embed-close').addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => $('embed-preview').removeAttribute('src'));

  function renderEmbedView() {
    const s = store.get();
    document.body.classList.toggle('embed', s.embed);
    const link = $('open-playground');
    link.hidden = !s.embed;
    if (s.embed) link.href = playgroundUrl(s, pageUrl());
  }

  // What the snippets are made of; other changes (progress, a result of the same tokens) leave them, and a copy status, alone.
  const SNIPPET_KEYS = ['text', 'inputMode', 'preset', 'seed', 'config', 'layer', 'head', 'stage', 'causal', 'scale', 'row', 'lang'];
  store.subscribe((s, changed) => {
    if (dialog.open && ([...SNIPPET_KEYS, 'lesson', 'lab', 'files'].some((k) => changed.has(k)) || heightFor(s) !== filledHeight)) fill();
    if (s.embed) renderEmbedView();
  });
  renderEmbedView();
}
