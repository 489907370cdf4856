/**
 * Wall-clock times in a named time zone (the project's) and the UTC instants the API speaks.
 * A datetime-local input gives "2026-06-01T14:00" with no zone: the console reads it in the
 * project's zone, as the API reads a schedule's cron.
 */
const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

/** `timeZone` when the browser knows it, else UTC (an unknown name must not break a page). */
export function knownZone(timeZone: string | null | undefined): string {
  if (!timeZone) return 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return timeZone;
  } catch {
    return 'UTC';
  }
}

function wallClockParts(instant: number, timeZone: string): number[] {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instant));
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((item) => item.type === type)?.value ?? 0);
  return [part('year'), part('month'), part('day'), part('hour'), part('minute'), part('second')];
}

/** How far the zone's wall clock is ahead of UTC at `instant`, in milliseconds. */
function offsetAt(instant: number, timeZone: string): number {
  const [year, month, day, hour, minute, second] = wallClockParts(instant, timeZone);
  return Date.UTC(year, month - 1, day, hour, minute, second) - Math.floor(instant / 1000) * 1000;
}

/** "2026-06-01T14:00" on the wall clock of `timeZone` as an ISO instant in UTC; null when not such a text. */
export function zonedToUtc(local: string, timeZone: string): string | null {
  const match = WALL_CLOCK.exec(local);
  if (!match) return null;
  const [year, month, day, hour, minute] = match.slice(1).map(Number);
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  if (Number.isNaN(wall)) return null;
  const zone = knownZone(timeZone);
  // The offset at a first guess, then at the instant it gives: right on both sides of a DST change.
  const guess = wall - offsetAt(wall, zone);
  return new Date(wall - offsetAt(guess, zone)).toISOString();
}

/** The instant as "YYYY-MM-DDTHH:mm" on the wall clock of `timeZone` (a datetime-local input's value). */
export function utcToZoned(iso: string, timeZone: string): string {
  const [year, month, day, hour, minute] = wallClockParts(new Date(iso).getTime(), knownZone(timeZone));
  const two = (value: number) => String(value).padStart(2, '0');
  return `${year}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}`;
}

/** "1 Jun 2026, 14:00" as the wall clock of `timeZone` shows it; "—" for none. */
export function formatInZone(iso: string | null | undefined, timeZone: string): string {
  if (!iso) return '—';
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: knownZone(timeZone) }).format(new Date(iso));
}
