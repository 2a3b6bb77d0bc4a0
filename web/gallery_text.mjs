// The gallery's text (gallery.html): what each live figure shows and what a
// learner should see in it, Chinese first, then English. The names of lesson
// 2.5's examples are the page's (web/messages/, lesson.example.*).
import heads from '../models/minimind-demo/heads.json' with { type: 'json' };
import shapeRuns from '../models/minimind-demo/shape_runs.json' with { type: 'json' };
import stories from '../models/minimind-demo/qk_stories.json' with { type: 'json' };

import { inductionReading, pronounReading } from '../js/qk_stories.mjs';

// The trained model's best previous-token score and that of its retrain with
// 2 kv heads, on the same held-out probes: read from the generated records
// (heads.json, shape_runs.json), never typed.
const bestPrevious = (record) => Math.max(...record.heads.map((h) => h.previousToken)).toFixed(2);
const kv2 = bestPrevious(shapeRuns.runs.find((r) => r.num_key_value_heads === 2).heads);
const kv4 = bestPrevious(heads);

// "Why this weight" at two cells, in numbers measured over many probes
// (qk_stories.json, scripts/qk_stories.mjs), never typed. The pronoun: the
// lesson's sentence, 她 → 小 of 小红, at the pronoun head.
const she = stories.pronoun.sentences.find((x) => x.text === '小明把苹果给了小红，她很开心');
const sheReading = pronounReading(she);
const sheTop = she.top
  .slice(0, 5)
  .map((t) => t.token)
  .join('、');
const sheContent = she.content / she.score;
const f2 = (v) => v.toFixed(2);
const pct = (v) => `${Math.round(100 * v)}%`;
// The induction: the held-out seed's probes, at the head the gallery shows
// (web/gallery.mjs: the one whose key side the previous-token head writes most of).
const { figure } = stories;
const record = stories.induction.find((r) => r.seed === figure.seed);
const induction = record.heads.reduce((a, b) =>
  (inductionReading(b, record.previousTokenHeads).previous?.share ?? -Infinity) >
  (inductionReading(a, record.previousTokenHeads).previous?.share ?? -Infinity)
    ? b
    : a,
);
const { previous, kind } = inductionReading(induction, record.previousTokenHeads);
const inductionNumbers = previous && {
  name: induction.name,
  prev: previous.component,
  cells: induction.cells,
  mean: f2(previous.mean),
  contrast: f2(induction.contrast.mean),
  share: pct(previous.share),
  min: f2(previous.min),
  max: f2(previous.max),
  largest: induction.largest[previous.component],
  // More than the whole contrast: what the other components add up to (negative).
  others: previous.share > 1 ? f2(induction.contrast.mean - previous.mean) : null,
};

