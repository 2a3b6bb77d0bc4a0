// MiniMind's own resume checkpoint, written from a run of the page and read
// back into one, so that a run moves between the tab and MiniMind's PyTorch
// trainer (trainer/train_pretrain.py --from_resume 1) both ways.
//
// trainer_utils.lm_checkpoint saves <weight>_<hidden>[_moe]_resume.pth as
//   torch.save({'model': {k: v.half() for k, v in state_dict.items()},
//               'optimizer': optimizer.state_dict(),  # AdamW: per parameter step, exp_avg, exp_avg_sq
//               'epoch': epoch, 'step': step,         # step: batches done in the epoch (1-based loop)
//               'world_size': 1, 'wandb_id': None, 'scaler': scaler.state_dict()}, path)
// and train_pretrain.py resumes with model.load_state_dict, optimizer.load_state_dict,
// scaler.load_state_dict (a GradScaler that is off, as on CPU and with
// bfloat16, saves and loads {}), then skips `step` batches of epoch `epoch`.
//
// torch.save's file is a zip of stored records: <archive>/data.pkl (the
// object as a protocol-2 pickle, each tensor a persistent id naming a storage
// record), <archive>/data/<key> (a storage's raw little-endian bytes, each
// aligned to 64 bytes in the file as torch writes them), <archive>/version
// and <archive>/byteorder. The pickle here uses only opcodes torch.load's
// weights_only unpickler and the project's own reader (core) accept.
//
// The optimizer's state is keyed by the parameter's place in MiniMind's
// model.parameters(), whose order (per layer: self_attn q, k, v, o, q_norm,
// k_norm, then input_layernorm, post_attention_layernorm, mlp gate, down, up)
// differs from the trainer's (js/minimind.mjs Trainer.state()): the two are
// matched by name. The model's weights and AdamW's moments travel as they are;
// MiniMind's data order (torch.randperm) is not the tab's, so the batches
// after the resume point are each trainer's own.
import { argumentError } from './minimind_error.mjs';

const ALIGNMENT = 64;

/** The file name lm_checkpoint gives: <weight>_<hidden>[_moe]_resume.pth. */
function resumeCheckpointName(config, weight = 'pretrain') {
  return `${weight}_${config.hidden_size}${config.use_moe ? '_moe' : ''}_resume.pth`;
}

// Within a layer, MiniMind's module order: MiniMindBlock registers self_attn
// (q, k, v, o, q_norm, k_norm), input_layernorm, post_attention_layernorm,
// mlp (FeedForward: gate, down, up).
const LAYER_ORDER = [
  'self_attn.q_proj.weight',
  'self_attn.k_proj.weight',
  'self_attn.v_proj.weight',
  'self_attn.o_proj.weight',
  'self_attn.q_norm.weight',
  'self_attn.k_norm.weight',
  'input_layernorm.weight',
  'post_attention_layernorm.weight',
  'mlp.gate_proj.weight',
  'mlp.down_proj.weight',
  'mlp.up_proj.weight',
];

// [group, layer, place] of a parameter name in model.parameters() order.
function parameterRank(name) {
  if (name === 'model.embed_tokens.weight') return [0, 0, 0];
  if (name === 'model.norm.weight') return [2, 0, 0];
  if (name === 'lm_head.weight') return [3, 0, 0];
  const m = /^model\.layers\.(\d+)\.(.+)$/.exec(name);
  const place = m ? LAYER_ORDER.indexOf(m[2]) : -1;
  if (place < 0)
    throw argumentError(Error, 'resume.not_dense_parameter', { tensor: name }, `${name} is not a parameter of a dense MiniMind`);
  return [1, Number(m[1]), place];
}

/**
 * Parameter names (any order: the trainer's, a file's) in MiniMind's
 * model.parameters() order: the (tied) embedding, each layer's, the final
 * norm, lm_head when untied. Dense models only (the trainer trains no MoE).
 */
export function minimindParameterOrder(names) {
  const ranked = names.map((name) => ({ name, rank: parameterRank(name) }));
  ranked.sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1] || a.rank[2] - b.rank[2]);
  return ranked.map((r) => r.name);
}

/**
 * The tensors of safetensors bytes: Map name -> {dtype, shape, data: Uint8Array (a view)}, in file order.
 */
