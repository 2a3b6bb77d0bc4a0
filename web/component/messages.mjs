// The component's text (zh-CN, en). The terms it shares with the page (stage
// names, "masked", the caption and table caption) are copies of the page's
// (web/messages/), so that the bundle does not carry the page's whole
// catalogue; tests/browser/embed.test.mjs checks that they stay equal. The
// lesson views' text is in lesson_messages.mjs.
import { DEMO_TERM_KEYS, DEMO_TERMS } from '../messages/demo_terms.mjs';
import { LESSON_EN, LESSON_PAGE_TERMS, LESSON_ZH_CN } from './lesson_messages.mjs';

/** Keys whose text is the page's. */
export const PAGE_TERMS = [
  'view.title',
  'view.kvHead',
  'stage.scores_raw',
  'stage.scores_scaled',
  'stage.scores_masked',
  'stage.attn_weights',
  'matrix.label',
  'matrix.masked',
  'matrix.query',
  'matrix.key',
  'matrix.queryAxis',
  'matrix.keyAxis',
  'matrix.tableCaption',
  'table.scrollHint',
  ...LESSON_PAGE_TERMS,
  ...DEMO_TERM_KEYS,
];

const en = {
  'view.title': 'Layer {layer} · head {head} ({kvNote}) · {stage}',
  'view.kvHead': 'reads kv head {kv}',
  'stage.scores_raw': 'QKᵀ',
  'stage.scores_scaled': '÷ √d',
  'stage.scores_masked': '+ mask',
  'stage.attn_weights': 'softmax',
  'matrix.label': 'Attention matrix: rows are queries, columns are keys',
  'matrix.masked': 'masked (−∞ → 0)',
  'matrix.query': 'query',
  'matrix.key': 'key',
  'matrix.queryAxis': 'query (looking) ↓',
  'matrix.keyAxis': 'key (looked at) →',
  'matrix.tableCaption': 'Layer {layer}, head {head}, {stage}: rows = queries, columns = keys',
  'table.scrollHint': 'Scroll sideways for more →',
  'embed.loading': 'Loading MiniMind…',
  'embed.building': 'Building {name} ({params} parameters, random weights); the page may pause for a moment…',
  'embed.model': '{name} (untrained: random weights) · seed {seed}',
  'embed.downloading': 'Loading the trained {name}…',
  'embed.trainedConfig': 'config changes a preset’s shapes; the trained model’s are fixed: add a preset, e.g. preset="lab-a"',
  'embed.open': 'open in playground',
  'embed.error': 'This figure cannot be drawn: {message}',
  'embed.fixHint': 'Fix the attribute and the figure redraws.',
  'embed.moduleFailed': 'MiniMind’s WebAssembly module did not load from {url}',
  'embed.moduleInlineFailed': 'the WebAssembly inside minimind-attention.single.js did not start',
  'embed.modelFailed': 'the trained model’s files did not load from {url}',
  'embed.hostHint':
    'The figure loads these files from where its script is: host wasm/ and models/minimind-demo/ of dist/site/ beside minimind-attention.js; a server on another origin than this page must send Access-Control-Allow-Origin. Then reload the page.',
  'embed.inlineHint':
    'This page does not let scripts compile WebAssembly or generated code: a Content-Security-Policy must allow ‘unsafe-eval’ in script-src for the figure.',
  'embed.badConfig': 'config is not valid JSON',
  'embed.configNotObject': 'config must be a JSON object of config.json keys, e.g. {"num_attention_heads": 8}',
  'embed.badInteger': '{name} must be a whole number ≥ 0, got "{value}"',
  'embed.badChoice': '{name} must be one of {choices}, got "{value}"',
  'embed.badHeight': 'height must be a CSS length such as 320px or 40vh, got "{value}"',
  'embed.noLayer': 'layer {value} does not exist: {name} has {count} layers (0–{last})',
  'embed.noHead': 'head {value} does not exist: {name} has {count} heads (0–{last})',
  'embed.noTokens': 'text has no tokens: give at least one word',
  'embed.dropped': 'only the first {max} tokens are drawn',
  'embed.cell': '{query} → {key}: {value}',
  'embed.cellMasked': '{query} → {key}: masked (future token)',
  ...LESSON_EN,
  ...DEMO_TERMS.en,
};