function pronounCaption(lang) {
  const n = sheReading;
  const looks = {
    own: {
      en: `她’s query looks for the first character of a female name: ${n.own} of the 20 tokens whose key would score highest at 小’s position start only a female name (${sheTop} …), ${n.other} a male one`,
      'zh-CN': `“她”的 query 在找女性名字的第一个字：把每个 token 的 key 放在“小”的位置上打分，得分最高的 20 个里有 ${n.own} 个只是女性名字的开头（${sheTop}……），${n.other} 个是男性名字的开头`,
    },
    other: {
      en: `of the 20 tokens whose key would score highest at 小’s position, ${n.other} start a male name and only ${n.own} a female one`,
      'zh-CN': `把每个 token 的 key 放在“小”的位置上打分，得分最高的 20 个里 ${n.other} 个是男性名字的开头，只有 ${n.own} 个是女性名字的开头`,
    },
    mixed: {
      en: `of the 20 tokens whose key would score highest at 小’s position, ${n.own} start only a female name and ${n.other} a male one`,
      'zh-CN': `把每个 token 的 key 放在“小”的位置上打分，得分最高的 20 个里 ${n.own} 个只是女性名字的开头，${n.other} 个是男性名字的开头`,
    },
  }[n.kind][lang];
  const content =
    she.content >= 0 && she.distance >= 0
      ? {
          en: ` Of its ${f2(she.score)}, ${f2(she.content)} (${pct(sheContent)}) is content (RoPE’s rotation removed, as if both tokens stood at one position) and ${f2(she.distance)} distance.`,
          'zh-CN': `这 ${f2(she.score)} 分里 ${f2(she.content)}（${pct(sheContent)}）来自内容（去掉 RoPE 的旋转，好像两个 token 在同一个位置），${f2(she.distance)} 来自距离。`,
        }[lang]
      : {
          en: ` Its content part (RoPE’s rotation removed) is ${f2(she.content)} and its distance part ${f2(she.distance)}.`,
          'zh-CN': `其中内容部分（去掉 RoPE 的旋转）是 ${f2(she.content)}，距离部分是 ${f2(she.distance)}。`,
        }[lang];
  return lang === 'en'
    ? `The playground’s “why this weight” view at the pronoun head ${stories.pronoun.name}, on the cell 她 → 小 of the lesson’s sentence (the first token of 小红). Block 0 reads the embeddings only, so the view ranks the whole vocabulary: ${looks}; 小 itself scores ${f2(she.score)} and ranks ${she.rank}.${content} The view splits the score over RoPE’s frequency pairs, rotated and not; click another cell of the row to compare (the model card has all four of the lesson’s sentences).`
    : `Playground 的“为什么是这个权重”视图，停在代词头 ${stories.pronoun.name} 的格子 她 → 小（课程例句里“小红”的第一个 token）。第 0 层只读词嵌入，所以视图给整个词表排序：${looks}；“小”本身得 ${f2(she.score)} 分，排第 ${she.rank}。${content}视图还把分数按 RoPE 的频率对拆开，给出旋转后和去掉旋转的值；点这一行的其他格子可以比较（模型卡里有课程的全部四个句子）。`;
}

function inductionCaption(lang) {
  const q = figure.queryToken;
  const k = figure.keyToken;
  const n = inductionNumbers;
  const cell =
    lang === 'en'
      ? `The same view at the induction head ${induction.name}, on one of the heads command’s induction probes (20 of the corpus’s tokens said twice; held-out seed ${figure.seed}), on the cell from the second ${q} to ${k}, the token after the first ${q}. It splits the contrast, the cell’s score minus the row’s weighted mean score, by the components that wrote the query and the key.`
      : `同一个视图，停在归纳头 ${induction.name}，用的是 heads 命令的一个归纳探针（语料里的 20 个 token 说两遍；留出的种子 ${figure.seed}），格子从第二个“${q}”到“${k}”，即第一个“${q}”后面的 token。它把对比（这个格子的分数减去这一行按权重的平均分数）按写出 query 和 key 的部分拆开。`;
  if (!n) return cell;
  const measured =
    lang === 'en'
      ? ` Over all ${n.cells} induction cells of those probes, ${n.prev}, the previous-token head, writes on average ${n.mean} of the mean contrast ${n.contrast} on the key side (${n.share}${n.others ? `, more than the whole: the other parts together give ${n.others}` : ''}; from ${n.min} to ${n.max} cell by cell), and its part is the largest in ${n.largest} of ${n.cells} cells`
      : `在这些探针的全部 ${n.cells} 个归纳格子上，前一个 token 头 ${n.prev} 在 key 一侧平均写出平均对比 ${n.contrast} 中的 ${n.mean}（${n.share}${n.others ? `，比全部还多：其余部分加起来是 ${n.others}` : ''}；逐格从 ${n.min} 到 ${n.max}），在 ${n.cells} 个格子里有 ${n.largest} 个是最大的一份`;
  const reading = {
    most: { en: ': the pattern of K-composition, though not in every cell.', 'zh-CN': '：这就是 K-组合的样子，但不是每个格子都如此。' },
    largest: {
      en: ': the largest part but under half, one path among several.',
      'zh-CN': '：是最大的一份，但不到一半，只是几条路径之一。',
    },
    'not-largest': {
      en: ', but not the largest on average: these numbers do not show K-composition as the main path.',
      'zh-CN': '，但平均来说不是最大的一份：这些数字没有显示 K-组合是主要路径。',
    },
    'no-contrast': {
      en: ', but the head does not prefer the induction key on average.',
      'zh-CN': '，但这个头平均来说并不偏向归纳的 key。',
    },
    none: { en: '.', 'zh-CN': '。' },
  }[kind][lang];
  return `${cell}${measured}${reading}`;
}

