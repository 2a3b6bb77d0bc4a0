// The training corpus of the project's own MiniMind: MiniMind pretraining JSONL
// ({"text": ...} per line) of Chinese written without spaces, in the lessons'
// world (people, objects, giving, feelings, weather), built so that attention
// has to do what the lessons say:
//
// - Pronouns. A pronoun sentence names one male and one female person, so the
//   pronoun's gender decides its referent, and the pronoun is followed by the
//   referent's own habit (小红 always 唱起了歌, 小明 always 踢起了球, every name
//   its own verb): `小明把书给了小红，她唱起了歌。`. The token right after 他/她 can
//   only be predicted by resolving the pronoun; the referent is the first-named
//   person as often as the second (at random), in 13 frames, after prefixes of
//   varying length, so position never gives it away.
// - Induction. Random spans of characters or words said twice, after a frame
//   (`小明说：猫、红色、三、书。小红又说了一遍：猫、红色、三、书。`) or bare, with
//   nothing between (`爷从路见酸先跳爷从路见酸先跳。`, as the induction probe is
//   built), so copying from earlier context pays.
// - The names. 小明 and 小红 (the lesson's) are drawn 4 times as often as any
//   other; no two names start with the same token (王强, 苏静, 春花, ...), so
//   that the token before a name's second token always says which name it is.
// - Held out. Some name pairs never meet in training, and some pair × frame ×
//   object combinations (the lesson's `小明把苹果给了小红` among them, in either
//   order) never occur: the probes below are built from them only.
//
//   node scripts/make_corpus.mjs --seed 1 --lines 450000 --pack-tokens --out corpus.jsonl [--probes probes.json]
//   writes it (scripts/make_corpus.mjs is the command line; this module the generator).
//
// Deterministic from the seed (its own xoshiro128** generator, never Math.random).
// Exports the generator and the probe sets for the tests and the model card:
//   import { makeCorpusLines, heldOutPronounProbes, lessonProbes, repeatedTokenProbes } from './corpus.mjs';

import { checkCount, checkPositiveInteger } from './argument_checks.mjs';
import { argumentError } from './minimind_error.mjs';

// ---------------------------------------------------------------- the world

/**
 * Male names and their habits (every name 1-2 tokens; every habit's first
 * token its own). Apart from the lesson's 小明 and 小红, no name starts with
 * 小 or with another name's first token: when 38 of the 40 names were 小X, a
 * name's second token followed the same 小 everywhere, the previous token said
 * nothing there, and the previous-token head looked past it (0.35 on i−1
 * after 小 against 0.64 elsewhere); with distinct first tokens the same
 * training reached 0.75 overall (measured with `minimind heads`).
 */
const MALE_HABITS = Object.freeze({
  小明: '踢起了球',
  王强: '打起了鼓',
  李军: '跑起了步',
  黄亮: '游起了泳',
  周波: '拍起了手',
  马宇: '看起了书',
  何天: '讲起了故事',
  高武: '练起了字',
  林光: '扫起了地',
  罗成: '玩起了游戏',
  许东: '修起了车',
  文博: '学起了英语',
  志强: '养起了鱼',
  建国: '种起了树',
  长江: '做起了题',
  德明: '洗起了手',
  立新: '吃起了面',
  卫东: '开起了车',
  朝阳: '算起了数',
  胜利: '找起了书',
});

/** Female names and their habits. */
export const FEMALE_HABITS = Object.freeze({
  小红: '唱起了歌',
  苏静: '跳起了舞',
  叶兰: '画起了画',
  夏雨: '读起了诗',
  任月: '写起了信',
  范青: '折起了纸',
  方慧: '剪起了纸',
  石佳: '聊起了天',
  金花: '听起了音乐',
  白雪: '拉起了手',
  毛敏: '放起了音乐',
  顾静: '走起了路',
  春花: '想起了家',
  秋月: '教起了字',
  丽华: '演起了戏',
  秀英: '排起了队',
  思雨: '卖起了花',
  银花: '买起了菜',
  爱华: '背起了书',
  海洋: '数起了钱',
});

