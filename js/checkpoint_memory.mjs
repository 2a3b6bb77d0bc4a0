// Whether a checkpoint's model fits the module's memory, asked before it is
// built. The module's memory grows up to WASM_MAX_BYTES and the model in use
// stays in it while the new one is built (js/model_pair.mjs), so what is left
// is the maximum less the allocator's bytes in use. A file that cannot fit is
// refused with its size, the memory it needs and the limit, and the model in
// use goes on; one that fits is built as before (a browser that cannot grow
// its memory that far still fails cleanly, with the core's out_of_memory).
import { MiniMindError } from './minimind_error.mjs';

/** The Wasm build's maximum memory: -sMAXIMUM_MEMORY=4GB in wasm/CMakeLists.txt. */
export const WASM_MAX_BYTES = 4 * 2 ** 30;

/** A PyTorch .pth is a zip archive: it starts with a local file header, "PK\x03\x04". */
export function isPthBytes(bytes) {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

/**
 * The most memory loading a checkpoint takes: its weights as float32 (a
 * tensor kept narrower takes less), and for a .pth the file itself, copied
 * into the module's memory to be read. weightBytes: the config's float32
 * weight bytes (MiniMind.describeConfig().weight_bytes), or null when no
 * config comes with the file: a .pth's tensors take at least 2 bytes an
 * element, so their float32 weights are at most twice the file.
 */
export function checkpointNeeds({ fileBytes, pth, weightBytes = null }) {
  return (weightBytes ?? 2 * fileBytes) + (pth ? fileBytes : 0);
}

/**
 * Throws a MiniMindError (kind 'memory.weights_too_large', or
 * 'memory.pth_too_large' for a .pth) when a checkpoint of `fileBytes` needing
 * `needed` bytes cannot fit beside the `inUse` bytes already held within
 * `limit`; values {name, file, needed, limit, inUse, available}, in bytes.
 */
export function checkCheckpointFits({ name, fileBytes, pth, needed, inUse, limit = WASM_MAX_BYTES }) {
  const available = Math.max(0, limit - inUse);
  if (needed <= available) return;
  const gib = (bytes) => `${(bytes / 2 ** 30).toFixed(2)} GiB`;
  throw new MiniMindError(
    `${name} is ${gib(fileBytes)} and needs up to ${gib(needed)} of memory to load${pth ? ' (its weights as float32 and the file itself)' : ' (its weights as float32)'}; ` +
      `the module's memory holds at most ${gib(limit)}, ${gib(inUse)} of it in use, which leaves ${gib(available)}`,
    {
      kind: pth ? 'memory.pth_too_large' : 'memory.weights_too_large',
      values: { name, file: fileBytes, needed, limit, inUse, available },
    },
  );
}

/**
 * The check for a checkpoint about to be loaded into `mm` (the loaded
 * module): bytes, the file's bytes; config, its config.json (text or
 * object) or undefined. A config with problems is not judged here: loading
 * names them.
 */
export function checkCheckpointMemory(mm, { name, bytes, config }) {
  const pth = isPthBytes(bytes);
  let weightBytes = null;
  if (config !== undefined) {
    try {
      weightBytes = mm.describeConfig(config).weight_bytes;
    } catch {
      return;
    }
  }
  const needed = checkpointNeeds({ fileBytes: bytes.length, pth, weightBytes });
  checkCheckpointFits({ name, fileBytes: bytes.length, pth, needed, inUse: mm.heapBytesInUse() });
}

/**
 * A checkpoint file too large for the module's memory whatever it holds: no
 * element is stored in more than 4 bytes, so its weights as float32 take at
 * least the file's size, and a file over `limit` is refused before the page
 * reads it (kind 'memory.file_too_large', values {name, file, limit}).
 * Returns that MiniMindError, or null.
 */
export function checkpointFileTooLarge(name, fileBytes, limit = WASM_MAX_BYTES) {
  if (fileBytes <= limit) return null;
  return new MiniMindError(
    `${name} is ${(fileBytes / 2 ** 30).toFixed(2)} GiB: its weights take at least that much as float32, ` +
      `more than the ${(limit / 2 ** 30).toFixed(2)} GiB the module's memory can hold`,
    { kind: 'memory.file_too_large', values: { name, file: fileBytes, limit } },
  );
}