export function safetensorsTensors(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
  const start = 8 + headerLength;
  const out = new Map();
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [begin, end] = entry.data_offsets;
    out.set(name, { dtype: entry.dtype, shape: entry.shape, data: bytes.subarray(start + begin, start + end) });
  }
  return out;
}

/**
 * A float32 value's nearest float16 (ties to even; beyond the range:
 * ±Infinity, as torch's .half() gives), as its 16 bits.
 */
export function halfBits(value) {
  const f32 = new Float32Array([value]);
  const bits = new Uint32Array(f32.buffer)[0];
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0); // Inf, NaN
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign; // below half the smallest subnormal
    const m = mantissa | 0x800000; // the implicit 1
    const shift = 14 - e;
    const half = m >>> shift;
    const rest = m & ((1 << shift) - 1);
    const midway = 1 << (shift - 1);
    return sign | (half + (rest > midway || (rest === midway && half & 1) ? 1 : 0));
  }
  const half = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  // A carry out of the mantissa rounds up into the exponent, as it should (up to Infinity).
  return sign | (half + (rest > 0x1000 || (rest === 0x1000 && half & 1) ? 1 : 0));
}

// ------------------------------------------------------------ pickle

// Protocol 2, as torch.save writes it; only what a resume checkpoint holds.
class Pickler {
  #bytes = [];
  #chunks = [];
  storages = []; // [{key, dtype, data: Uint8Array}]

  #flush() {
    if (this.#bytes.length) this.#chunks.push(Uint8Array.from(this.#bytes));
    this.#bytes = [];
  }

  op(...codes) {
    for (const c of codes) this.#bytes.push(c);
  }

  raw(array) {
    this.#flush();
    this.#chunks.push(array);
  }

  le(value, n) {
    for (let i = 0; i < n; i += 1) this.op(Number((BigInt(value) >> BigInt(8 * i)) & 0xffn));
  }

  line(text) {
    for (const c of text) this.op(c.charCodeAt(0));
    this.op(0x0a);
  }

  value(v) {
    if (v === null || v === undefined) return this.op(0x4e); // NONE
    if (v === true) return this.op(0x88); // NEWTRUE
    if (v === false) return this.op(0x89); // NEWFALSE
    if (typeof v === 'string') {
      const utf8 = new TextEncoder().encode(v);
      this.op(0x58); // BINUNICODE
      this.le(utf8.length, 4);
      return this.raw(utf8);
    }
    if (v instanceof PickleInt || (typeof v === 'number' && Number.isInteger(v) && !(v instanceof PickleFloat)))
      return this.integer(Number(v));
    if (typeof v === 'number' || v instanceof PickleFloat) return this.float(Number(v));
    if (v instanceof PickleTuple) return this.tuple(v.items);
    if (v instanceof PickleTensor) return this.tensor(v);
    if (Array.isArray(v)) {
      this.op(0x5d); // EMPTY_LIST
      if (v.length === 0) return undefined;
      this.op(0x28); // MARK
      for (const item of v) this.value(item);
      return this.op(0x65); // APPENDS
    }
    if (v instanceof Map) return this.dict([...v.entries()]);
    return this.dict(Object.entries(v));
  }

  integer(n) {
    if (n >= 0 && n < 0x100) return this.op(0x4b, n); // BININT1
    if (n >= 0 && n < 0x10000) return (this.op(0x4d), this.le(n, 2)); // BININT2
    if (n >= -0x80000000 && n < 0x80000000) return (this.op(0x4a), this.le(n >>> 0, 4)); // BININT
    this.op(0x8a, 8); // LONG1, 8 bytes two's complement
    return this.le(BigInt.asUintN(64, BigInt(n)), 8);
  }

  float(x) {
    const b = new DataView(new ArrayBuffer(8));
    b.setFloat64(0, x, false); // BINFLOAT: big-endian
    this.op(0x47);
    for (let i = 0; i < 8; i += 1) this.op(b.getUint8(i));
  }

  tuple(items) {
    if (items.length === 0) return this.op(0x29); // EMPTY_TUPLE
    if (items.length <= 3) {
      for (const item of items) this.value(item);
      return this.op(0x84 + items.length); // TUPLE1..3
    }
    this.op(0x28);
    for (const item of items) this.value(item);
    return this.op(0x74); // TUPLE
  }

