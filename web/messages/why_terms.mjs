// "Ask the model why" (web/panels/why_panel.mjs): the logit lens, activation
// patching and direct logit attribution. Every number is a parameter,
// computed by js/why_text.mjs from what the model returned.

export const WHY_TERMS = {
  'zh-CN': {
    'why.title': '问模型为什么',
    'why.intro':
      '三种工具（与 TransformerLens 同名）：逻辑透镜看每一层预测什么；激活修补看哪个头带着答案；直接逻辑归因看每个部分给预测加了多少。',
    'why.switches': '按当前开关计算：{switches}。模型是在打开因果掩码、除以 √d 的情况下训练的，所以这些数字不是它学到的行为。',
    'why.maskOff': '因果掩码已关掉',
    'why.scaleOff': '没有除以 √d',
    'why.busy': '计算中……',
    'why.story': '代词的故事（“{pronoun}”指{referent}，{referent}的习惯是“{habit}”）',
    'why.emb': '嵌入（embed）',
    'why.after': '{layer} 之后',
    'why.lens.title': '每一层预测什么：第 {row} 行“{token}”之后',
    'why.lens.hint':
      '每一行是残差流在那一层读出的前 5 个 token（经过最后的归一化和 lm_head）；最后一行就是模型自己的预测。点一个 token，下面的图显示它的概率。',
    'why.lens.mapTitle': '“{token}”在每一层、每个位置的概率',
    'why.lens.from': '“{token}”在 {layer} 之后成为第一名（p = {p}），一直到最后一层（p = {pLast}）。',
    'why.lens.fromEmbedding': '“{token}”在嵌入层就是第一名（p = {p}），一直到最后一层（p = {pLast}）。',
    'why.lens.never': '“{token}”在任何一层都不是一直的第一名；最后一层 p = {p}。',
    'why.patch.title': '激活修补：哪个头带着答案',
    'why.patch.hint':
      '运行“错误”文字，把“正确”文字里一个头的输出 z（或残差流的一个位置）换进去，看答案恢复了多少：100% 是正确文字的 logit(答案) − logit(错误)，0% 是错误文字的。',
    'why.patch.clean': '正确文字',
    'why.patch.corrupt': '错误文字',
    'why.patch.flip': '翻转代词',
    'why.patch.answer': '答案 token',
    'why.patch.wrong': '错误 token',
    'why.patch.run': '修补',
    'why.patch.tokenHint': '文字（取它的第一个 token）或 id（如 #123）；空着就用默认值。',
    'why.patch.habitDefault': '{name}的习惯“{habit}”的第一个 token',
    'why.patch.noStory': '正确文字里没有代词和一男一女两个名字，算不出默认的答案：请填上答案 token 和错误 token。',
    'why.patch.noFlip': '正确文字里没有“他”或“她”可以翻转。',
    'why.patch.idsOnly': '这个模型没有分词器：请输入 token id（用空格分开的数字）。',
    'why.patch.needIds': '这个模型没有分词器，也就没有默认的答案：请用 id 填上答案 token 和错误 token。',
    'why.patch.badIds': 'token id 是用空格分开的整数：“{token}”不是。',
    'why.patch.lengths': '两段文字的 token 数必须相同才能逐位置修补：正确文字 {clean} 个，错误文字 {corrupt} 个。',
    'why.patch.resolved': '答案 {answer}，错误 {wrong}',
    'why.patch.headsTitle': '每个头（层 × 头）：换进正确文字的 z 后恢复的比例',
    'why.patch.residualTitle': '残差流（层 × 位置）：换进正确文字的那一格后恢复的比例',
    'why.patch.metrics': '正确文字 logit(答案) − logit(错误) = {clean}，错误文字 = {corrupt}。',
    'why.patch.head': '修补 {head} 恢复了 {percent}% 的答案，是所有头里最多的。',
    'why.patch.residual': '残差流里恢复最多的是 {layer} 之后第 {position} 个位置“{token}”的那一格（{percent}%）。',
    'why.patch.residualEmb': '残差流里恢复最多的是嵌入层第 {position} 个位置“{token}”的那一格（{percent}%）。',
    'why.patch.noGap': '两段文字的 logit(答案) − logit(错误) 一样（{clean} 和 {corrupt}）：没有可以恢复的差别。',
    'why.attr.title': '直接逻辑归因：第 {row} 行“{token}”之后，logit({answer}) − logit({wrong})',
    'why.attr.hint':
      '每一条是一个部分（嵌入、每个头、每层的 FFN）直接写进残差流、经过最后的归一化（其缩放固定为这次运行的值）读出的贡献；它们加起来就是总数。',
    'why.attr.totalLabel': '总数',
    'why.attr.total': '总数 {total}（各部分之和 {sum}）。',
    'why.attr.top': '写得最多的是 {part}：{value}（总数的 {share}%）。',
    'why.attr.named': '代词头 {part} 写了 {value}（总数的 {share}%）。',
    'why.attr.pair': '答案和错误：{answer}、{wrong}',
    'why.lens.fromAgain':
      '“{token}”在 {first} 之后第一次成为第一名（p = {pFirst}），{lost} 之后被超过，从 {layer} 之后又是第一名，一直到最后一层（p = {pLast}）。',
    'why.patch.jump':
      '因果追踪（同 ROME）：修补第 {fromPosition} 个位置“{fromToken}”（{from}）恢复 {fromPercent}%；从 {to}起，恢复最多的变成第 {toPosition} 个位置“{toToken}”（{toPercent}%），一直到最后。{block} 这一层一步就把指代的名字搬到了代词上。',
    'why.patch.move':
      '因果追踪（同 ROME）：修补第 {fromPosition} 个位置“{fromToken}”（{from}）恢复 {fromPercent}%；从 {to}起，恢复最多的变成第 {toPosition} 个位置“{toToken}”（{toPercent}%）。指代的名字经过 {block} 到 {lastBlock} 这几层才搬到代词上。',
    'why.patch.lastOnly':
      '两段文字只在最后一个位置“{token}”不同，所以每一层恢复答案的都是那一格（{percent}%）：这张图看不出指代的名字从哪里来。换名字的文字对才能看出来。',
    'why.patch.off': '关',
    'why.patch.offTitle': '{head} 已关掉：两次运行里它的输出都是 0，没有可修补的。',
    'why.patch.onRequest': '这个模型较大，修补要算一会儿：按“修补”开始。',
    'why.pair.name':
      '这对文字来自你的文字：把{referent}换成{replacement}（同性别、同样 {tokens} 个 token、文字里没有出现）。“{pronoun}”之后，答案是{referent}的习惯“{answer}”的第一个 token，错误是{replacement}的“{wrong}”。',
    'why.pair.pronoun':
      '这对文字来自你的文字：没有别的同性别、同样 {tokens} 个 token 的名字可以替换{referent}，所以改为翻转代词（{pronoun} → {flipped}）。答案是“{answer}”的第一个 token，错误是“{wrong}”的。',
    'why.pair.lesson': '这是课程里的默认文字对，不是你的文字：{reason}。',
    'why.pair.custom': '这是你自己填的文字对。',
    'why.pair.noPronoun': '你的文字里没有“他”或“她”',
    'why.pair.noNames': '“{pronoun}”之前没有提到名字',
    'why.pair.oneGender': '“{pronoun}”之前提到的是 {names}，不是一男一女，靠性别分不出“{pronoun}”是谁',
    'why.ablated': '已关掉的头：{heads}（输出在 o_proj 之前置 0）。下面的透镜、归因和修补都是没有它们的模型算出的。',
    'why.updating': '正在按屏幕上的文字重新计算……（下面灰色的是上一次的结果）',
    'why.story.off': '现在关掉了 {heads}：下面每个视图里它们的输出都是 0，修补图里它们的格子写着“关”。',
    'why.attr.versusPatch':
      '修补 {head} 恢复了 {percent}% 的答案，而它直接写进答案的只有 {value}（总数的 {share}%）：修补把经过后面各层传下去的作用都算上了，直接归因只算这个头自己写进最后 logit 的部分。',
  },
  en: {
    'why.title': 'Ask the model why',
    'why.intro':
      'Three tools (named as in TransformerLens): the logit lens shows what each layer predicts; activation patching, which head carries the answer; direct logit attribution, how much each part adds to the prediction.',
    'why.switches':
      'Computed with the switches as set: {switches}. The model was trained with the causal mask on and scores divided by √d, so these numbers are not what it learned.',
    'why.maskOff': 'causal mask off',
    'why.scaleOff': 'not divided by √d',
    'why.busy': 'Computing…',
    'why.story': 'The pronoun story (“{pronoun}” is {referent}, whose habit is “{habit}”)',
    'why.emb': 'embed',
    'why.after': 'after {layer}',
    'why.lens.title': 'What each layer predicts after row {row} “{token}”',
    'why.lens.hint':
      'Each row is the top 5 tokens read out of the residual stream at that layer (through the final norm and lm_head); the last row is the model’s own prediction. Click a token to map its probability below.',
    'why.lens.mapTitle': 'p of “{token}” at every layer and position',
    'why.lens.from': '“{token}” becomes the top prediction after {layer} (p = {p}) and stays first to the last layer (p = {pLast}).',
    'why.lens.fromEmbedding':
      '“{token}” is the top prediction already at the embeddings (p = {p}) and stays first to the last layer (p = {pLast}).',
    'why.lens.never': '“{token}” does not stay the top prediction from any layer on; at the last layer p = {p}.',
    'why.patch.title': 'Activation patching: which head carries the answer',
    'why.patch.hint':
      'Run the corrupt text, put in one head’s output z (or one position of the residual stream) from the clean text, and see how much of the answer comes back: 100% is the clean text’s logit(answer) − logit(wrong), 0% the corrupt one’s.',
    'why.patch.clean': 'Clean text',
    'why.patch.corrupt': 'Corrupt text',
    'why.patch.flip': 'Flip the pronoun',
    'why.patch.answer': 'Answer token',
    'why.patch.wrong': 'Wrong token',
    'why.patch.run': 'Patch',
    'why.patch.tokenHint': 'Text (its first token is used) or an id (#123); empty for the default.',
    'why.patch.habitDefault': 'the first token of {name}’s habit “{habit}”',
    'why.patch.noStory':
      'The clean text has no pronoun with a man and a woman named before it, so there is no default answer: fill in the answer and wrong tokens.',
    'why.patch.noFlip': 'The clean text has no 他 or 她 to flip.',
    'why.patch.idsOnly': 'This model has no tokenizer: type token ids (numbers separated by spaces).',
    'why.patch.needIds': 'This model has no tokenizer, so there is no default answer: give the answer and wrong tokens as ids.',
    'why.patch.badIds': 'Token ids are whole numbers separated by spaces: “{token}” is not one.',
    'why.patch.lengths':
      'Patching position by position needs two texts of the same number of tokens: the clean text has {clean}, the corrupt one {corrupt}.',
    'why.patch.resolved': 'answer {answer}, wrong {wrong}',
    'why.patch.headsTitle': 'Each head (layer × head): the share restored by the clean text’s z',
    'why.patch.residualTitle': 'The residual stream (layer × position): the share restored by the clean text’s cell',
    'why.patch.metrics': 'logit(answer) − logit(wrong) is {clean} on the clean text and {corrupt} on the corrupt one.',
    'why.patch.head': 'Patching {head} restores {percent}% of the answer, the most of any head.',
    'why.patch.residual': 'In the residual stream, the cell after {layer} at position {position} “{token}” restores the most ({percent}%).',
    'why.patch.residualEmb': 'In the residual stream, the embeddings at position {position} “{token}” restore the most ({percent}%).',
    'why.patch.noGap': 'Both texts give the same logit(answer) − logit(wrong) ({clean} and {corrupt}): there is no difference to restore.',
    'why.attr.title': 'Direct logit attribution after row {row} “{token}”: logit({answer}) − logit({wrong})',
    'why.attr.hint':
      'Each bar is what one part (the embeddings, each head, each layer’s FFN) writes into the residual stream, read through the final norm with its scale frozen at this run’s value; the bars add up to the total.',
    'why.attr.totalLabel': 'Total',
    'why.attr.total': 'Total {total} (the parts add to {sum}).',
    'why.attr.top': '{part} writes the most: {value} ({share}% of the total).',
    'why.attr.named': 'The pronoun head {part} writes {value} ({share}% of the total).',
    'why.attr.pair': 'answer and wrong: {answer}, {wrong}',
    'why.lens.fromAgain':
      '“{token}” is first on top after {first} (p = {pFirst}), is overtaken after {lost}, and is the top prediction again from after {layer} to the last layer (p = {pLast}).',
    'why.patch.jump':
      'Causal tracing (as in ROME): patching position {fromPosition} “{fromToken}” ({from}) restores {fromPercent}%; from {to} on, position {toPosition} “{toToken}” restores the most ({toPercent}%), to the last layer. Block {block} carries the referent to the pronoun in one jump.',
    'why.patch.move':
      'Causal tracing (as in ROME): patching position {fromPosition} “{fromToken}” ({from}) restores {fromPercent}%; from {to} on, position {toPosition} “{toToken}” restores the most ({toPercent}%). The referent moves to the pronoun over blocks {block} to {lastBlock}.',
    'why.patch.lastOnly':
      'The two texts differ only at the last position “{token}”, so every layer’s answer sits in that cell ({percent}%): this grid cannot show where the referent comes from. A pair that swaps the name can.',
    'why.patch.off': 'off',
    'why.patch.offTitle': '{head} is switched off: its output is 0 in both runs, so there is nothing to patch.',
    'why.patch.onRequest': 'This model is large and patching takes a while: press Patch to run it.',
    'why.pair.name':
      'This pair comes from your text: {referent} replaced by {replacement} (same gender, also {tokens} token(s), not in the text). After “{pronoun}”, the answer is the first token of {referent}’s habit “{answer}”, the wrong one {replacement}’s “{wrong}”.',
    'why.pair.pronoun':
      'This pair comes from your text: no other name of the same gender with {tokens} token(s) can replace {referent}, so the pronoun is flipped instead ({pronoun} → {flipped}). The answer is the first token of “{answer}”, the wrong one of “{wrong}”.',
    'why.pair.lesson': 'This is the lesson’s pair, not your text: {reason}.',
    'why.pair.custom': 'This is a pair you typed.',
    'why.pair.noPronoun': 'your text has no 他 or 她',
    'why.pair.noNames': 'no name comes before “{pronoun}”',
    'why.pair.oneGender': 'before “{pronoun}” the text names {names}, not a man and a woman, so gender cannot tell who “{pronoun}” is',
    'why.ablated':
      'Heads switched off: {heads} (their output zeroed before o_proj). The lens, attribution and patching below are of the model without them.',
    'why.updating': 'Updating for the text on screen… (what is greyed out below is the previous answer)',
    'why.story.off': '{heads} switched off now: its output is 0 in every view below, and its patching cell says “off”.',
    'why.attr.versusPatch':
      'Patching {head} restores {percent}% of the answer, while its direct write is {value} ({share}% of the total): patching counts everything that flows from the head through the later layers; direct attribution only what the head itself writes into the final logits.',
  },
};
