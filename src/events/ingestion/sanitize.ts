// PostgreSQL stores no NUL character (in text or jsonb) and no unpaired UTF-16 surrogate; both
// can arrive as JSON escapes. They become U+FFFD, as PostHog does, instead of failing the batch.
const UNSTORABLE = /[\u0000\ud800-\udfff]/;
const NUL = /\u0000/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function storableString(text: string): string {
  if (!UNSTORABLE.test(text)) return text;
  return text.replace(NUL, '\ufffd').replace(LONE_SURROGATE, '\ufffd');
}

/** The value with every string (and object key) made storable; unchanged parts are shared. */
export function storableValue(value: unknown): unknown {
  if (typeof value === 'string') return storableString(value);
  if (Array.isArray(value)) return value.map(storableValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[storableString(key)] = storableValue(inner);
    return out;
  }
  return value;
}