const zhCN = {
  'gallery.title': 'MiniMind 注意力图库',
  'gallery.intro':
    '课程里的每一个注意力例子，都是一张在你的浏览器里实时计算的图：数字由编译成 WebAssembly 的 C++ 核心算出，与 MiniMind 的 PyTorch 代码一致。每张图下面有“在 Playground 中打开”的链接和可以复制到课程网页的嵌入代码。',
  'gallery.playground': '打开 Playground',
  'gallery.language': '语言',
  'gallery.contents': '目录',
  'gallery.snippet': '嵌入代码',
  'gallery.snippetHint':
    '复制到课程网页：<script> 在一个页面里只需要一次，每张图一个 <minimind-attention> 元素；加上 lang="zh-CN" 或 lang="en" 可以固定语言。',
  'gallery.iframeHint': '复制到任何网页或 Jupyter：iframe 里是 Playground 的精简视图，不需要 <script>。',
  'gallery.frameTitle': 'MiniMind 注意力：加上掩码之后的 scores',
  'section.lesson-2.5': '第 2.5 课：Attention 与 Causal Mask',
  'section.lesson-2.5.intro':
    '手算的例题：每张图都由核心从课程给出的 Q、K（或直接给出的 scores）算出，小数位数与课程打印的相同。课程做了舍入或只是示意的地方，图里显示精确值，说明里会指出来。',
  'section.lesson-11': '第 11 课：Attention 原理与源码',
  'section.lesson-11.intro':
    '一个真正的 MiniMind 注意力层。例句的图用的是本项目训练的小 MiniMind（minimind-demo，已训练）：文本由 MiniMind 的 tokenizer 切分，前面加开始符 <|im_start|>，和 MiniMind 预训练时一样。实验 A、B 用课程实验的小模型 lab-a、lab-b（随机权重，未训练），看的是形状，不是学到的规律。',

  'she.ref': '§2 动手实操',
  'she.caption':
    '第 2.5 课 §2「动手实操」：scores = Q @ K.T，再对每一行做 softmax（这个例子没有 ÷ √d，也没有掩码）。看“她”这一行：0.4925 / 0.1277 / 0.3798，即课程用 :.3f 打印的 她→小红 0.493、她→很 0.128、她→她 0.380——与课程逐位相同，“她”最关注“小红”。',
  'flow.ref': '§3 Self-Attention 流程',
  'flow.caption':
    '第 2.5 课 §3：课程直接给出 3×3 的 scores，第 3 步除以 √4 = 2，第 4 步做 softmax。课程第 4 步写的 0.65 / 0.10 / 0.25 是示意数字；这些分数真正的 softmax 平缓得多，“她”一行是 0.39 / 0.26 / 0.35。（为了除以 √4，Q 存放这些分数并补一列 0，K 取单位矩阵。）',
  'softmax.ref': '§3 为什么要除以 √d',
  'softmax.caption':
    '第 2.5 课 §3「为什么要除以 √d」：比例相同的两行分数。较小的 [1, 2, 3] 经 softmax 后是 0.09 / 0.24 / 0.67，分布比较均匀；较大的 [10, 20, 30] 变成 0.00 / 0.00 / 1.00，赢者通吃。除以 √d 就是为了把 Q·Kᵀ 留在前一种范围里。',
  'random.ref': '§3 动手实操（随机 W）',
  'random.caption':
    '第 2.5 课 §3 第二个「动手实操」：课程用随机的 W_Q、W_K 运行，所以只能复现它打印的分数（作为 Q 输入，补一列 0，K 取单位矩阵）。三个权重都接近 1/3：“她”的输入和“小红”很像，却不一定最关注“小红”，因为 Q、K 要先经过 W_Q、W_K。课程是从未舍入的分数算的，所以 4 位小数的最后一位可能差 1；3 位小数（她→很 0.349）完全一致。',
  'masked-softmax.ref': '§4 代码第 2 步',
  'masked-softmax.caption':
    '第 2.5 课 §4 代码第 2 步：把第 3 个分数设为 −∞，softmax 之后它的权重正好是 0，其余两个重新分配为 0.27 / 0.73，加起来仍然是 1。',
  'causal.ref': '§4 Causal Mask',
  'causal.caption':
    '第 2.5 课 §4「Causal Mask」：对角线以上的分数换成 −∞，softmax 之后正好是 0，每行之和仍为 1。图中显示精确值（4 位小数）：“天气”一行是 0.4750 / 0.5250，课程印成 0.47 / 0.53，是课程做了舍入（保留两位应为 0.48 / 0.52）；“很”“好”两行课程印的是示意数字，这些分数精确的 softmax 是 0.28 / 0.41 / 0.31 与 0.19 / 0.26 / 0.21 / 0.35。',

  'sentence.title': '§2.6 课程例句的注意力（训练过的模型，代词头）',
  'sentence.caption':
    '第 11 课 §2.6 与 §3 第 7 步：“小明把苹果给了小红，她很开心”在训练过的 MiniMind 上的 softmax(QKᵀ / √head_dim + mask)，画的是它的代词头（heads.json 在没见过的句子上测得、最关注代词所指名字的那个头；图的标题写着第几层第几个头）。看“她”这一行：最大的权重落在“小红”的 token（小、红）上。每一行只能看自己和前面的 token：对角线以上（斜线格）的权重都是 0，每行之和为 1；第一列是开始符 <|im_start|>，很多行把用不上的注意力放在那里（“sink”）。',
  'mask-off.title': '§2.4 关掉因果掩码',
  'mask-off.caption':
    '第 11 课 §2.4：同一个头，去掉因果掩码（causal="false"）。除最后一行外，每一行都把一部分权重分给了后面的 token，第一行的开始符也不再是 1.00——训练时这就是偷看答案，next-token prediction 会作弊。模型是带着掩码训练的，去掉掩码后的权重没有学过的意义；和上一张图的下三角对比。',
  'raw-scaled.title': '§2.3 原始分数 QKᵀ 与 ÷ √head_dim',
  'raw-scaled.caption':
    '第 11 课 §2.3 与 §5.2：左边是 q·k 的原始分数 QKᵀ，右边是除以 √head_dim 之后的分数。图案相同，数值按同一个倍数缩小，softmax 就不会过早变得极端。这两步都在加掩码之前，所以未来的位置还有数值。',
  'masked-iframe.title': '§5.3 掩码加在 softmax 之前（iframe 嵌入）',
  'masked-iframe.caption':
    '第 11 课 §5.3，这一张用 iframe 嵌入 Playground 的精简视图：因果掩码在 softmax 之前加到 scores 上，未来的位置变成 −∞（斜线格），softmax 之后它们的权重就是 0。iframe 在任何网页和 Jupyter 里都能用；本页其余的图用的是 <minimind-attention> 元素。',
  'why.title': '问模型为什么：代词的故事（iframe 嵌入）',
  'why.caption':
    '训练好的模型怎样解析代词，用三种可解释性工具讲（名称同 TransformerLens）：逻辑透镜显示在“她”之后，从哪一层起小红的习惯的第一个 token 成为第一名；激活修补把“她”翻成“他”，看换回哪个头的输出能恢复答案；直接逻辑归因显示代词头给 logit(答案) − logit(错误) 写了多少。答案和错误 token 由训练语料的生成器算出，所有数字都在你的浏览器里实时计算。',
  'why-pronoun.title': '为什么是这个权重：代词头在找什么（iframe 嵌入）',
  'why-pronoun.caption': pronounCaption('zh-CN'),
  'why-induction.title': '为什么是这个权重：归纳头的 key 由谁写出（iframe 嵌入）',
  'why-induction.caption': inductionCaption('zh-CN'),
  'gqa.title': '§2.7 / §5.4 GQA：几个 q 头共享一份 K/V',
  'gqa.caption': `第 11 课 §2.7 与 §5.4，在第 11 课的实验模型 lab-a 上（随机权重，未训练）：每层 4 个 q 头、2 个 kv 头，repeat_kv 把每个 kv 头复制给 2 个 q 头：第 0、1 个头读 kv 头 0，第 2、3 个头读 kv 头 1（见每张图的标题）。共享 K/V 的两个头 Q 不同，所以注意力仍然不同。项目训练的模型每层 4 个 kv 头，每个头有自己的 K/V：用 2 个 kv 头训练时，最好的前一个 token 头只有 ${kv2}，用 4 个有 ${kv4}（见它的模型卡）。`,
  'lab-a.title': '§6 实验 A：追踪完整 Attention 流程',
  'lab-a.caption':
    '第 11 课 §6 实验 A：核心在 lab-a（hidden_size 64，4 个 q 头，2 个 kv 头）上得到的实验记录，逐行对照课程“你应该看到”的值：x.shape=(2, 5, 64)，k_proj(x).shape=(2, 5, 32)，scores.shape=(2, 4, 5, 5)，future_attention_mass_for_batch0_head0=0.0000000000。图中还有 batch 0、head 0 的注意力权重：下三角有效，未来位置都是 0。manual_vs_module_max_abs_diff 比较手写公式与模块的输出。',
  'lab-b.title': '§6 实验 B：改变 head 配置',
  'lab-b.caption':
    '第 11 课 §6 实验 B：hidden_size 96、6 个 q 头、3 个 kv 头，于是 head_dim = 96 / 6 = 16；xq.shape=(2, 5, 6, 16)，repeat_kv 之后 K 也是 6 个头 (2, 5, 6, 16)，scores.shape=(2, 6, 5, 5)。head 配置改变的是 Attention 内部的多头形状，输出仍回到 [batch, seq, hidden_size]。',
};