export const MALE_NAMES = Object.freeze(Object.keys(MALE_HABITS));
export const FEMALE_NAMES = Object.freeze(Object.keys(FEMALE_HABITS));
/** Every name's habit. */
export const HABITS = Object.freeze({ ...MALE_HABITS, ...FEMALE_HABITS });
/** 'male' or 'female' by name. */
export const GENDER = Object.freeze(Object.fromEntries([...MALE_NAMES.map((n) => [n, 'male']), ...FEMALE_NAMES.map((n) => [n, 'female'])]));
export const PRONOUN = Object.freeze({ male: '他', female: '她' });

/** What may follow a pronoun instead of a habit, in a few lines (the lesson's wording). */
export const FEELINGS = Object.freeze(['很开心', '很高兴', '笑了']);

/** Objects with their measure words; `food` can be eaten. */
const ITEMS = [
  ['苹果', '个', true],
  ['书', '本'],
  ['花', '朵'],
  ['笔', '支'],
  ['球', '个'],
  ['信', '封'],
  ['蛋糕', '块', true],
  ['帽子', '顶'],
  ['杯子', '个'],
  ['风筝', '只'],
  ['伞', '把'],
  ['糖', '颗', true],
  ['香蕉', '根', true],
  ['橘子', '个', true],
  ['围巾', '条'],
  ['手表', '块'],
  ['气球', '个'],
  ['饼干', '块', true],
  ['礼物', '份'],
  ['西瓜', '个', true],
  ['铅笔', '支'],
  ['玩具', '个'],
  ['面包', '个', true],
  ['包子', '个', true],
];
const MEASURE = Object.fromEntries(ITEMS.map(([o, m]) => [o, m]));
export const OBJECTS = Object.freeze(ITEMS.map(([o]) => o));
const FOODS = Object.freeze(ITEMS.filter((i) => i[2]).map(([o]) => o));
export const PLACES = Object.freeze(['公园', '学校', '商店', '海边', '图书馆', '动物园', '河边', '超市', '操场', '电影院', '博物馆']);

/**
 * The pronoun frames: the clause naming the first-mentioned person `a`, the
 * second `b` and the object or place `o`; the pronoun and what follows it come
 * after `，`. `weight` is how often the frame is drawn ('give' is the lesson's).
 */
export const FRAMES = Object.freeze([
  { id: 'give', weight: 4, objects: OBJECTS, clause: (a, b, o) => `${a}把${o}给了${b}` },
  { id: 'send', weight: 1.5, objects: OBJECTS, clause: (a, b, o) => `${a}送给${b}一${MEASURE[o]}${o}` },
  { id: 'bring', weight: 1, objects: OBJECTS, clause: (a, b, o) => `${a}给${b}带了一${MEASURE[o]}${o}` },
  { id: 'return', weight: 1, objects: OBJECTS, clause: (a, b, o) => `${a}把${o}还给了${b}` },
  { id: 'borrow', weight: 1, objects: OBJECTS, clause: (a, b, o) => `${a}向${b}借了一${MEASURE[o]}${o}` },
  { id: 'find', weight: 1, objects: OBJECTS, clause: (a, b, o) => `${a}帮${b}找到了${o}` },
  { id: 'see', weight: 1, objects: OBJECTS, clause: (a, b, o) => `${a}看见${b}拿着一${MEASURE[o]}${o}` },
  { id: 'treat', weight: 1, objects: FOODS, clause: (a, b, o) => `${a}请${b}吃${o}` },
  { id: 'go', weight: 1.5, objects: PLACES, clause: (a, b, o) => `${a}和${b}一起去${o}` },
  { id: 'meet', weight: 1, objects: PLACES, clause: (a, b, o) => `${a}在${o}遇见了${b}` },
  { id: 'wait', weight: 0.7, objects: PLACES, clause: (a, b, o) => `${a}在${o}等${b}` },
  { id: 'call', weight: 0.7, objects: [null], clause: (a, b) => `${a}给${b}打了一个电话` },
  { id: 'visit', weight: 0.7, objects: [null], clause: (a, b) => `${a}去${b}家玩` },
]);
const FRAME_BY_ID = Object.fromEntries(FRAMES.map((f) => [f.id, f]));

