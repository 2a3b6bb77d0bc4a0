// What the page and <minimind-attention> say about the trained model and its
// heads, and how they label random weights: one text for both (the page's
// catalogues and the element's spread these). Every number is a parameter,
// read from the model's heads.json.

export const DEMO_TERMS = {
  'zh-CN': {
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
    'demo.pronounHead':
      '这是训练过的 MiniMind 的代词头（第 {layer} 层第 {head} 个头）：在 {count} 句训练时没见过的句子上测得，代词（他/她）平均把 {mass} 的注意力放在它所指的名字上。看“{pronoun}”这一行：它把 {lessonMass} 的注意力放在“{referent}”的 token 上。',
    'demo.pronounHeadNoCount':
      '这是训练过的 MiniMind 的代词头（第 {layer} 层第 {head} 个头）：在训练时没见过的句子上测得，代词（他/她）平均把 {mass} 的注意力放在它所指的名字上。看“{pronoun}”这一行：它把 {lessonMass} 的注意力放在“{referent}”的 token 上。',
    'demo.headScores':
      '第 {layer} 层第 {head} 个头：{role}。在训练时没见过的句子上测得：前一个 token {previousToken}，代词→所指的名字 {pronoun}，归纳 {induction}，首 token（bos）{sink}。',
  },
  en: {
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
    'demo.pronounHead':
      'This is the trained MiniMind’s pronoun head (layer {layer}, head {head}): measured on {count} held-out sentences, a pronoun (他/她) puts {mass} of its attention on the name it refers to, on average. Look at the row of “{pronoun}”: it puts {lessonMass} of its attention on the tokens of “{referent}”.',
    'demo.pronounHeadNoCount':
      'This is the trained MiniMind’s pronoun head (layer {layer}, head {head}): measured on held-out sentences, a pronoun (他/她) puts {mass} of its attention on the name it refers to, on average. Look at the row of “{pronoun}”: it puts {lessonMass} of its attention on the tokens of “{referent}”.',
    'demo.headScores':
      'Layer {layer}, head {head}: {role}. Measured on held-out sentences: previous token {previousToken}, pronoun → its name {pronoun}, induction {induction}, first token (bos) {sink}.',
  },
};

/** The keys both the page and the element show. */
export const DEMO_TERM_KEYS = Object.keys(DEMO_TERMS.en);
