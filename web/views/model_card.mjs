// The card by the model line: what the model in use knows. For the trained
// demo model, the generated world it was trained on (js/world.mjs: names and
// habits counted from the corpus generator, sizes from corpus_stats.json) and
// a link to its model card; for a model trained in the Train panel, when its
// head roles were measured; nothing for random weights or dropped files.
// The notice under the chips names the parts of the text outside that world.
import { outsideWorld, worldSummary } from '../../js/world.mjs';

/**
 * card: {root, text, link}; model: 'demo' | 'tab' | null; stats:
 * corpus_stats.json (null while it has not arrived); step: the batch the
 * Train panel measured the roles at.
 */
export function renderModelCard(card, { model, stats, step, t, lang }) {
  const number = (n) => (n === null ? '?' : n.toLocaleString(lang));
  if (model === 'demo') {
    const world = worldSummary(stats);
    card.text.textContent = t('card.trained', {
      names: number(world.names),
      male: number(world.male),
      female: number(world.female),
      habits: number(world.habits),
      exampleName: world.example.name,
      exampleHabit: world.example.habit,
      exampleFirst: world.example.habit[0],
      texts: number(world.texts),
      lines: number(world.lines),
      tokens: number(world.tokens),
    });
    card.link.hidden = false;
  } else if (model === 'tab') {
    card.text.textContent = t('card.tab', { step: number(step) });
    card.link.hidden = true;
  }
  card.root.hidden = model === null;
}

/** The one-line notice on text the trained model's world never writes ('' hides it). */
export function renderWorldNotice(element, { text, active, t }) {
  const parts = active ? outsideWorld(text) : [];
  element.textContent = parts.length ? t('world.outside', { parts: parts.map((p) => `“${p}”`).join(t('note.listSeparator')) }) : '';
  element.hidden = parts.length === 0;
}
