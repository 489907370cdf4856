// Every statistics formula against an independent implementation: scipy.stats (Debian's
// python3-scipy) on the raw per-unit values, one python process for the whole file. Inputs come
// from a seeded generator so a failure reproduces. p-values and interval ends must agree to 1e-6
// (relative above 1), as must chances to win and the distribution functions.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, before, beforeEach, test } from 'node:test';
import {
  analyzeMetric,
  minimumDetectableEffect,
  sampleRatioMismatch,
  sampleSizePerVariant,
  type BayesianVariantResult,
  type FrequentistVariantResult,
  type MetricType,
  type VariantStats,
} from '../../src/experiments/stats/index.ts';
import {
  chiSquareSurvival,
  normalCdf,
  normalQuantile,
  studentTCdf,
  studentTQuantile,
} from '../../src/experiments/stats/distributions.ts';

const CASES = 1000;
const TOLERANCE = 1e-6;
// Debian's interpreter, where python3-scipy installs (a pyenv python3 on PATH would not have it).
const PYTHON = '/usr/bin/python3';
const REFERENCE = fileURLToPath(new URL('./scipy_reference.py', import.meta.url));

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = seeded(20261127);
const uniform = (lo: number, hi: number) => lo + (hi - lo) * random();
const integer = (lo: number, hi: number) => Math.floor(uniform(lo, hi + 1));
const logUniform = (lo: number, hi: number) => Math.exp(uniform(Math.log(lo), Math.log(hi)));
const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
function poisson(rate: number): number {
  let k = 0;
  for (let p = random(), limit = Math.exp(-rate); p > limit; p *= random()) k++;
  return k;
}

type Method = 'bayesian' | 'frequentist';
type Difference = 'relative' | 'absolute';
interface Comparison {
  method: Method;
  difference: Difference;
  /** ci_level for Bayesian, alpha for frequentist */
  level: number;
}

function comparison(): Comparison {
  const method: Method = random() < 0.5 ? 'bayesian' : 'frequentist';
  return {
    method,
    difference: random() < 0.5 ? 'relative' : 'absolute',
    level: method === 'bayesian' ? uniform(0.8, 0.99) : uniform(0.01, 0.2),
  };
}

function statsConfig(c: Comparison): unknown {
  const difference_type = c.difference === 'absolute' ? 'ABSOLUTE' : 'RELATIVE';
  return c.method === 'bayesian'
    ? { method: 'bayesian', bayesian: { ci_level: c.level, difference_type } }
    : { method: 'frequentist', frequentist: { alpha: c.level, difference_type } };
}

// Per-unit values of a mean metric: event counts, revenue-like amounts, or roughly normal scores.
function meanValues(n: number, kind: number, scale: number): number[] {
  return Array.from({ length: n }, () => {
    if (kind === 0) return poisson(scale);
    if (kind === 1) return Math.round(-Math.log(1 - random()) * scale * 100) / 100;
    return Math.max(0, scale * 10 + gaussian() * scale * 3);
  });
}

const sumOf = (values: number[]) => values.reduce((a, b) => a + b, 0);
const squaresOf = (values: number[]) => values.reduce((a, b) => a + b * b, 0);

interface MeanCase extends Comparison {
  control: number[];
  test: number[];
}
interface FunnelCase extends Comparison {
  control: [number, number];
  test: [number, number];
}
interface RatioGroup {
  num: number[];
  den: number[];
}
interface RatioCase extends Comparison {
  control: RatioGroup;
  test: RatioGroup;
}

function meanCase(): MeanCase {
  const kind = integer(0, 2);
  const scale = logUniform(0.2, 50);
  const lift = uniform(0.8, 1.3);
  return { ...comparison(), control: meanValues(integer(50, 600), kind, scale), test: meanValues(integer(50, 600), kind, scale * lift) };
}

function funnelGroup(rate: number): [number, number] {
  const n = integer(200, 200_000);
  const conversions = Math.min(n - 5, Math.max(5, Math.round(n * rate * uniform(0.9, 1.1))));
  return [n, conversions];
}

function funnelCase(): FunnelCase {
  const rate = uniform(0.03, 0.9);
  return { ...comparison(), control: funnelGroup(rate), test: funnelGroup(rate * uniform(0.85, 1.1)) };
}

function ratioGroup(n: number, perSession: number): RatioGroup {
  const den = Array.from({ length: n }, () => 1 + poisson(2));
  const num = den.map((sessions) => Math.round(sessions * perSession * uniform(0.2, 1.8) * 100) / 100);
  return { num, den };
}

function ratioCase(): RatioCase {
  const perSession = logUniform(0.5, 100);
  return {
    ...comparison(),
    control: ratioGroup(integer(50, 500), perSession),
    test: ratioGroup(integer(50, 500), perSession * uniform(0.85, 1.2)),
  };
}