const TIMES = ['早上', '下午', '晚上', '星期天', '有一天', '放学以后', '周末', '今天', '昨天', '中午'];
const WEATHER = ['今天天气很好', '今天下雨了', '外面下雪了', '天气很冷', '太阳出来了', '今天风很大', '今天天气不好', '天很蓝', '今天很热'];
const TAILS = ['大家都很开心。', '真是快乐的一天。', '天慢慢黑了。', '后来下起了雨。', '这一天过得很快。'];
const MOODS = ['很开心', '很高兴', '有点难过', '有点累', '笑了', '很生气', '哭了'];
/** Words for the repeated spans: no names, no 小, no pronouns. */
const WORDS = [
  ...OBJECTS,
  ...PLACES,
  ...'猫 狗 鸟 鱼 马 牛 羊 兔子 山 水 火 风 雨 云 天 月亮 太阳 星星 树 草 河 桥 车 船 门 窗 桌子 椅子 床 灯 家 路 米 茶 水果 书包'.split(
    ' ',
  ),
  ...'红色 蓝色 绿色 白色 黄色 黑色 大 高 快 慢 多 少 好 新 老 长 短 冷 热 一 二 三 四 五 六 七 八 九 十 百'.split(' '),
  ...'春天 夏天 秋天 冬天 东 西 南 北 左 右 上 下 跑 跳 走 看 听 说 写 读 画 吃 喝 飞 坐 开 关 来 去 笑 哭'.split(' '),
];
/** Common characters for repeated spans over a broader vocabulary (no 小, 他, 她: see below). */
const CHARACTERS = [
  ...new Set(
    '的一是不了人我在有这为之大来以个中上到说国和地也子时道出而要于就下得可你年生自会那后能对着事其里所去行过家十用发天如然作方成者多日都三二无同么经法当起与好看学进种将还分此心前面又定见只主没公从知全点长已开实现动高问力理明工体意本样新月水手外头两机关文间正老果重回百电听白先表气身向立名给色路北员走门西吃山书黑红话平感真美花车爱做喜欢买早晚春夏秋冬风雨雪云星河海树草鸟鱼猫狗马牛羊米茶饭菜包杯笔桌椅床灯窗衣帽鞋球画歌舞跑跳唱读写玩笑哭睡站坐飞南东左右远近快慢冷热甜酸苦香亮暗新旧少干净金木火土石田林村城街桥船楼房园校店朋友爸妈哥姐弟妹爷奶叔阿姨',
  ),
].filter((c) => !'小他她'.includes(c));
const INDUCTION_FRAMES = [
  (a, b, x) => `${a}说：${x}。${b}又说了一遍：${x}。`,
  (a, b, x) => `${a}说：${x}。${b}也说：${x}。`,
  (a, b, x) => `${a}在本子上写了：${x}。${b}照着写了一遍：${x}。`,
  (a, b, x) => `老师说：${x}。${a}跟着说：${x}。`,
  (a, b, x) => `${a}念道：${x}。大家一起念：${x}。`,
  (a, b, x) => `请记住：${x}。${a}记住了：${x}。`,
  (a, b, x) => `${a}告诉${b}：${x}。${b}说：${x}。`,
  (a, b, x) => `跟我念：${x}。${x}。`,
];
/**
 * Spans said twice with nothing between, as Olsson et al.'s induction probe
 * is built (a random sequence repeated): without these the copying heads
 * learn to copy only after a frame's "又说了一遍：", and score 0.3 on the probe
 * while copying 0.9 of a framed span (measured on the first trained model).
 */
