// Text with one token per character in MiniMind's tokenizer, for prompts
// that must be the same token ids in every runtime: llama.cpp's wllama takes
// text only, and tokenizes it with the GGUF's copy of the same vocabulary
// and merges (bench/speed/make_gguf.mjs).

/**
 * Characters that are one token each and of which no two merge into one
 * token, so a string of them has one token per character
 * (tests/node/one_token_text.test.mjs checks every pair).
 */
export const ONE_TOKEN_CHARACTERS = Object.freeze([
  ...'了在大说也就得可你年后着事所去十用日都三二么经法起与看将还分前又见只主没从知点长开高问力理意样月外头两机关文间老果重回百听白先表气身向立名给色路北员走门西吃山书黑红话平感真美花车爱做欢买早晚春夏秋冬风雨雪云星河海树草鸟鱼猫狗马米茶菜包杯笔桌床灯窗衣球画歌舞跑跳读写玩笑站坐飞南东左右远近快慢冷热甜酸香亮暗旧少干净金木火土石林村城楼房园校店友奶阿',
]);

/** A text of n such characters; variant v changes the first, so that texts of different variants share no prefix. */
export function oneTokenText(n, variant = 0) {
  const C = ONE_TOKEN_CHARACTERS;
  return Array.from({ length: n }, (_, i) => C[(i * 37 + 11 + (i === 0 ? 1 + variant * 13 : 0)) % C.length]).join('');
}
