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

/** How many parts outside the world the notice quotes; it counts the rest. */
const WORLD_PARTS_SHOWN = 5;

/** The one-line notice on text the trained model's world never writes ('' hides it). */
export function renderWorldNotice(element, { text, active, t }) {
  const all = active ? outsideWorld(text, { max: Infinity }) : [];
  const parts = all
    .slice(0, WORLD_PARTS_SHOWN)
    .map((p) => `“${p}”`)
    .join(t('note.listSeparator'));
  const more = all.length - WORLD_PARTS_SHOWN;
  element.textContent = all.length === 0 ? '' : more > 0 ? t('world.outsideMore', { parts, more }) : t('world.outside', { parts });
  element.hidden = all.length === 0;
}
