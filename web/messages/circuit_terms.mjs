// The circuit view (web/panels/circuit_panel.mjs): the edges that carry a
// prediction. Every number is a parameter, computed by js/circuit_text.mjs
// from what model.circuit() returned.

export const CIRCUIT_TERMS = {
  'zh-CN': {
    'circuit.title': '这个回答走的是哪条电路',
    'circuit.hint':
      '每条边是“发送者 → 接收者”：接收者（头的 q/k/v、FFN、logits）只在这一条边上收到损坏文本的输出，其余照旧。边的份额 =（干净 − 打补丁后）/（干净 − 损坏）：这条边一断，答案丢掉多少。线越粗份额越大，颜色分正负。',
    'circuit.direction': '方向：把损坏文本的输出补进干净的运行（和上面的“补丁”方向相反）。',
    'circuit.pair': '干净：“{clean}”，损坏：“{corrupt}”；指标 = logit({answer}) − logit({wrong})，在最后一个位置。',
    'circuit.inductionPair':
      '这段文字重复了一遍：干净的是它本身，损坏的是第一遍倒过来写；指标 = logit({answer}) − logit({wrong})（照抄第一遍时下一个 token）。',
    'circuit.plainModel': '电路不看这两个开关：算的时候因果掩码、√d 都开着（{switches}）。',
    'circuit.headsOff': '电路是在关掉 {heads} 的模型上算的：干净、损坏、打补丁的每一次运行里都关着，所以进出关掉的头的边都是 0。',
    'circuit.updating': '正在为屏幕上的文字重新计算电路……',
    'circuit.lengths': '两段文字的 token 数不同（干净 {clean}，损坏 {corrupt}），没法逐条边打补丁。',
    'circuit.slider': '电路的边数 N',
    'circuit.top': '打补丁核对的边数',
    'circuit.run': '计算电路',
    'circuit.keeps': 'N = {edges}：按 EAP 排序的电路保留 {eap} 的答案，按打补丁效果排序的保留 {patched}。',
    'circuit.drawn': '图里画出前 {drawn} 条边（共 {total} 条）。点一条边看它的数，点一个头打开它的矩阵。',
    'circuit.curveTitle': '电路保留的答案份额随 N 的变化',
    'circuit.curve.eap': '按 EAP 排序',
    'circuit.curve.patched': '按打补丁效果排序',
    'circuit.tip.edge': '{from} → {to}',
    'circuit.tip.score': 'EAP 分数 {score}（估计份额 {eap}）',
    'circuit.tip.patched': '打补丁后指标 {patched}（份额 {share}）',
    'circuit.tip.unpatched': '没有打补丁（不在前 {top} 条里）',
    'circuit.tip.positions': '按位置：{parts}',
    'circuit.tableTitle': '最强的边',
    'circuit.col.edge': '边',
    'circuit.col.eap': 'EAP 估计',
    'circuit.col.patched': '打补丁',
    'circuit.none': '—',
    'circuit.metric': '干净文本的指标是 {clean}，损坏文本的是 {corrupt}。',
    'circuit.noGap': '两段文字的指标一样：没有答案可丢，份额无从谈起。',
    'circuit.edge': '{edge}：断开它丢掉 {share}% 的答案（{from}）。',
    'circuit.edgeAgainst': '{edge}：断开它反而让答案多了 {share}%（份额为负，它在和答案作对）。',
    'circuit.edgeAt': '{edge}：断开它丢掉 {share}% 的答案；它的 EAP 分数有 {part}% 来自第 {position} 位“{token}”。',
    'circuit.edgeAgainstAt':
      '{edge}：断开它反而让答案多了 {share}%（它在和答案作对）；它的 EAP 分数有 {part}% 来自第 {position} 位“{token}”。',
    'circuit.referent': '这个位置正是两段文字不同的地方：{edge} 把“{referent}”带到了“{pronoun}”之后的预测。',
    'circuit.estimateOff': 'EAP 是一阶估计：{edge} 的估计份额 {eap}%，真打补丁是 {patched}%。',
    'circuit.faithful.eap': '按 EAP 排序，前 {edges} 条边（共 {total} 条）组成的电路就保留了 {share}% 的答案。',
    'circuit.faithful.patched': '按打补丁效果排序，前 {edges} 条边就保留了 {share}%。',
    'circuit.notFaithful.eap': '按 EAP 排序，少于全部 {total} 条边的电路都保留不到 {threshold}% 的答案。',
    'circuit.notFaithful.patched': '按打补丁效果排序，少于全部 {total} 条边的电路也都保留不到 {threshold}%。',
    'circuit.unpatched': '其余 {count} 条边（共 {total} 条）只有 EAP 估计，没有打补丁核对。',
    'circuit.induction.found':
      '归纳电路：前一个 token 头 {previous} → 归纳头 {induction} 的键（第 {keyRank} 强的边），{induction} → logits（第 {outRank} 强），都在前 {top} 条里。',
    'circuit.induction.keysOnly': '前 {top} 条边里有 {edge}（第 {rank} 强），但归纳头到 logits 的边不在其中：这里看不出完整的归纳电路。',
    'circuit.induction.outOnly':
      '前 {top} 条边里有 {edge}（第 {rank} 强），但没有前一个 token 头进入归纳头键的边：这里看不出完整的归纳电路。',
    'circuit.induction.none': '前 {top} 条边里既没有 {previous} 进入 {induction} 键的边，也没有它们到 logits 的边：数字没有显示归纳电路。',
    'circuit.induction.noRoles': '这个模型没有测出前一个 token 头和归纳头，说不出归纳电路在哪。',
  },
  en: {
    'circuit.title': 'Which circuit carries this answer',
    'circuit.hint':
      "Each edge is sender → receiver: only that receiver (a head's q/k/v, an FFN, the logits) gets the corrupt text's output along that edge; everything else stays clean. An edge's share = (clean − patched) / (clean − corrupt): how much of the answer is lost when that edge is cut. Thicker lines carry more; colour shows the sign.",
    'circuit.direction': 'Direction: the corrupt text’s outputs are patched into the clean run (the opposite of the patching above).',
    'circuit.pair': 'Clean: “{clean}”, corrupt: “{corrupt}”; metric = logit({answer}) − logit({wrong}) at the last position.',
    'circuit.inductionPair':
      'The text is typed twice: the clean run is the text itself, the corrupt one has its first copy reversed; metric = logit({answer}) − logit({wrong}) (the next token when copying the first copy).',
    'circuit.plainModel': 'The circuit does not take these switches: it is computed with the causal mask and √d on ({switches}).',
    'circuit.headsOff':
      'The circuit is computed with {heads} switched off: off in every run (clean, corrupt, patched), so every edge to or from a head switched off is 0.',
    'circuit.updating': 'Recomputing the circuit for the text on screen…',
    'circuit.lengths': 'The two texts have different token counts (clean {clean}, corrupt {corrupt}): edges cannot be patched one by one.',
    'circuit.slider': 'Edges in the circuit, N',
    'circuit.top': 'Edges checked by patching',
    'circuit.run': 'Compute the circuit',
    'circuit.keeps': 'N = {edges}: the circuit ranked by EAP keeps {eap} of the answer, ranked by patching {patched}.',
    'circuit.drawn': 'The figure draws the top {drawn} edges (of {total}). Tap an edge for its numbers, a head to open its matrix.',
    'circuit.curveTitle': 'Share of the answer the circuit keeps, by N',
    'circuit.curve.eap': 'ranked by EAP',
    'circuit.curve.patched': 'ranked by patching',
    'circuit.tip.edge': '{from} → {to}',
    'circuit.tip.score': 'EAP score {score} (estimated share {eap})',
    'circuit.tip.patched': 'patched metric {patched} (share {share})',
    'circuit.tip.unpatched': 'not patched (outside the top {top})',
    'circuit.tip.positions': 'by position: {parts}',
    'circuit.tableTitle': 'Strongest edges',
    'circuit.col.edge': 'Edge',
    'circuit.col.eap': 'EAP estimate',
    'circuit.col.patched': 'Patched',
    'circuit.none': '—',
    'circuit.metric': 'The metric is {clean} on the clean text and {corrupt} on the corrupt one.',
    'circuit.noGap': 'Both texts give the same metric: there is no answer to lose, so no shares.',
    'circuit.edge': '{edge}: cutting it loses {share}% of the answer ({from}).',
    'circuit.edgeAgainst': '{edge}: cutting it adds {share}% to the answer (a negative share: it works against the answer).',
    'circuit.edgeAt': '{edge}: cutting it loses {share}% of the answer; {part}% of its EAP score enters at position {position} “{token}”.',
    'circuit.edgeAgainstAt':
      '{edge}: cutting it adds {share}% to the answer (it works against the answer); {part}% of its EAP score enters at position {position} “{token}”.',
    'circuit.referent': 'That is where the two texts differ: {edge} carries “{referent}” to the prediction after “{pronoun}”.',
    'circuit.estimateOff': 'EAP is a first-order estimate: for {edge} it says {eap}%, patching measures {patched}%.',
    'circuit.faithful.eap': 'Ranked by EAP, the circuit of the top {edges} edges (of {total}) already keeps {share}% of the answer.',
    'circuit.faithful.patched': 'Ranked by patching, the top {edges} edges keep {share}%.',
    'circuit.notFaithful.eap': 'Ranked by EAP, no circuit smaller than all {total} edges keeps {threshold}% of the answer.',
    'circuit.notFaithful.patched': 'Ranked by patching, no circuit smaller than all {total} edges keeps {threshold}% either.',
    'circuit.unpatched': 'The other {count} edges (of {total}) have only EAP’s estimate, not checked by patching.',
    'circuit.induction.found':
      "Induction circuit: previous-token head {previous} → induction head {induction}'s keys (edge no. {keyRank}), {induction} → logits (no. {outRank}), both in the top {top}.",
    'circuit.induction.keysOnly':
      "The top {top} edges hold {edge} (no. {rank}) but no induction head's edge to the logits: no whole induction circuit shows here.",
    'circuit.induction.outOnly':
      "The top {top} edges hold {edge} (no. {rank}) but no previous-token head's edge into an induction head's keys: no whole induction circuit shows here.",
    'circuit.induction.none':
      "The top {top} edges hold no edge from {previous} into {induction}'s keys and none from them to the logits: the numbers show no induction circuit.",
    'circuit.induction.noRoles':
      'This model has no measured previous-token and induction heads: the page cannot say where an induction circuit is.',
  },
};
