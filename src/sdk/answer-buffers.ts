/**
 * Memory for the `/flags` detail answers. `Buffer.allocUnsafe` gives an answer of this size (tens
 * of KB, above Node's own pool) an ArrayBuffer of its own, whose allocation and external-memory
 * accounting cost as much as filling it. Answers are instead carved, one after the other, out of a
 * shared slab, as Node's pool does for small buffers: a slab is never handed out twice (a new one
 * replaces it when full) and lives until the last answer cut from it is collected. Answers larger
 * than a quarter of a slab get their own memory.
 */
const SLAB_BYTES = 1 << 20;

let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
let used = 0;

/** `size` bytes of uninitialised memory that nothing else refers to. */
export function answerBuffer(size: number): Buffer {
  if (size > SLAB_BYTES / 4) return Buffer.allocUnsafeSlow(size);
  if (used + size > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    used = 0;
  }
  const buffer = slab.subarray(used, used + size);
  // The next answer starts on an 8-byte boundary, as Node's pool aligns its buffers.
  used += (size + 7) & ~7;
  return buffer;
}