  dict(entries) {
    this.op(0x7d); // EMPTY_DICT
    if (entries.length === 0) return undefined;
    this.op(0x28);
    for (const [k, v] of entries) {
      this.value(k);
      this.value(v);
    }
    return this.op(0x75); // SETITEMS
  }

  // torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, backward_hooks)
  tensor(t) {
    const key = String(this.storages.length);
    this.storages.push({ key, data: t.data });
    const strides = [];
    let stride = 1;
    for (let i = t.shape.length - 1; i >= 0; i -= 1) {
      strides[i] = stride;
      stride *= t.shape[i];
    }
    this.op(0x63);
    this.line('torch._utils');
    this.line('_rebuild_tensor_v2');
    this.op(0x28); // MARK: the arguments
    this.op(0x28); // MARK: the persistent id ('storage', type, key, location, numel)
    this.value('storage');
    this.op(0x63);
    this.line('torch');
    this.line(t.dtype === 'F16' ? 'HalfStorage' : 'FloatStorage');
    this.value(key);
    this.value('cpu');
    this.integer(t.numel);
    this.op(0x74, 0x51); // TUPLE, BINPERSID
    this.integer(0);
    this.tuple(t.shape.map((d) => new PickleInt(d)));
    this.tuple(strides.map((d) => new PickleInt(d)));
    this.op(0x89); // requires_grad False
    this.op(0x63);
    this.line('collections');
    this.line('OrderedDict');
    this.op(0x29, 0x52); // EMPTY_TUPLE, REDUCE: no backward hooks
    this.op(0x74, 0x52); // TUPLE, REDUCE
  }

  bytes(root) {
    this.op(0x80, 2); // PROTO 2
    this.value(root);
    this.op(0x2e); // STOP
    this.#flush();
    return concat(this.#chunks);
  }
}

class PickleInt extends Number {}
class PickleFloat extends Number {}
class PickleTuple {
  constructor(items) {
    this.items = items;
  }
}
class PickleTensor {
  constructor(dtype, shape, data) {
    this.dtype = dtype;
    this.shape = shape;
    this.data = data; // little-endian bytes
    this.numel = shape.reduce((a, b) => a * b, 1);
  }
}

function concat(chunks) {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

// ------------------------------------------------------------ zip

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n += 1) {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i += 1) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// Stored (uncompressed) records, each one's data starting at a multiple of
// ALIGNMENT (an extra field of padding in its local header, as torch's writer
// pads). Under 4 GiB: no ZIP64 records.
function zipRecords(records) {
  const parts = [];
  const directory = [];
  let offset = 0;
  for (const { name, data } of records) {
    const nameBytes = new TextEncoder().encode(name);
    const crc = crc32(data);
    const headerEnd = offset + 30 + nameBytes.length;
    const pad = (ALIGNMENT - ((headerEnd + 4) % ALIGNMENT)) % ALIGNMENT;
    const extra = new Uint8Array(4 + pad);
    new DataView(extra.buffer).setUint16(0, 0x4246, true); // "FB": torch's padding field
    new DataView(extra.buffer).setUint16(2, pad, true);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true); // version needed
    local.setUint16(8, 0, true); // stored
    local.setUint32(14, crc, true);
    local.setUint32(18, data.length, true);
    local.setUint32(22, data.length, true);
    local.setUint16(26, nameBytes.length, true);
    local.setUint16(28, extra.length, true);
    parts.push(new Uint8Array(local.buffer), nameBytes, extra, data);
    directory.push({ nameBytes, crc, size: data.length, offset });
    offset += 30 + nameBytes.length + extra.length + data.length;
  }
  const centralStart = offset;
  for (const d of directory) {
    const entry = new DataView(new ArrayBuffer(46));
    entry.setUint32(0, 0x02014b50, true);
    entry.setUint16(4, 20, true); // made by
    entry.setUint16(6, 20, true); // needed
    entry.setUint32(16, d.crc, true);
    entry.setUint32(20, d.size, true);
    entry.setUint32(24, d.size, true);
    entry.setUint16(28, d.nameBytes.length, true);
    entry.setUint32(42, d.offset, true);
    parts.push(new Uint8Array(entry.buffer), d.nameBytes);
    offset += 46 + d.nameBytes.length;
  }
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, directory.length, true);
  end.setUint16(10, directory.length, true);
  end.setUint32(12, offset - centralStart, true);
  end.setUint32(16, centralStart, true);
  parts.push(new Uint8Array(end.buffer));
  if (offset > 0xffffffff) throw argumentError(RangeError, 'resume.over_4gib', {}, 'the checkpoint is over 4 GiB');
  return concat(parts);
}

