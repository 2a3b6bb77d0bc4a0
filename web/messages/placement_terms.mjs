// Where the page puts things: the generation buttons by the matrix they grow,
// and the embed dialog's preview of the frame its snippet makes.

export const PLACEMENT_TERMS = {
  'zh-CN': {
    'gen.where': '“单步”和“播放”在矩阵下方：每一步都能看着矩阵多长出一行。',
    'embedCode.preview': '预览：代码中的框架（高 {height} 像素），在这个对话框的宽度下',
  },
  en: {
    'gen.where': 'Step and Play are under the matrix: watch it grow a row at each step.',
    'embedCode.preview': 'Preview: the snippet’s frame ({height} px high) at this dialog’s width',
  },
};
