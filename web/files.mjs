// The files a learner drops or picks: which is which, and reading the
// weights with progress (a 100 MB checkpoint is read in chunks, so the page
// stays live and shows how far it got).

/** {weights, config, tokenizer} File objects from a list; weights may be missing. */
export function classifyFiles(fileList) {
  const files = [...fileList];
  const named = (name) => files.find((f) => f.name === name);
  return {
    weights: files.find((f) => /\.safetensors$/i.test(f.name)) ?? files.find((f) => /\.pth$/i.test(f.name)) ?? null,
    config: named('config.json') ?? null,
    tokenizer: named('tokenizer.json') ?? null,
  };
}

/**
 * The file's bytes as an ArrayBuffer; onProgress(fraction) as chunks arrive.
 * An aborted `signal` stops reading and rejects with its reason.
 */
export async function readWithProgress(file, onProgress, signal = null) {
  const buffer = new Uint8Array(file.size);
  const reader = file.stream().getReader();
  let offset = 0;
  onProgress(0);
  for (;;) {
    if (signal?.aborted) {
      reader.cancel();
      throw signal.reason;
    }
    const { done, value } = await reader.read();
    if (done) break;
    buffer.set(value, offset);
    offset += value.length;
    onProgress(file.size ? offset / file.size : 1);
  }
  return buffer.buffer;
}

/** Files from a drop event, folders included (one level of entries is enough for a model folder). */
export async function droppedFiles(dataTransfer) {
  const out = [];
  const entries = [...dataTransfer.items].map((item) => item.webkitGetAsEntry?.()).filter(Boolean);
  if (entries.length === 0) return [...dataTransfer.files];
  const fileOf = (entry) => new Promise((resolve, reject) => entry.file(resolve, reject));
  for (const entry of entries) {
    if (entry.isFile) out.push(await fileOf(entry));
    else if (entry.isDirectory) {
      const children = await new Promise((resolve, reject) => entry.createReader().readEntries(resolve, reject));
      for (const child of children) if (child.isFile) out.push(await fileOf(child));
    }
  }
  return out;
}
