// The head note (js/head_note.mjs composes it from what is on screen), the
// matrix title's switch marks, the model card and the notice on text outside
// the trained model's world (js/world.mjs): the page's and the element's
// (spread into DEMO_TERMS). Every number is a parameter.

export const NOTE_TERMS = {
  'zh-CN': {
    'note.sentenceSeparator': '',
    'note.listSeparator': '，',
    'note.score': '{name} {value}',
    'note.role': '第 {layer} 层第 {head} 个头：{does}（在训练时没见过的句子上测得：{scores}）。',
    'note.does.pronoun': '代词头，代词（他/她）看向它所指的名字',
    'note.does.previous-token': '前一个 token 头，每个 token 看它前面那个',
    'note.does.induction': '归纳头，再次出现的 token 看它上次出现时后面的那个',
    'note.does.sink': '首 token 头，大部分注意力落在第一个 token（bos）上',
    'note.does.mixed': '没有单一的角色',
    'note.maskOff': '因果掩码已关掉',
    'note.scaleOff': '没有除以 √d',
    'note.switchesOff':
      '{switches}：模型是在打开因果掩码、除以 √d 的情况下训练和测量的，所以这些权重不是它学到的行为；测得的角色（{role}）只在两个开关都打开时成立。',
    'note.pronouns': '在这段文字里：{list}。',
    'note.scoresLegend':
      '分数说明：代词 = 代词看向所指名字的权重；前一个 = 看前一个 token 的权重；归纳 = 重复出现的 token 看它上次出现后面那个的权重；首 token = 看第一个 token 的权重。都在 0 到 1 之间，是在训练时没见过的句子上的平均值。',
    'note.onText': '在这段文字上（第 1 行起各行平均）：看第一个 token {first}，看前一个 token {previous}{repeats}。{idle}',
    'note.onTextRepeats': '；{count} 个 token 重复出现，它们看上次出现后面那个 token 的权重平均 {induction}',
    'note.onTextNoRepeats': '；没有重复出现的 token',
    'note.idleInduction': '这里没有可以照抄的重复，归纳头无事可做。',
    'note.idlePronoun': '这里没有“他”或“她”，代词头无事可做。',
    'note.pronounRow': '“{pronoun}”（第 {row} 行）→ {target} {weight}{parts}',
    'note.parts': '（{parts}）',
    'note.habit': '在训练的世界里，{name}的习惯是“{habit}”：如果模型把“{pronoun}”解析成了{name}，它会在“{pronoun}”后面预测“{first}”。',
    'note.habitShown': '在训练的世界里，{name}的习惯是“{habit}”：这里“{pronoun}”后面是“{next}”，正是{name}的习惯。',
    'note.row': '第 {row} 行“{query}”最大的权重：{list}。',
    'note.softmaxStage': '下面的权重是 softmax 之后的（切到 softmax 这一步，矩阵里就是这些数）。',
    'view.maskOff': '未加掩码',
    'view.scaleOff': '未除以 √d',
    'card.trained':
      '这个模型只认识一个生成出来的小世界：{names} 个名字（{male} 男 {female} 女），每个名字有自己的习惯（共 {habits} 种，比如{exampleName}{exampleHabit}），训练用了 {texts} 段生成的短文（打包成 {lines} 行，{tokens} 个 token）。所以“她”后面出现“{exampleFirst}”，说明模型把“她”解析成了{exampleName}。',
    'card.link': '模型卡片',
    'card.tab': '这个模型是在“训练”面板里训练的：头的角色是第 {step} 批时测得的。',
    'world.outside': '这些不在模型的世界里：{parts}。模型只见过那个小世界里的中文句子，这里的注意力和预测只是猜测。',
    'world.outsideMore':
      '这些不在模型的世界里：{parts}，另外还有 {more} 处。模型只见过那个小世界里的中文句子，这里的注意力和预测只是猜测。',
    'tokens.what': '这些词元是什么？',
  },
  en: {
    'note.sentenceSeparator': ' ',
    'note.listSeparator': ', ',
    'note.score': '{name} {value}',
    'note.role': 'Layer {layer}, head {head}: {does} (measured on held-out sentences: {scores}).',
    'note.does.pronoun': 'a pronoun head, a pronoun (他/她) looks at the name it refers to',
    'note.does.previous-token': 'a previous-token head, each token looks at the one before it',
    'note.does.induction': 'an induction head, a token seen before looks at what followed it last time',
    'note.does.sink': 'a first-token head, most attention rests on the first token (the bos)',
    'note.does.mixed': 'no single role',
    'note.maskOff': 'Causal mask off',
    'note.scaleOff': 'no ÷ √d',
    'note.switchesOff':
      '{switches}: the model was trained and measured with the causal mask on and ÷ √d, so these weights are not its learned behaviour; its measured role ({role}) holds only with both switches on.',
    'note.pronouns': 'In this text: {list}.',
    'note.scoresLegend':
      'Scores: pronoun = weight a pronoun puts on the name it refers to; prev = weight on the previous token; induction = weight a repeated token puts on the token after its earlier copy; first = weight on the first token. Each from 0 to 1, averaged over held-out sentences.',
    'note.onText': 'On this text (rows 1 on, averaged): {first} on the first token, {previous} on the previous token{repeats}.{idle}',
    'note.onTextRepeats': '; {count} tokens repeat, and put {induction} on the token after their earlier copy',
    'note.onTextNoRepeats': '; no token repeats',
    'note.idleInduction': ' Nothing repeats here, so an induction head has nothing to copy.',
    'note.idlePronoun': ' There is no 他 or 她 here, so a pronoun head has nothing to resolve.',
    'note.pronounRow': '“{pronoun}” (row {row}) → {target} {weight}{parts}',
    'note.parts': ' ({parts})',
    'note.habit':
      'In the training world {name}’s habit is “{habit}”: if the model resolved “{pronoun}” to {name}, it predicts “{first}” after “{pronoun}”.',
    'note.habitShown': 'In the training world {name}’s habit is “{habit}”: here “{next}” follows “{pronoun}”, {name}’s habit.',
    'note.row': 'Row {row} (“{query}”), largest weights: {list}.',
    'note.softmaxStage': "The weights below are the softmax's (switch to the softmax stage to see them in the matrix).",
    'view.maskOff': 'mask off',
    'view.scaleOff': 'no ÷ √d',
    'card.trained':
      'This model knows only a small generated world: {names} names ({male} male, {female} female), each with a habit of its own ({habits} habits, e.g. {exampleName} {exampleHabit}), trained on {texts} generated short texts (packed into {lines} lines, {tokens} tokens). So “{exampleFirst}” after “她” shows that the model resolved 她 = {exampleName}.',
    'card.link': 'model card',
    'card.tab': 'This model was trained in the Train panel: its head roles were measured at batch {step}.',
    'world.outside':
      'Outside the model’s world: {parts}. It has only seen Chinese sentences of its small world; its attention and predictions here are guesses.',
    'world.outsideMore':
      'Outside the model’s world: {parts} and {more} more. It has only seen Chinese sentences of its small world; its attention and predictions here are guesses.',
    'tokens.what': 'What are these tokens?',
  },
};