const BARE_REPEATS = [(x) => `${x}${x}。`, (x) => `${x}，${x}。`, (x) => ([...x].length <= 14 ? `${x}${x}${x}。` : `${x}${x}。`)];

// ---------------------------------------------------------------- the generator

/**
 * xoshiro128** seeded through SplitMix32 from an integer seed: the same numbers on every platform.
 * `state` (four 32-bit words from an earlier generator's rng.state()) continues that generator instead.
 */
export function makeRng(seed, { state = null } = {}) {
  if (!Number.isSafeInteger(seed))
    throw argumentError(TypeError, 'api.not_integer', { name: 'seed', got: String(seed) }, `seed must be a safe integer, got ${seed}`);
  if (state !== null && !(Array.isArray(state) && state.length === 4 && state.every((w) => Number.isInteger(w) && w >= 0 && w < 2 ** 32)))
    throw argumentError(TypeError, 'api.not_rng_state', {}, 'state must be four integers in [0, 2^32), as rng.state() gives them');
  let sm = (seed >>> 0) ^ Math.imul(Math.floor(seed / 4294967296) >>> 0, 0x9e3779b9);
  const splitmix32 = () => {
    sm = (sm + 0x9e3779b9) | 0;
    let z = sm;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  const s = state ? [...state] : [splitmix32(), splitmix32(), splitmix32(), splitmix32()];
  const rotl = (x, k) => (x << k) | (x >>> (32 - k));
  const next = () => {
    const result = Math.imul(rotl(Math.imul(s[1], 5), 7), 9) >>> 0;
    const t = s[1] << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  };
  const rng = {
    next,
    /** The generator's four 32-bit words: makeRng(seed, {state}) goes on from here. */
    state: () => s.map((w) => w >>> 0),
    /** Uniform in [0, n). */
    int: (n) => Math.floor((next() / 4294967296) * n),
    float: () => next() / 4294967296,
    chance: (p) => next() / 4294967296 < p,
    pick: (array) => array[rng.int(array.length)],
    /** Picks from [{weight}, ...]. */
    weighted: (items) => {
      let r = rng.float() * items.reduce((sum, item) => sum + item.weight, 0);
      for (const item of items) if ((r -= item.weight) < 0) return item;
      return items[items.length - 1];
    },
    shuffle: (array) => {
      for (let i = array.length - 1; i > 0; i--) {
        const j = rng.int(i + 1);
        [array[i], array[j]] = [array[j], array[i]];
      }
      return array;
    },
  };
  return rng;
}

/** FNV-1a over a string's UTF-16 units: the fixed hash that picks held-out combinations. */
function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

// ---------------------------------------------------------------- held out

const HELD_OUT_SEED = 20240601; // fixed: the held-out set does not depend on the corpus seed
const HELD_OUT_COMBO_PERCENT = 4;
/** The lesson's sentence: its pair × frame × object is held out (both orders, both pronouns). */
const LESSON = { male: '小明', female: '小红', frame: 'give', object: '苹果' };

/** Held-out pairs: every male meets one female he never meets in training (小明 and 小红 are not one of them). */
export const HELD_OUT_PAIRS = Object.freeze(
  (() => {
    const females = makeRng(HELD_OUT_SEED).shuffle([...FEMALE_NAMES]);
    const i = MALE_NAMES.indexOf(LESSON.male);
    const j = females.indexOf(LESSON.female);
    if (i === j) [females[j], females[(j + 1) % females.length]] = [females[(j + 1) % females.length], females[j]];
    return MALE_NAMES.map((m, k) => Object.freeze([m, females[k]]));
  })(),
);
const HELD_OUT_PAIR_KEYS = new Set(HELD_OUT_PAIRS.map(([m, f]) => `${m}|${f}`));

/** Whether a male and a female name never meet in training. */
function isHeldOutPair(male, female) {
  return HELD_OUT_PAIR_KEYS.has(`${male}|${female}`);
}

/** Whether a pair × frame × object combination is held out (the pair met elsewhere). */
function isHeldOutCombo(male, female, frame, object) {
  if (male === LESSON.male && female === LESSON.female && frame === LESSON.frame && object === LESSON.object) return true;
  return fnv1a(`${male}|${female}|${frame}|${object}`) % 100 < HELD_OUT_COMBO_PERCENT;
}

/** Whether any pronoun sentence of this pair, frame and object is held out of training. */
export function isHeldOut(male, female, frame, object) {
  return isHeldOutPair(male, female) || isHeldOutCombo(male, female, frame, object);
}

let heldOutCombosCache = null;
/** Every held-out combination of a pair that does meet in training: [{male, female, frame, object, clauses}]. */
export function heldOutCombos() {
  if (!heldOutCombosCache) {
    heldOutCombosCache = [];
    for (const male of MALE_NAMES)
      for (const female of FEMALE_NAMES) {
        if (isHeldOutPair(male, female)) continue;
        for (const frame of FRAMES)
          for (const object of frame.objects)
            if (isHeldOutCombo(male, female, frame.id, object))
              heldOutCombosCache.push(
                Object.freeze({
                  male,
                  female,
                  frame: frame.id,
                  object,
                  clauses: Object.freeze([frame.clause(male, female, object), frame.clause(female, male, object)]),
                }),
              );
      }
    Object.freeze(heldOutCombosCache);
  }
  return heldOutCombosCache;
}

// ---------------------------------------------------------------- sentences

/**
 * The lesson's two names are drawn 4 times as often as any other: 小明 is
 * the one name that MiniMind's tokenizer keeps as one token, so its key must
 * be learnt on its own, and a first model trained with all names equally
 * often put only 0.32-0.45 of 他's attention on 小明 (0.8-0.9 on the others).
 */
const NAME_WEIGHT = Object.freeze({ 小明: 4, 小红: 4 });
const weightedNames = (names) => Object.freeze(names.map((name) => ({ name, weight: NAME_WEIGHT[name] ?? 1 })));
const WEIGHTED = new Map([
  [MALE_NAMES, weightedNames(MALE_NAMES)],
  [FEMALE_NAMES, weightedNames(FEMALE_NAMES)],
  [null, weightedNames([...MALE_NAMES, ...FEMALE_NAMES])],
]);
/** A name of `names` (MALE_NAMES, FEMALE_NAMES, or either when null), the lesson's more often. */
function pickName(rng, names = null) {
  return rng.weighted(WEIGHTED.get(names)).name;
}

/** One pronoun sentence, without the final 。: {text, male, female, frame, object, referent, other, first, ending}. */
function pronounSentence(rng, pair = null, { feelingChance = 0.06, allowHeldOut = false } = {}) {
  for (;;) {
    const male = pair ? pair[0] : pickName(rng, MALE_NAMES);
    const female = pair ? pair[1] : pickName(rng, FEMALE_NAMES);
    const frame = rng.weighted(FRAMES);
    const object = rng.pick(frame.objects);
    if (!allowHeldOut && isHeldOut(male, female, frame.id, object)) continue;
    const maleFirst = rng.chance(0.5);
    const referentIsMale = rng.chance(0.5);
    const [a, b] = maleFirst ? [male, female] : [female, male];
    const referent = referentIsMale ? male : female;
    const other = referentIsMale ? female : male;
    const pronoun = PRONOUN[GENDER[referent]];
    const ending = rng.chance(feelingChance) ? (rng.chance(0.5) ? '很开心' : rng.pick(FEELINGS)) : HABITS[referent];
    const text = `${frame.clause(a, b, object)}，${pronoun}${ending}`;
    return { text, male, female, frame: frame.id, object, referent, other, first: referent === a, ending };
  }
}

function contextPrefix(rng) {
  const r = rng.float();
  if (r < 0.4) return '';
  if (r < 0.6) return `${rng.pick(TIMES)}，`;
  if (r < 0.8) return `${rng.pick(WEATHER)}。`;
  if (r < 0.9) return `${rng.pick(WEATHER)}，`;
  return `${rng.pick(TIMES)}，${rng.pick(WEATHER)}。`;
}

function pronounLine(rng) {
  const first = pronounSentence(rng);
  const pair = [first.male, first.female];
  let text = contextPrefix(rng);
  if (rng.chance(0.1)) text += rng.chance(0.5) ? `${first.male}和${first.female}是好朋友。` : `${first.female}和${first.male}是好朋友。`;
  text += `${first.text}。`;
  if (rng.chance(0.25)) text += `${pronounSentence(rng, pair).text}。`;
  if (rng.chance(0.15)) text += rng.pick(TAILS);
  return text;
}

/**
 * A span to repeat: 6-21 random common characters (high entropy, so only
 * copying predicts the repeat; a broad vocabulary, so copying is learnt for
 * more than the world's words), 4-7 words listed with 、, 4-10 words run
 * together, or a name's habit sentence (copying in natural text too).
 */
function repeatedSpan(rng, name) {
  const r = rng.float();
  if (r < 0.6) return Array.from({ length: 6 + rng.int(16) }, () => rng.pick(CHARACTERS)).join('');
  if (r < 0.9) {
    const listed = r < 0.75;
    const words = Array.from({ length: 4 + rng.int(listed ? 4 : 7) }, () => rng.pick(WORDS));
    return words.join(listed ? '、' : '');
  }
  return `${rng.pick(TIMES)}${name}${HABITS[name]}`;
}

/** Two speakers who may share a line (a held-out pair never does). */
function twoNames(rng) {
  for (;;) {
    const a = pickName(rng);
    const b = pickName(rng);
    if (a === b) continue;
    const [m, f] = GENDER[a] === 'male' ? [a, b] : [b, a];
    if (GENDER[m] === 'male' && GENDER[f] === 'female' && isHeldOutPair(m, f)) continue;
    return [a, b];
  }
}

/**
 * A pronoun sentence said twice: copying it needs, at every position of the
 * first saying, a head that reads the token before (the previous-token head
 * an induction head composes with), on the same kind of text as the
 * previous-token probe. Frames without names, so a sentence still names
 * just its two people.
 */
const SENTENCE_REPEATS = [
  (x) => `${x}。${x}。`,
  (x) => `老师说：${x}。大家一起念：${x}。`,
  (x) => `请记住：${x}。${x}。`,
  (x) => `跟我念：${x}。${x}。`,
];

function inductionLine(rng) {
  if (rng.chance(0.3)) return rng.pick(SENTENCE_REPEATS)(pronounSentence(rng).text);
  const [a, b] = twoNames(rng);
  const span = repeatedSpan(rng, a);
  return rng.chance(0.4) ? rng.pick(BARE_REPEATS)(span) : rng.pick(INDUCTION_FRAMES)(a, b, span);
}

function moodLine(rng) {
  const name = pickName(rng);
  const r = rng.float();
  if (r < 0.3) return `${rng.pick(WEATHER)}。${name}${rng.pick(MOODS)}。`;
  if (r < 0.6) return `${rng.pick(WEATHER)}，${name}${rng.pick(MOODS)}。`;
  if (r < 0.8) return `${name}${rng.pick(TIMES)}${rng.pick(MOODS)}。`;
  return `${rng.pick(WEATHER)}，大家都很开心。`;
}

function habitLine(rng) {
  const name = pickName(rng);
  return `${contextPrefix(rng)}${name}${HABITS[name]}。`;
}

/** Line kinds and their shares. */
export const LINE_KINDS = Object.freeze([
  { kind: 'pronoun', weight: 0.45, make: pronounLine },
  // Copying must pay often enough for induction heads (and the previous-token
  // heads they read) to form: a first training run with 20% of such lines
  // (and shorter, lower-entropy spans) grew neither in 4M tokens.
  { kind: 'induction', weight: 0.41, make: inductionLine },
  { kind: 'mood', weight: 0.08, make: moodLine },
  { kind: 'habit', weight: 0.06, make: habitLine },
]);

/**
 * `count` corpus texts (no spaces, no newlines), the same for the same seed.
 * mix: {kind: weight} in place of LINE_KINDS' weights (kinds left out are
 * not written), e.g. more copying for a model that must learn fast.
 */
export function makeCorpusLines(count, seed = 1, { mix = null } = {}) {
  checkCount(count, 'count');
  const kinds = mix === null ? LINE_KINDS : mixedKinds(mix);
  const rng = makeRng(seed);
  const lines = new Array(count);
  for (let i = 0; i < count; i++) lines[i] = rng.weighted(kinds).make(rng);
  return lines;
}

/** LINE_KINDS with `mix`'s weights ({kind: weight}; kinds left out are dropped). */
export function mixedKinds(mix) {
  const known = new Set(LINE_KINDS.map((k) => k.kind));
  for (const [kind, weight] of Object.entries(mix)) {
    if (!known.has(kind))
      throw argumentError(
        RangeError,
        'corpus.unknown_kind',
        { kind, known: [...known].join(', ') },
        `mix: unknown line kind "${kind}" (known: ${[...known].join(', ')})`,
      );
    if (!(Number.isFinite(weight) && weight >= 0))
      throw argumentError(
        RangeError,
        'corpus.bad_weight',
        { kind, got: String(weight) },
        `mix: the weight of "${kind}" must be a number ≥ 0, got ${weight}`,
      );
  }
  const kinds = LINE_KINDS.filter((k) => mix[k.kind] > 0).map((k) => ({ ...k, weight: mix[k.kind] }));
  if (kinds.length === 0) throw argumentError(RangeError, 'corpus.no_weight', {}, 'mix: give some line kind a weight above 0');
  return kinds;
}

/**
 * Joins consecutive texts while the joined text has at most `maxChars`
 * characters (a text longer than that stays alone): fewer, longer lines, so
 * less of a max_seq_len window is padding and sentences start at more
 * positions. About 0.97 tokens per character: at 56 characters 99.9% of the lines fit max_seq_len 64.
 */
export function packLines(lines, maxChars) {
  const packed = [];
  let current = '';
  let length = 0;
  for (const line of lines) {
    const n = [...line].length;
    if (length > 0 && length + n > maxChars) (packed.push(current), (current = ''), (length = 0));
    current += line;
    length += n;
  }
  if (length > 0) packed.push(current);
  return packed;
}

/**
 * Packs texts into lines of at most `maxTokens` tokens by `countTokens(text)`
 * (MiniMind's tokenizer; the count of the joined text itself, since BPE may
 * merge across the seam), so that little of each max_seq_len window is
 * padding (maxTokens = max_seq_len - 2, for bos and eos). First fit over the
 * `window` lines still open: a text joins the oldest open line it fits in,
 * else opens one; the oldest is written out when more than `window` are open.
 * Texts keep their order within a line; a text too long for any stays alone.
 */
export function packLinesByTokens(lines, countTokens, maxTokens, window = 8) {
  checkPositiveInteger(maxTokens, 'maxTokens');
  checkPositiveInteger(window, 'window');
  const packed = [];
  const open = []; // [{text, tokens}], oldest first
  for (const line of lines) {
    let placed = false;
    for (let i = 0; i < open.length && !placed; i++) {
      const tokens = countTokens(open[i].text + line);
      if (tokens > maxTokens) continue;
      open[i] = { text: open[i].text + line, tokens };
      placed = true;
      if (tokens >= maxTokens - 1) packed.push(open.splice(i, 1)[0].text); // full
    }
    if (placed) continue;
    open.push({ text: line, tokens: countTokens(line) });
    if (open.length > window) packed.push(open.shift().text);
  }
  for (const { text } of open) packed.push(text);
  return packed;
}

/** The corpus as MiniMind pretraining JSONL text. */
export function corpusJsonl(lines) {
  return lines.map((text) => JSON.stringify({ text })).join('\n') + '\n';
}

// ---------------------------------------------------------------- probes

/**
 * The lesson's sentence and its three swaps, each with its referent; none of
 * their pair × frame × object combinations is in training.
 */
export function lessonProbes() {
  const probe = (a, b, pronoun) => {
    const referent = GENDER[a] === (pronoun === '他' ? 'male' : 'female') ? a : b;
    const text = `${a}把苹果给了${b}，${pronoun}很开心`;
    return { text, prefix: `${a}把苹果给了${b}，${pronoun}`, referent, other: referent === a ? b : a, pronoun, first: referent === a };
  };
  return [probe('小明', '小红', '她'), probe('小红', '小明', '他'), probe('小明', '小红', '他'), probe('小红', '小明', '她')];
}

/**
 * `count` pronoun sentences built only from held-out combinations: even
 * indices from the held-out pairs (names that never meet in training), odd
 * ones from held-out pair × frame × object combinations. Each is
 * {text, prefix, referent, other, pronoun, habit, first, frame, object, kind},
 * `text` one sentence ending right after the referent's habit, `prefix` it up
 * to and including the pronoun; the referent is first in half of them.
 */
export function heldOutPronounProbes(count, seed = 1) {
  checkCount(count, 'count');
  const rng = makeRng(seed);
  const combos = heldOutCombos();
  const probes = [];
  for (let i = 0; i < count; i++) {
    const kind = i % 2 === 0 ? 'pair' : 'combo';
    let male, female, frame, object;
    if (kind === 'pair') {
      [male, female] = rng.pick(HELD_OUT_PAIRS);
      frame = rng.weighted(FRAMES);
      object = rng.pick(frame.objects);
    } else {
      const combo = rng.pick(combos);
      ({ male, female, object } = combo);
      frame = FRAME_BY_ID[combo.frame];
    }
    const first = i % 4 < 2; // referent first in exactly half, across both kinds
    const referentIsMale = rng.chance(0.5);
    const referent = referentIsMale ? male : female;
    const other = referentIsMale ? female : male;
    const [a, b] = first ? [referent, other] : [other, referent];
    const pronoun = PRONOUN[GENDER[referent]];
    const prefix = `${frame.clause(a, b, object)}，${pronoun}`;
    const habit = HABITS[referent];
    probes.push({ text: prefix + habit, prefix, referent, other, pronoun, habit, first, frame: frame.id, object, kind });
  }
  return probes;
}

/**
 * Olsson et al. (2022)'s induction probe: `count` sequences of `length` random
 * token ids (distinct within a sequence, from [minId, maxId], or from `pool`,
 * e.g. the ids the corpus uses: a model trained on this corpus never saw most
 * of 100..6399) said twice, so `ids` has 2 × length ids; prepend MiniMind's
 * bos (1) to run them. An induction head at position t of the second half
 * attends to t − length + 1.
 */
export function repeatedTokenProbes(count, seed = 1, { length = 20, minId = 100, maxId = 6399, pool = null } = {}) {
  checkCount(count, 'count');
  const ids = pool ? [...new Set(pool)] : null;
  const choices = ids ? ids.length : maxId - minId + 1;
  if (!Number.isSafeInteger(length) || length < 1 || length > choices)
    throw argumentError(
      RangeError,
      'api.out_of_range',
      { name: 'length', min: 1, max: choices, got: String(length) },
      `bad length ${length}`,
    );
  const rng = makeRng(seed);
  const probes = [];
  for (let i = 0; i < count; i++) {
    const seen = new Set();
    const half = [];
    while (half.length < length) {
      const id = ids ? ids[rng.int(choices)] : minId + rng.int(choices);
      if (!seen.has(id)) (seen.add(id), half.push(id));
    }
    probes.push({ ids: [...half, ...half], length });
  }
  return probes;
}

// ---------------------------------------------------------------- CLI
