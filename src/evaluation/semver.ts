/**
 * Versions for the `semver_*` operators, read the way current posthog-node reads them: surrounding
 * space and a leading `v`/`V` dropped, everything from the first `-` or `+` (pre-release, build)
 * ignored, missing parts are 0, parts past the third ignored (`1.2.3.4` = 1.2.3). Leading zeros are
 * accepted (`3.08` = 3.8) as PostHog's flags service accepts them; posthog-node cannot decide those
 * and asks the server. Anything else is not a version and the condition fails.
 */
import { looseText } from './values.ts';
export type Version = [number, number, number];

const DIGITS = /^\d+$/;

function part(text: string | undefined): number | null {
  if (text === undefined || text === '') return 0;
  return DIGITS.test(text) ? Number.parseInt(text, 10) : null;
}

export function parseVersion(value: unknown): Version | null {
  const text = looseText(value).trim().replace(/^[vV]/, '');
  const core = text.split('-')[0].split('+')[0];
  if (!core || core.startsWith('.')) return null;
  const parts = core.split('.');
  const major = part(parts[0]);
  const minor = part(parts[1]);
  const patch = part(parts[2]);
  return major === null || minor === null || patch === null ? null : [major, minor, patch];
}

export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

export interface VersionRange {
  lower: Version;
  /** Exclusive; null means no upper bound. */
  upper: Version | null;
}

/** `~X.Y.Z`: at least X.Y.Z, below X.(Y+1).0. */
export function tildeRange(value: unknown): VersionRange | null {
  const v = parseVersion(value);
  return v && { lower: v, upper: [v[0], v[1] + 1, 0] };
}

/** `^X.Y.Z`: below the next change of the left-most non-zero part (`^0.0.Z` below 0.0.(Z+1)). */
export function caretRange(value: unknown): VersionRange | null {
  const v = parseVersion(value);
  if (!v) return null;
  const [major, minor, patch] = v;
  const upper: Version = major > 0 ? [major + 1, 0, 0] : minor > 0 ? [0, minor + 1, 0] : [0, 0, patch + 1];
  return { lower: v, upper };
}

/**
 * `X.*` / `X` → [X.0.0, (X+1).0.0); `X.Y.*` / `X.Y` / `X.Y.Z` → [X.Y.0, X.(Y+1).0) (a third part is
 * ignored, as in posthog-node). An empty, `*`, `x` or `X` minor place means "any minor" (`1.*.*`,
 * `1.x`); a bare `*` matches every version (posthog-node leaves those to the server).
 */
export function wildcardRange(value: unknown): VersionRange | null {
  const text = looseText(value).trim().replace(/^[vV]/, '');
  const cleaned = text.replace(/\.\*$/, '').replace(/\*$/, '');
  if (text === '*' || /^[*xX](\.[*xX])*$/.test(text)) return { lower: [0, 0, 0], upper: null };
  if (!cleaned) return null;
  const parts = cleaned.split('.');
  const major = parts[0] !== undefined && DIGITS.test(parts[0]) ? Number.parseInt(parts[0], 10) : null;
  if (major === null) return null;
  const minorText = parts[1];
  if (minorText === undefined || /^[*xX]?$/.test(minorText)) return { lower: [major, 0, 0], upper: [major + 1, 0, 0] };
  if (!DIGITS.test(minorText)) return null;
  const minor = Number.parseInt(minorText, 10);
  return { lower: [major, minor, 0], upper: [major, minor + 1, 0] };
}

export function inRange(version: Version, range: VersionRange): boolean {
  return compareVersions(version, range.lower) >= 0 && (range.upper === null || compareVersions(version, range.upper) < 0);
}