const en = {
  'gallery.title': 'MiniMind attention gallery',
  'gallery.intro':
    'Every attention example of the lessons as a live figure, computed in your browser by a C++ core compiled to WebAssembly that matches MiniMind’s PyTorch code. Under each figure: a link that opens it in the playground, and the code to paste into a course page.',
  'gallery.playground': 'Open the playground',
  'gallery.language': 'Language',
  'gallery.contents': 'Contents',
  'gallery.snippet': 'Embed code',
  'gallery.snippetHint':
    'Paste into a course page: the <script> once per page, one <minimind-attention> element per figure; add lang="zh-CN" or lang="en" to fix its language.',
  'gallery.iframeHint': 'Paste into any page or a Jupyter notebook: the iframe holds the playground’s compact view, no <script> needed.',
  'gallery.frameTitle': 'MiniMind attention: the scores after the mask',
  'section.lesson-2.5': 'Lesson 2.5: attention and the causal mask',
  'section.lesson-2.5.intro':
    'The worked examples: each figure is computed by the core from the lesson’s Q and K (or its scores), to the decimals the lesson prints. Where the lesson rounded or drew an illustration, the figure shows the exact values and the caption says so.',
  'section.lesson-11': 'Lesson 11: attention, from the idea to MiniMind’s source',
  'section.lesson-11.intro':
    'A real MiniMind attention layer. The sentence figures use the small MiniMind this project trained (minimind-demo, trained): the text is split by MiniMind’s tokenizer after the bos <|im_start|>, as MiniMind reads its pretraining texts. Labs A and B use the lesson’s small lab models lab-a and lab-b (random weights, untrained): look at their shapes, not for learned patterns.',

  'she.ref': '§2 hands-on',
  'she.caption':
    'Lesson 2.5 §2, hands-on: scores = Q @ K.T, then a softmax along each row (no ÷ √d and no mask in this example). Read the row of 她: 0.4925 / 0.1277 / 0.3798, which the lesson prints with :.3f as 她→小红 0.493, 她→很 0.128, 她→她 0.380 — digit for digit. 她 attends most to 小红.',
  'flow.ref': '§3 the self-attention flow',
  'flow.caption':
    'Lesson 2.5 §3: the lesson gives these 3×3 scores, divides them by √4 = 2 (step 3) and applies softmax (step 4). Its step-4 weights (0.65 / 0.10 / 0.25 for 她) are an illustration; the true softmax of these scores is much flatter: 0.39 / 0.26 / 0.35. (To divide by √4, Q holds the scores plus a column of zeros and K is the identity.)',
  'softmax.ref': '§3 why divide by √d',
  'softmax.caption':
    'Lesson 2.5 §3, why divide by √d: two rows of scores in the same proportions. The small [1, 2, 3] give 0.09 / 0.24 / 0.67, a spread-out distribution; the large [10, 20, 30] give 0.00 / 0.00 / 1.00, winner takes all. Dividing Q·Kᵀ by √d keeps the scores in the first regime.',
  'random.ref': '§3 hands-on (random W)',
  'random.caption':
    'Lesson 2.5 §3, the second hands-on: the lesson ran it with random W_Q and W_K, so only its printed scores can be reproduced (typed as Q plus a column of zeros, with K the identity). All three weights are close to 1/3: 她’s input resembles 小红’s, yet 她 need not attend to 小红 most, because Q and K pass through W_Q and W_K first. The lesson computed from unrounded scores, so the 4th decimal may differ by 1; to 3 decimals (她→很 0.349) they agree.',
  'masked-softmax.ref': '§4 code, step 2',
  'masked-softmax.caption':
    'Lesson 2.5 §4, code step 2: set the third score to −∞ and its weight after softmax is exactly 0; the other two share the whole weight as 0.27 / 0.73, still summing to 1.',
  'causal.ref': '§4 the causal mask',
  'causal.caption':
    'Lesson 2.5 §4, the causal mask: scores above the diagonal become −∞, their weights exactly 0, and every row still sums to 1. The figure shows exact values (4 decimals): row 天气 is 0.4750 / 0.5250, which the lesson rounded to 0.47 / 0.53 (0.48 / 0.52 to two decimals); its rows 很 and 好 are illustrations — the exact softmax of these scores is 0.28 / 0.41 / 0.31 and 0.19 / 0.26 / 0.21 / 0.35.',

  'sentence.title': '§2.6 The lesson’s sentence (the trained model, its pronoun head)',
  'sentence.caption':
    'Lesson 11 §2.6 and §3 step 7: softmax(QKᵀ / √head_dim + mask) of “小明把苹果给了小红，她很开心” in the trained MiniMind, at its pronoun head (the head that heads.json measured, on held-out sentences, to attend most from a pronoun to the name it refers to; the title says which). Read the row of 她: its largest weight is on the tokens of 小红 (小, 红). Each row is a query that sees only itself and the tokens before it: every weight above the diagonal (hatched) is 0 and each row sums to 1; the first column is the bos <|im_start|>, where many rows put the attention they have no use for (a “sink”).',
  'mask-off.title': '§2.4 The causal mask switched off',
  'mask-off.caption':
    'Lesson 11 §2.4: the same head without the causal mask (causal="false"). Every row but the last now gives some weight to later tokens, and the first row, the bos, is no longer 1.00 — in training that is reading the answer, and next-token prediction cheats. The model was trained with the mask, so these weights mean nothing it learned; compare with the lower triangle above.',
  'raw-scaled.title': '§2.3 Raw scores QKᵀ and ÷ √head_dim',
  'raw-scaled.caption':
    'Lesson 11 §2.3 and §5.2: on the left the raw scores q·k (QKᵀ), on the right the same divided by √head_dim. The pattern is the same and every value shrinks by the same factor, so softmax does not turn extreme too early. Both come before the mask: the future still has values.',
  'masked-iframe.title': '§5.3 The mask is added before softmax (as an iframe)',
  'masked-iframe.caption':
    'Lesson 11 §5.3, embedded as an iframe of the playground’s compact view: the causal mask is added to the scores before softmax, the future becomes −∞ (hatched), and after softmax its weights are 0. The iframe works on any page and in Jupyter; every other figure here is the <minimind-attention> element.',
  'why.title': 'Ask the model why: the pronoun story (as an iframe)',
  'why.caption':
    'How the trained model resolves a pronoun, told with three interpretability tools (named as in TransformerLens): the logit lens shows from which layer the first token of 小红’s habit becomes the top prediction after 她; activation patching flips 她 to 他 and shows which head’s output, put back, restores the answer; direct logit attribution shows how much of logit(answer) − logit(wrong) the pronoun head writes. The answer and wrong tokens come from the training corpus’s generator; every number is computed live in your browser.',
  'why-pronoun.title': 'Why this weight: what the pronoun head looks for (as an iframe)',
  'why-pronoun.caption': pronounCaption('en'),
  'why-induction.title': 'Why this weight: who writes an induction head’s key (as an iframe)',
  'why-induction.caption': inductionCaption('en'),
  'gqa.title': '§2.7 / §5.4 GQA: q heads sharing one K/V',
  'gqa.caption': `Lesson 11 §2.7 and §5.4, on lesson 11’s lab model lab-a (random weights, untrained): 4 q heads and 2 kv heads per layer, and repeat_kv gives each kv head to 2 q heads: heads 0 and 1 read kv head 0, heads 2 and 3 read kv head 1 (see each title). Two heads sharing K/V still attend differently, because their Q differ. The project’s trained model has 4 kv heads, one per head: trained with 2, its best previous-token head reached ${kv2}; with 4, ${kv4} (see its model card).`,
  'lab-a.title': '§6 Lab A: trace the whole attention',
  'lab-a.caption':
    'Lesson 11 §6, lab A: the record the core computes on lab-a (hidden_size 64, 4 q heads, 2 kv heads), line by line against what the lesson says you should see: x.shape=(2, 5, 64), k_proj(x).shape=(2, 5, 32), scores.shape=(2, 4, 5, 5), future_attention_mass_for_batch0_head0=0.0000000000. The figure also shows the weights of batch 0, head 0: lower-triangular, every future weight 0. manual_vs_module_max_abs_diff compares the hand-written formula with the module.',
  'lab-b.title': '§6 Lab B: change the head configuration',
  'lab-b.caption':
    'Lesson 11 §6, lab B: hidden_size 96, 6 q heads, 3 kv heads, so head_dim = 96 / 6 = 16; xq.shape=(2, 5, 6, 16), K after repeat_kv has 6 heads too (2, 5, 6, 16), and scores.shape=(2, 6, 5, 5). The head configuration changes the shapes inside attention; the output still returns to [batch, seq, hidden_size].',
};

export const GALLERY_TEXT = { 'zh-CN': zhCN, en };
