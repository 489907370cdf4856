/** Exposures per variant over time (cumulative), the totals, and the sample-ratio warning. */
import { lazy, Suspense } from 'react';
import { errorMessage } from '../api/errors.ts';
import { formatCount } from '../lib/format.ts';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { Card } from '../ui/Page.tsx';
import type { ExposureResult } from './types.ts';

const TrendChart = lazy(() => import('../charts/TrendChart.tsx'));

function dayBefore(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}

// PostHog's health check flags a split this unlikely.
const SRM_P = 0.001;

export function SampleRatioWarning({ exposures }: { exposures: ExposureResult }) {
  const srm = exposures.sample_ratio_mismatch;
  if (!srm || srm.p_value >= SRM_P) return null;
  const expected = Object.entries(srm.expected)
    .map(([key, count]) => `${key} ${formatCount(exposures.total_exposures[key] ?? 0)} (expected ${formatCount(Math.round(count))})`)
    .join(', ');
  return (
    <Notice tone="warning">
      <strong>Users are not split across variants as configured</strong> (sample ratio mismatch, p = {srm.p_value.toExponential(2)}): {expected}. Results may be biased;
      check how the flag is called and who is excluded.
    </Notice>
  );
}

export function ExposuresPanel({ query }: { query: { data?: ExposureResult; isPending: boolean; isError: boolean; error: unknown; refetch: () => unknown } }) {
  if (query.isPending) return <Spinner label="Counting exposures…" />;
  if (query.isError) return <ErrorNotice error={query.error} title={`Exposures could not be counted: ${errorMessage(query.error)}`} onRetry={() => void query.refetch()} />;
  const exposures = query.data!;
  const series = exposures.timeseries;
  // A single day draws no line: start the chart from zero the day before.
  const firstDays = series[0]?.days ?? [];
  const padded = firstDays.length === 1;
  const days = padded ? [dayBefore(firstDays[0]), ...firstDays] : firstDays;
  const lines = series.map((line) => ({ label: line.variant, values: padded ? [0, ...line.exposure_counts] : line.exposure_counts }));
  const total = Object.values(exposures.total_exposures).reduce((a, b) => a + b, 0);
  return (
    <Card title="Exposures">
      <div className="stack-sm">
        <p className="exposure-totals">
          {series.length === 0 ? (
            <span className="muted">Nobody has been exposed yet: exposure is a person's first $feature_flag_called for this flag after the launch.</span>
          ) : (
            <>
              <strong>{formatCount(total)}</strong> exposed ·{' '}
              {Object.entries(exposures.total_exposures)
                .map(([key, count]) => `${key} ${formatCount(count)}`)
                .join(' · ')}
            </>
          )}
        </p>
        {days.length > 0 && series.length > 0 ? (
          <Suspense fallback={<Spinner label="Drawing the chart…" />}>
            <TrendChart days={days} lines={lines} title="Exposed users per variant, cumulative" />
          </Suspense>
        ) : null}
      </div>
    </Card>
  );
}
