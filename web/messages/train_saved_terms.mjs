// The Train panel's saved runs (web/train/saved_runs_view.mjs, run_store.mjs,
// run_autosave.mjs) and MiniMind's resume checkpoint, in both languages;
// train_terms.mjs spreads them in. {name} marks a parameter.
export const TRAIN_SAVED_TERMS = {
  'zh-CN': {
    'train.saved.title': '保存的训练',
    'train.saved.none': '还没有保存的训练。训练时每 {every} 批、暂停或结束时，训练会自动保存在这个浏览器里，刷新或关闭页面后可以接着训练。',
    'train.saved.item': '第 {step} / {total} 批，损失 {loss}，hidden {hidden}、{layers} 层、{heads} 个头，{size}，保存于 {time}',
    'train.saved.resume': '接着训练',
    'train.saved.use': '在 Playground 中使用',
    'train.saved.download': '下载为 MiniMind 续训文件（.pth）',
    'train.saved.delete': '删除',
    'train.saved.current': '（正在这个标签页里训练）',
    'train.saved.live': '（正在另一个标签页里训练）',
    'train.saved.usageRuns': '{count} 次保存的训练共占 {size}。',
    'train.saved.usage': '本站在这个浏览器里共用了 {used}，上限约 {quota}。',
    'train.saved.import': '接着训练 MiniMind 的续训文件（*_resume.pth）',
    'train.saved.importNote':
      'MiniMind 的 train_pretrain.py 保存在 checkpoints/ 里的 …_resume.pth：权重、AdamW 的状态、epoch 和 step 都接上，数据和超参数用上面的设置。',
    'train.saved.saved': '已保存到第 {step} 批。',
    'train.saved.quota': '浏览器的存储空间满了，这次没能保存（训练照常进行）。删掉旧的保存，或把训练下载为 .pth 文件。',
    'train.saved.unavailable':
      '这个浏览器窗口不能保存数据（也许是无痕窗口）：训练照常进行，但刷新或关闭页面后无法接着训练。可以把训练下载为 .pth 文件。',
    'train.saved.failed': '保存失败：{message}（训练照常进行）',
    'train.saved.liveElsewhere': '这次训练正在另一个标签页里进行，这里不能同时训练它。',
    'train.saved.mayBeElsewhere':
      '这个窗口里浏览器不允许加锁（例如嵌入的沙盒框架），无法确认这次训练是否已在另一个标签页里打开，所以这里不接着训练它。可以在独立的标签页里打开本页。',
    'train.saved.resumed': '从第 {step} 批接着训练。',
    'train.saved.opened': '这是保存在这个浏览器里的训练：点“继续”从这里接着训练。',
    'train.saved.openedDone': '这是保存在这个浏览器里的训练，已经训练完了：可以在 Playground 中使用它，或下载它。',
    'train.saved.imported': '接着 {name} 训练：从第 {step} 批开始，AdamW 的状态已载入。',
    'train.saved.importPosition': '文件里的位置（epoch、step）不在这次的训练计划内：从第 0 批开始，AdamW 的状态保留。',
    'train.saved.downloaded': '已下载 {name}：放进 MiniMind 的 checkpoints/ 文件夹，用 train_pretrain.py --from_resume 1 接着训练。',
    'train.saved.deleted': '已删除。',
    'train.saved.missing': '这次保存已经不在了（也许在另一个标签页里删除了）。',
  },
  en: {
    'train.saved.title': 'Saved runs',
    'train.saved.none':
      'No saved runs yet. A run is saved in this browser every {every} batches and when it pauses or ends, so that it can go on after a reload or a closed tab.',
    'train.saved.item': 'batch {step} of {total}, loss {loss}, hidden {hidden}, {layers} layers, {heads} heads, {size}, saved {time}',
    'train.saved.resume': 'Resume',
    'train.saved.use': 'Use in the playground',
    'train.saved.download': "Download as MiniMind's resume file (.pth)",
    'train.saved.delete': 'Delete',
    'train.saved.current': '(training in this tab)',
    'train.saved.live': '(training in another tab)',
    'train.saved.usageRuns': '{count} saved runs take {size}.',
    'train.saved.usage': 'This site uses {used} of about {quota} in this browser.',
    'train.saved.import': "Continue MiniMind's resume file (*_resume.pth)",
    'train.saved.importNote':
      "The …_resume.pth MiniMind's train_pretrain.py saves in checkpoints/: its weights, AdamW's state, epoch and step go on; the data and hyperparameters are the settings above.",
    'train.saved.saved': 'Saved at batch {step}.',
    'train.saved.quota':
      "The browser's storage is full, so this run was not saved (training goes on). Delete older saved runs, or download the run as a .pth file.",
    'train.saved.unavailable':
      'This browser window cannot store data (a private window?): training goes on, but it cannot be resumed after a reload or a closed tab. You can download it as a .pth file.',
    'train.saved.failed': 'Saving failed: {message} (training goes on)',
    'train.saved.liveElsewhere': 'This run is training in another tab; it cannot train here at the same time.',
    'train.saved.mayBeElsewhere':
      'The browser refuses locks in this window (a sandboxed frame?), so it cannot tell whether this run is open in another tab; it is not resumed here. Open the page in a tab of its own.',
    'train.saved.resumed': 'Resumed at batch {step}.',
    'train.saved.opened': 'This is the run saved in this browser: Resume goes on from here.',
    'train.saved.openedDone': 'This is the run saved in this browser; it had finished: use it in the playground or download it.',
    'train.saved.imported': "Continuing {name}: from batch {step}, with AdamW's state loaded.",
    'train.saved.importPosition': "The file's place (epoch, step) is outside this run's schedule: starting at batch 0, AdamW's state kept.",
    'train.saved.downloaded':
      "Downloaded {name}: put it in MiniMind's checkpoints/ folder and continue with train_pretrain.py --from_resume 1.",
    'train.saved.deleted': 'Deleted.',
    'train.saved.missing': 'This save is gone (deleted in another tab?).',
  },
};
