// How the page names a token that is only part of a character
// (js/token_text.mjs): the legend of the mark on a predicted byte token.

export const TOKEN_TERMS = {
  'zh-CN': {
    'token.markLegend':
      '{label}：这个 token 只是一个字的前几个字节（{bytes}），单独不成字；“…”表示后面的字是模型自己接着生成的字节补成的。',
  },
  en: {
    'token.markLegend':
      '{label}: this token is only the first bytes of a character ({bytes}) and names none on its own; “…” marks the character the model’s own next tokens complete it to.',
  },
};