function srmCase(): { observed: number[]; shares: number[] } {
  const shares = Array.from({ length: integer(2, 5) }, () => integer(1, 60));
  const total = integer(100, 100_000);
  const shareTotal = sumOf(shares);
  const skew = random() < 0.3 ? 0.05 : 0.005;
  return { shares, observed: shares.map((s) => Math.max(1, Math.round((total * s * uniform(1 - skew, 1 + skew)) / shareTotal))) };
}

interface SizeCase {
  metric: 'funnel' | 'mean';
  baseline: number;
  variance: number;
  mde: number;
  alpha: number;
  power: number;
}

function sizeCase(): SizeCase {
  const metric = random() < 0.5 ? 'funnel' : 'mean';
  const baseline = metric === 'funnel' ? uniform(0.01, 0.6) : logUniform(0.1, 1000);
  return {
    metric,
    baseline,
    variance: (baseline * logUniform(0.1, 5)) ** 2,
    mde: metric === 'funnel' ? uniform(0.01, 0.5) : uniform(-0.5, 0.5) || 0.1,
    alpha: uniform(0.01, 0.2),
    power: uniform(0.5, 0.95),
  };
}

const cases = {
  normal_cdf: Array.from({ length: CASES }, () => uniform(-9, 9)),
  normal_ppf: Array.from({ length: CASES }, () => (random() < 0.2 ? logUniform(1e-12, 0.01) : uniform(0.001, 0.999))),
  t_cdf: Array.from({ length: CASES }, () => [uniform(-10, 10), logUniform(1, 1e7)]),
  t_ppf: Array.from({ length: CASES }, () => [random() < 0.2 ? logUniform(1e-8, 0.01) : uniform(0.001, 0.999), logUniform(1, 1e7)]),
  chi2_sf: Array.from({ length: CASES }, () => [uniform(0, 60), integer(1, 20)]),
  mean: Array.from({ length: CASES }, meanCase),
  funnel: Array.from({ length: CASES }, funnelCase),
  ratio: Array.from({ length: CASES }, ratioCase),
  srm: Array.from({ length: CASES }, srmCase),
  sample_size: Array.from({ length: CASES }, sizeCase),
  mde: Array.from({ length: CASES }, () => ({ ...sizeCase(), n: integer(1000, 1_000_000) })),
};

interface Outcome {
  p?: number;
  chance?: number;
  lo: number;
  hi: number;
}
interface Reference {
  normal_cdf: number[];
  normal_ppf: number[];
  t_cdf: number[];
  t_ppf: number[];
  chi2_sf: number[];
  mean: Outcome[];
  funnel: Outcome[];
  ratio: Outcome[];
  srm: number[];
  sample_size: number[];
  mde: number[];
}

let reference: Reference;

before(() => {
  const run = spawnSync(PYTHON, [REFERENCE], { input: JSON.stringify(cases), maxBuffer: 64 * 1024 * 1024, timeout: 120_000 });
  assert.equal(run.status, 0, `scipy reference failed (is python3-scipy installed?): ${run.stderr?.toString()}`);
  reference = JSON.parse(run.stdout.toString()) as Reference;
});

// The largest scaled gap seen in the running test, reported with its result.
let largestGap = 0;

function agree(actual: number | undefined, expected: number, what: string): void {
  assert.ok(actual !== undefined && Number.isFinite(actual), `${what}: no number (${actual})`);
  const gap = Math.abs(actual - expected) / Math.max(1, Math.abs(expected));
  largestGap = Math.max(largestGap, gap);
  assert.ok(gap <= TOLERANCE, `${what}: ${actual} against scipy's ${expected}`);
}

beforeEach(() => {
  largestGap = 0;
});
afterEach((context) => {
  if ('diagnostic' in context) context.diagnostic(`largest gap from scipy: ${largestGap.toExponential(2)}`);
});

test('normal CDF and quantile agree with scipy.stats.norm', () => {
  cases.normal_cdf.forEach((x, i) => agree(normalCdf(x), reference.normal_cdf[i], `Φ(${x})`));
  cases.normal_ppf.forEach((p, i) => agree(normalQuantile(p), reference.normal_ppf[i], `Φ⁻¹(${p})`));
});

test("Student's t CDF and quantile agree with scipy.stats.t (1 to 10⁷ degrees of freedom)", () => {
  cases.t_cdf.forEach(([t, df], i) => agree(studentTCdf(t, df), reference.t_cdf[i], `F(${t}; ${df})`));
  cases.t_ppf.forEach(([p, df], i) => agree(studentTQuantile(p, df), reference.t_ppf[i], `F⁻¹(${p}; ${df})`));
});

test('chi-square upper tail agrees with scipy.stats.chi2.sf', () => {
  cases.chi2_sf.forEach(([x, df], i) => agree(chiSquareSurvival(x, df), reference.chi2_sf[i], `Q(${x}; ${df})`));
});