// ------------------------------------------------------------ the checkpoint

/**
 * MiniMind's resume checkpoint of a run: weights
 * (model.safetensors bytes, F32 or F16, MiniMind's names), trainer (the
 * trainer's state, js/minimind.mjs Trainer.state(): names and AdamW's
 * moments), lr (the learning rate of the last batch, what param_groups
 * holds), dtype: 'F16' (MiniMind's v.half(), default) or 'F32' (exact),
 * archive: the folder name inside the zip (torch uses the file's stem).
 * epoch and step are the trainer's (batch: batches done in the epoch).
 * Returns the file's bytes.
 */
export function writeResumePth({ weights, trainer, lr, dtype = 'F16', archive = 'resume' }) {
  if (dtype !== 'F16' && dtype !== 'F32')
    throw argumentError(
      RangeError,
      'api.one_of',
      { name: 'dtype', allowed: 'F16, F32', got: String(dtype) },
      `dtype must be "F16" or "F32", got ${dtype}`,
    );
  const tensors = safetensorsTensors(weights);
  // Tied (the trainer has no lm_head parameter): MiniMind's state_dict lists the embedding under both names.
  if (!tensors.has('lm_head.weight')) tensors.set('lm_head.weight', tensors.get('model.embed_tokens.weight'));
  const model = {};
  for (const name of minimindParameterOrder([...tensors.keys()])) {
    const t = tensors.get(name);
    model[name] = new PickleTensor(dtype, t.shape, tensorBytes(t, dtype));
  }
  const byName = new Map(trainer.parameters.map((p) => [p.name, p]));
  const order = minimindParameterOrder([...byName.keys()]);
  const state = new Map();
  order.forEach((name, index) => {
    const p = byName.get(name);
    const shape = p.shape ?? tensors.get(name).shape;
    // torch.tensor(float(step)): a 0-dim float32 tensor (PyTorch >= 1.12).
    state.set(new PickleInt(index), {
      step: new PickleTensor('F32', [], floatBytes(Float32Array.of(trainer.optimizerSteps))),
      exp_avg: new PickleTensor('F32', shape, floatBytes(p.expAvg)),
      exp_avg_sq: new PickleTensor('F32', shape, floatBytes(p.expAvgSq)),
    });
  });
  const group = {
    lr: new PickleFloat(lr),
    betas: new PickleTuple([new PickleFloat(0.9), new PickleFloat(0.999)]),
    eps: new PickleFloat(1e-8),
    weight_decay: new PickleFloat(0.01),
    amsgrad: false,
    foreach: null,
    maximize: false,
    capturable: false,
    differentiable: false,
    fused: null,
    params: order.map((_, i) => new PickleInt(i)),
  };
  const root = {
    model,
    optimizer: { state, param_groups: [group] },
    epoch: new PickleInt(trainer.epoch),
    step: new PickleInt(trainer.batch),
    world_size: new PickleInt(1),
    wandb_id: null,
    scaler: {},
  };
  const pickler = new Pickler();
  const pickle = pickler.bytes(root);
  const records = [{ name: `${archive}/data.pkl`, data: pickle }];
  records.push({ name: `${archive}/byteorder`, data: new TextEncoder().encode('little') });
  for (const s of pickler.storages) records.push({ name: `${archive}/data/${s.key}`, data: s.data });
  records.push({ name: `${archive}/version`, data: new TextEncoder().encode('3\n') });
  return zipRecords(records);
}

/**
 * A saved run (js/train_run_state.mjs run state) as MiniMind's resume
 * checkpoint: {name: lm_checkpoint's file name, bytes}. The learning rate in
 * param_groups is the last batch's (MiniMind sets it before every batch),
 * or the base rate before the first.
 */
export function resumePthOfRun(run, { dtype = 'F16', weight = 'pretrain' } = {}) {
  const config = JSON.parse(run.model.config);
  const lrs = run.history?.lr;
  const lr = lrs && lrs.length ? lrs[lrs.length - 1] : run.settings.options.learningRate;
  const name = resumeCheckpointName(config, weight);
  const archive = name.replace(/\.pth$/, '');
  return { name, bytes: writeResumePth({ weights: run.model.weights, trainer: run.trainer, lr, dtype, archive }) };
}

