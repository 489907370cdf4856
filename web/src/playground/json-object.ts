/** Reads a text field that must hold a JSON object (empty = {}): the object, or the problem in words. */
export function readJsonObject(text: string): { value: Record<string, unknown> } | { problem: string } {
  if (text.trim() === '') return { value: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: 'This is not valid JSON.' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { problem: 'This must be a JSON object, e.g. {"plan": "pro"}.' };
  return { value: parsed as Record<string, unknown> };
}