function checkComparison(type: MetricType, c: Comparison, control: VariantStats, variant: VariantStats, expected: Outcome, what: string): void {
  const result = analyzeMetric(type, control, [variant], statsConfig(c));
  const outcome = result.variant_results[0];
  assert.deepEqual(outcome.validation_failures, [], what);
  if (c.method === 'bayesian') {
    const bayesian = outcome as BayesianVariantResult;
    agree(bayesian.chance_to_win, expected.chance!, `${what} chance_to_win`);
    agree(bayesian.credible_interval?.[0], expected.lo, `${what} lower`);
    agree(bayesian.credible_interval?.[1], expected.hi, `${what} upper`);
    if (Math.abs(expected.chance! - c.level) > 1e-9 && Math.abs(expected.chance! - (1 - c.level)) > 1e-9) {
      assert.equal(bayesian.significant, expected.chance! > c.level || expected.chance! < 1 - c.level, `${what} significant`);
    }
  } else {
    const frequentist = outcome as FrequentistVariantResult;
    agree(frequentist.p_value, expected.p!, `${what} p_value`);
    agree(frequentist.confidence_interval?.[0], expected.lo, `${what} lower`);
    agree(frequentist.confidence_interval?.[1], expected.hi, `${what} upper`);
    if (Math.abs(expected.p! - c.level) > 1e-9) assert.equal(frequentist.significant, expected.p! < c.level, `${what} significant`);
  }
}

test('mean metrics: Welch p-values (scipy ttest_ind on the raw values), intervals, chances to win', () => {
  cases.mean.forEach((c, i) => {
    const control = { key: 'control', number_of_samples: c.control.length, sum: sumOf(c.control), sum_squares: squaresOf(c.control) };
    const variant = { key: 'test', number_of_samples: c.test.length, sum: sumOf(c.test), sum_squares: squaresOf(c.test) };
    checkComparison('mean', c, control, variant, reference.mean[i], `mean case ${i} (${c.method} ${c.difference})`);
  });
});

test('funnel metrics: two-proportion tests, intervals, chances to win', () => {
  cases.funnel.forEach((c, i) => {
    const stats = (key: string, [n, k]: [number, number]) => ({ key, number_of_samples: n, sum: k, sum_squares: k });
    checkComparison('funnel', c, stats('control', c.control), stats('test', c.test), reference.funnel[i], `funnel case ${i} (${c.method} ${c.difference})`);
  });
});

test('ratio metrics: delta-method variance with the covariance (numpy on the raw pairs)', () => {
  cases.ratio.forEach((c, i) => {
    const stats = (key: string, g: RatioGroup): VariantStats => ({
      key,
      number_of_samples: g.num.length,
      sum: sumOf(g.num),
      sum_squares: squaresOf(g.num),
      denominator_sum: sumOf(g.den),
      denominator_sum_squares: squaresOf(g.den),
      numerator_denominator_sum_product: g.num.reduce((acc, x, j) => acc + x * g.den[j], 0),
    });
    checkComparison('ratio', c, stats('control', c.control), stats('test', c.test), reference.ratio[i], `ratio case ${i} (${c.method} ${c.difference})`);
  });
});

test('sample ratio mismatch: p-values of scipy.stats.chisquare, flagged below 0.001', () => {
  let flagged = 0;
  cases.srm.forEach((c, i) => {
    const keys = c.shares.map((_, j) => `v${j}`);
    const result = sampleRatioMismatch(
      Object.fromEntries(keys.map((k, j) => [k, c.observed[j]])),
      Object.fromEntries(keys.map((k, j) => [k, c.shares[j]])),
    );
    assert.ok(result, `srm case ${i}`);
    agree(result.p_value, reference.srm[i], `srm case ${i}`);
    if (Math.abs(reference.srm[i] - 0.001) > 1e-9) assert.equal(result.mismatch, reference.srm[i] < 0.001);
    if (result.mismatch) flagged++;
  });
  // the generator skews about a third of the cases: both answers must occur
  assert.ok(flagged > 50 && flagged < CASES - 50, `${flagged} flagged`);
});

test('calculator: sample sizes and minimum detectable effects agree with scipy (brentq for funnels)', () => {
  cases.sample_size.forEach((c, i) => {
    const expected = reference.sample_size[i];
    const size = sampleSizePerVariant({
      metric: c.metric,
      baseline_value: c.baseline,
      baseline_variance: c.variance,
      minimum_detectable_effect: c.mde,
      alpha: c.alpha,
      power: c.power,
    });
    if (Math.abs(expected - Math.round(expected)) > 1e-6 * expected) assert.equal(size, Math.ceil(expected), `size case ${i}`);
  });
  cases.mde.forEach((c, i) => {
    const effect = minimumDetectableEffect({
      metric: c.metric,
      baseline_value: c.baseline,
      baseline_variance: c.variance,
      samples_per_variant: c.n,
      alpha: c.alpha,
      power: c.power,
    });
    agree(effect, reference.mde[i], `mde case ${i}`);
  });
});
