/** "k1 (ID: 11), k2 (ID: 12) and 3 more": at most five named, in key order. */
export function describeFlags(flags: { id: number; key: string }[]): string {
  const sorted = [...flags].sort((a, b) => a.key.localeCompare(b.key));
  const named = sorted.slice(0, 5).map((f) => `${f.key} (ID: ${f.id})`).join(', ');
  return sorted.length > 5 ? `${named} and ${sorted.length - 5} more` : named;
}
