// The Train panel's data file (web/train/data_file_input.mjs): its limits,
// the read's progress and cancel, in both languages; train_terms.mjs spreads
// them in. The file's problems (too large, a bad line) are kinded errors,
// worded by error_terms.mjs. {name} marks a parameter.
export const TRAIN_DATA_FILE_TERMS = {
  'zh-CN': {
    'train.dataFile.limit': '文件最大 {mib} MiB，最多 {tokens} 个 token：这是本页训练器能容纳的 token 数。',
    'train.dataFile.reading': '正在读取并分词 {name}：{percent}%（{done} / {total} MiB）',
    'train.dataFile.cancel': '取消读取',
    'train.dataFile.loaded': '{name}（{mib} MiB）：{texts} 条文本，{tokens} 个 token',
    'train.dataFile.cancelled': '已取消读取 {name}。',
    'train.dataFile.failed': '无法使用 {name}：{message}',
    'train.dataFile.kept': '训练仍用之前读好的 {name}。',
    'train.dataFile.stillReading': '{name} 还在读取：请等它读完，或取消。',
  },
  en: {
    'train.dataFile.limit': 'Files up to {mib} MiB and {tokens} tokens: the tokens the trainer can hold in this page.',
    'train.dataFile.reading': 'Reading and tokenizing {name}: {percent}% ({done} of {total} MiB)',
    'train.dataFile.cancel': 'Cancel reading',
    'train.dataFile.loaded': '{name} ({mib} MiB): {texts} texts, {tokens} tokens',
    'train.dataFile.cancelled': 'Reading {name} was cancelled.',
    'train.dataFile.failed': '{name} cannot be used: {message}',
    'train.dataFile.kept': 'Training still uses {name}, read before.',
    'train.dataFile.stillReading': '{name} is still being read: wait for it, or cancel it.',
  },
};
