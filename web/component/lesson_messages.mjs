// The text of the component's lesson views (view="lesson", view="lab"), in
// zh-CN and en: the terms shared with the page's lesson mode come from
// web/messages/lesson_terms.mjs (one copy for both); the rest is the
// component's own.
import { LESSON_TERMS } from '../messages/lesson_terms.mjs';

/** Keys whose text is the page's. */
export const LESSON_PAGE_TERMS = Object.keys(LESSON_TERMS.en);

export const LESSON_EN = {
  ...LESSON_TERMS.en,
  'embed.lessonBoth': 'give either q and k (and v), or scores, not both',
  'embed.badDecimals': 'decimals must be a whole number from 0 to 6, got "{value}"',
  'embed.noV': 'stage "output" is weights · V: give V too (the v attribute, one row per key)',
  'embed.labPreset': 'view="lab" shows lesson 11’s lab A or B: preset must be lab-a or lab-b, got "{value}"',
  'embed.labConfig': 'view="lab" shows the lab’s own model: remove the config attribute',
  'embed.causalSwitch': 'causal mask {value}',
  'embed.scaleSwitch': '÷ √d {value}',
  'embed.typedScores': 'typed scores are used as they are (no ÷ √d)',
  'embed.panel.raw': 'row i, column j = q_i · k_j',
  'embed.panel.weights': 'each row sums to 1; −∞ → 0',
  'embed.labMatrix': 'attention weights for batch 0, head 0',
};

export const LESSON_ZH_CN = {
  ...LESSON_TERMS['zh-CN'],
  'embed.lessonBoth': '请给出 q 和 k（以及 v），或者 scores，不要同时给出',
  'embed.badDecimals': 'decimals 必须是 0 到 6 的整数，实际为 "{value}"',
  'embed.noV': '“output”这一步是 权重 · V：还需要给出 V（v 属性，每个 key 一行）',
  'embed.labPreset': 'view="lab" 显示第 11 课的实验 A 或 B：preset 必须是 lab-a 或 lab-b，实际为 "{value}"',
  'embed.labConfig': 'view="lab" 使用实验自己的模型：请去掉 config 属性',
  'embed.causalSwitch': '因果掩码：{value}',
  'embed.scaleSwitch': '÷ √d：{value}',
  'embed.typedScores': '直接输入的 scores 按原样使用（不除以 √d）',
  'embed.panel.raw': '第 i 行第 j 列 = q_i · k_j',
  'embed.panel.weights': '每行和为 1；−∞ → 0',
  'embed.labMatrix': 'batch 0、head 0 的注意力权重',
};
