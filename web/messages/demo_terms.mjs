// What the page and <minimind-attention> say about the trained model and its
// heads, and how they label random weights: one text for both (the page's
// catalogues and the element's spread these). Every number is a parameter,
// read from the model's heads.json. The head note's text is note_terms.mjs's.
import { NOTE_TERMS } from './note_terms.mjs';

export const DEMO_TERMS = {
  'zh-CN': {
    ...NOTE_TERMS['zh-CN'],
    'model.trainedName': 'minimind-demo（已训练）',
    'model.untrainedName': '{name}（随机权重，未训练）',
    'role.pronoun': '代词头',
    'role.previous-token': '前一个 token',
    'role.induction': '归纳头',
    'role.sink': '首 token',
    'role.mixed': '混合',
    'score.previousToken': '前一个',
    'score.induction': '归纳',
    'score.pronoun': '代词',
    'score.sink': '首 token',
  },
  en: {
    ...NOTE_TERMS.en,
    'model.trainedName': 'minimind-demo (trained)',
    'model.untrainedName': '{name} (untrained: random weights)',
    'role.pronoun': 'pronoun',
    'role.previous-token': 'previous token',
    'role.induction': 'induction',
    'role.sink': 'first token',
    'role.mixed': 'mixed',
    'score.previousToken': 'prev',
    'score.induction': 'induction',
    'score.pronoun': 'pronoun',
    'score.sink': 'first',
  },
};

/** The keys both the page and the element show. */
export const DEMO_TERM_KEYS = Object.keys(DEMO_TERMS.en);
