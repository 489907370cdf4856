/** A variant's lift with its interval, drawn on a scale shared by the rows of one metric (zero marked). */
export interface Scale {
  min: number;
  max: number;
}

/** A scale holding every interval and zero, with a little room either side. */
export function scaleFor(intervals: Array<[number, number]>): Scale {
  let min = 0;
  let max = 0;
  for (const [lo, hi] of intervals) {
    min = Math.min(min, lo);
    max = Math.max(max, hi);
  }
  const pad = (max - min) * 0.08 || 0.1;
  return { min: min - pad, max: max + pad };
}

const WIDTH = 200;
const HEIGHT = 22;

export function LiftInterval({ interval, scale, label, tone }: { interval: [number, number]; scale: Scale; label: string; tone: 'win' | 'lose' | 'neutral' }) {
  const x = (value: number) => ((value - scale.min) / (scale.max - scale.min)) * WIDTH;
  const [lo, hi] = interval;
  const mid = (lo + hi) / 2;
  return (
    <svg className={`lift-interval lift-${tone}`} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={label}>
      <line className="lift-zero" x1={x(0)} x2={x(0)} y1={0} y2={HEIGHT} />
      <rect className="lift-bar" x={x(lo)} y={HEIGHT / 2 - 4} width={Math.max(1, x(hi) - x(lo))} height={8} rx={3} />
      <line className="lift-point" x1={x(mid)} x2={x(mid)} y1={HEIGHT / 2 - 7} y2={HEIGHT / 2 + 7} />
    </svg>
  );
}
