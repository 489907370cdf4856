// Sample ratio mismatch: Pearson's chi-square goodness of fit of exposures against the split.
import { chiSquareSurvival } from './distributions.ts';

export interface SampleRatioMismatch {
  /** expected exposures per variant, scaled to the observed total */
  expected: Record<string, number>;
  p_value: number;
  /** p < 0.001: units are not split across variants as configured */
  mismatch: boolean;
}

export const SRM_THRESHOLD = 0.001;
export const SRM_MIN_TOTAL = 100;

/**
 * `expectedPercent` is each variant's share (rollout percentages, any positive scale: they are
 * renormalised). Variants with no share are left out, as are exposures of variants with no share.
 * Null when fewer than two variants remain or fewer than 100 units were exposed.
 */
export function sampleRatioMismatch(
  exposures: Record<string, number>,
  expectedPercent: Record<string, number>,
): SampleRatioMismatch | null {
  const keys = Object.keys(expectedPercent).filter((key) => {
    const share = expectedPercent[key];
    return typeof share === 'number' && Number.isFinite(share) && share > 0;
  });
  if (keys.length < 2) return null;
  const observed = keys.map((key) => {
    const count = exposures[key];
    return typeof count === 'number' && Number.isFinite(count) && count > 0 ? count : 0;
  });
  const total = observed.reduce((a, b) => a + b, 0);
  if (total < SRM_MIN_TOTAL) return null;
  const shareTotal = keys.reduce((sum, key) => sum + expectedPercent[key], 0);
  const expected: Record<string, number> = {};
  let chiSquare = 0;
  keys.forEach((key, i) => {
    const want = (total * expectedPercent[key]) / shareTotal;
    expected[key] = want;
    chiSquare += (observed[i] - want) ** 2 / want;
  });
  const pValue = chiSquareSurvival(chiSquare, keys.length - 1);
  return { expected, p_value: pValue, mismatch: pValue < SRM_THRESHOLD };
}