function floatBytes(floats) {
  return new Uint8Array(floats.buffer, floats.byteOffset, floats.byteLength);
}

// A safetensors tensor's bytes as `dtype` (F16 from F32: rounded as torch's .half()).
function tensorBytes(t, dtype) {
  if (t.dtype === dtype) return t.data.slice();
  if (t.dtype === 'F32' && dtype === 'F16') {
    const floats = new Float32Array(t.data.slice().buffer);
    const out = new Uint16Array(floats.length);
    for (let i = 0; i < floats.length; i += 1) out[i] = halfBits(floats[i]);
    return new Uint8Array(out.buffer);
  }
  if (t.dtype === 'F16' && dtype === 'F32') {
    const halves = new Uint16Array(t.data.slice().buffer);
    const out = new Float32Array(halves.length);
    for (let i = 0; i < halves.length; i += 1) out[i] = halfValue(halves[i]);
    return new Uint8Array(out.buffer);
  }
  throw argumentError(
    Error,
    'resume.dtype',
    { dtype: t.dtype, target: dtype },
    `weights of dtype ${t.dtype} cannot be written as ${dtype}`,
  );
}

function halfValue(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 0x1f) return m ? NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

/**
 * A trainer state (js/minimind.mjs Trainer.restore) from a resume
 * checkpoint's trainingState() (mm.trainingState): AdamW's moments matched to
 * the trainer's `parameterNames` through MiniMind's model.parameters() order,
 * and the position: `epoch` and `step` when they lie inside the tab's
 * schedule (`epochs` of `batchesPerEpoch`), else the schedule's start
 * (MiniMind's epochs count its own data's batches). Returns {state,
 * positionKept, notes: [why something differs]}. Throws when the optimizer
 * is missing or its entries do not fit the config.
 */
export function trainerStateFromCheckpoint({ checkpoint, parameterNames, epochs, batchesPerEpoch }) {
  const { optimizer } = checkpoint;
  if (!optimizer)
    throw argumentError(
      Error,
      'resume.no_optimizer',
      { reason: checkpoint.optimizerProblem ?? '' },
      checkpoint.optimizerProblem ?? 'the file has no optimizer state',
    );
  const order = minimindParameterOrder(parameterNames);
  if (optimizer.groups.length !== 1)
    throw argumentError(
      Error,
      'resume.parameter_groups',
      { groups: optimizer.groups.length },
      `the optimizer has ${optimizer.groups.length} parameter groups; MiniMind's AdamW has one`,
    );
  const byIndex = new Map(optimizer.state.map((e) => [e.index, e]));
  const notes = [];
  const steps = new Set(optimizer.state.map((e) => e.step));
  if (steps.size > 1) notes.push('steps');
  const parameters = parameterNames.map((name) => {
    const index = order.indexOf(name);
    const e = byIndex.get(index);
    if (!e)
      throw argumentError(
        Error,
        'resume.state_missing',
        { index, tensor: name },
        `the optimizer holds no state for parameter ${index} (${name})`,
      );
    return { name, expAvg: e.expAvg, expAvgSq: e.expAvgSq, grad: null };
  });
  if (optimizer.state.length !== order.length)
    throw argumentError(
      Error,
      'resume.state_count',
      { optimizer: optimizer.state.length, model: order.length },
      `the optimizer holds ${optimizer.state.length} parameters, the model ${order.length}`,
    );
  // lm_checkpoint's step for a world of N GPUs counts each GPU's batches: as train_pretrain.py converts it.
  let epoch = checkpoint.epoch ?? 0;
  let step = (checkpoint.step ?? 0) * (checkpoint.worldSize ?? 1);
  if (step === batchesPerEpoch) {
    // Saved after an epoch's last batch: the next epoch's start.
    epoch += 1;
    step = 0;
  }
  const positionKept = epoch < epochs && step < batchesPerEpoch;
  if (!positionKept) {
    notes.push('position');
    epoch = 0;
    step = 0;
  }
  const optimizerSteps = Math.max(...steps);
  return { state: { epoch, batch: step, optimizerSteps, parameters }, positionKept, notes };
}