const zhCN = {
  'view.title': '第 {layer} 层 · 第 {head} 个头（{kvNote}）· {stage}',
  'view.kvHead': '读取 kv 头 {kv}',
  'stage.scores_raw': 'QKᵀ',
  'stage.scores_scaled': '÷ √d',
  'stage.scores_masked': '+ 掩码',
  'stage.attn_weights': 'softmax',
  'matrix.label': '注意力矩阵：行是 query，列是 key',
  'matrix.masked': '被掩码（−∞ → 0）',
  'matrix.query': 'query',
  'matrix.key': 'key',
  'matrix.queryAxis': '查询（在看的）↓',
  'matrix.keyAxis': '被看的键 →',
  'matrix.tableCaption': '第 {layer} 层，第 {head} 个头，{stage}：行 = query，列 = key',
  'table.scrollHint': '左右滑动查看更多 →',
  'embed.loading': '正在加载 MiniMind…',
  'embed.building': '正在构建 {name}（{params} 个参数，随机权重），页面可能会停顿片刻…',
  'embed.model': '{name}（随机权重，未训练）· 种子 {seed}',
  'embed.downloading': '正在载入训练好的 {name}…',
  'embed.trainedConfig': 'config 修改的是预设的形状；训练好的模型形状固定：请加上一个预设，例如 preset="lab-a"',
  'embed.open': '在 Playground 中打开',
  'embed.error': '无法绘制此图：{message}',
  'embed.fixHint': '修正属性后，图会自动重绘。',
  'embed.moduleFailed': 'MiniMind 的 WebAssembly 模块无法从 {url} 加载',
  'embed.moduleInlineFailed': 'minimind-attention.single.js 内置的 WebAssembly 无法启动',
  'embed.modelFailed': '训练好的模型文件无法从 {url} 加载',
  'embed.hostHint':
    '图会从它的脚本所在的位置加载这些文件：请把 dist/site/ 中的 wasm/ 和 models/minimind-demo/ 放在 minimind-attention.js 旁边；若这些文件与本页不同源，服务器必须发送 Access-Control-Allow-Origin 响应头。改好后请刷新页面。',
  'embed.inlineHint':
    '本页不允许脚本编译 WebAssembly 或生成的代码：Content-Security-Policy 的 script-src 必须允许 ‘unsafe-eval’，图才能绘制。',
  'embed.badConfig': 'config 不是合法的 JSON',
  'embed.configNotObject': 'config 必须是由 config.json 键组成的 JSON 对象，例如 {"num_attention_heads": 8}',
  'embed.badInteger': '{name} 必须是 ≥ 0 的整数，实际为 "{value}"',
  'embed.badChoice': '{name} 必须是 {choices} 之一，实际为 "{value}"',
  'embed.badHeight': 'height 必须是 CSS 长度，例如 320px 或 40vh，实际为 "{value}"',
  'embed.noLayer': '第 {value} 层不存在：{name} 共有 {count} 层（0–{last}）',
  'embed.noHead': '第 {value} 个头不存在：{name} 共有 {count} 个头（0–{last}）',
  'embed.noTokens': 'text 中没有 token：至少输入一个词',
  'embed.dropped': '只画出前 {max} 个 token',
  'embed.cell': '{query} → {key}：{value}',
  'embed.cellMasked': '{query} → {key}：被掩码（未来的 token）',
  ...LESSON_ZH_CN,
  ...DEMO_TERMS['zh-CN'],
};

export const CATALOGUES = { en, 'zh-CN': zhCN };

/** The text of `key` in `lang` (else English), parameters inserted as plain strings for textContent. */
export function embedText(lang, key, params = {}) {
  const template = (CATALOGUES[lang] ?? en)[key] ?? en[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (match, name) => (name in params ? String(params[name]) : match));
}
