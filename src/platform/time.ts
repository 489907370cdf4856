/** ISO 8601 in UTC with `Z`, the one timestamp format the API answers with. */
export function isoUtc(value: Date): string;
export function isoUtc(value: Date | null): string | null;
export function isoUtc(value: Date | null): string | null {
  return value === null ? null : value.toISOString();
}
