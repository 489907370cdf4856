/**
 * A daily trend as lines, one per series (uPlot, loaded only on pages with a chart). The same numbers
 * are in a table for screen readers and for reading exact values.
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface TrendLine {
  label: string;
  values: number[];
}

const COLORS = ['#1d4ed8', '#e8590c', '#2f9e44', '#ae3ec9', '#0c8599', '#e03131', '#5c940d', '#f08c00'];

export default function TrendChart({ days, lines, title }: { days: string[]; lines: TrendLine[]; title: string }) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const x = days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
    const options: uPlot.Options = {
      width: Math.max(280, element.clientWidth),
      height: 260,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max * 1.1))] } },
      // Counts: whole-number ticks only.
      axes: [{ grid: { stroke: '#eef0f3' } }, { grid: { stroke: '#eef0f3' }, size: 48, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 100_000, 1_000_000] }],
      legend: { show: true },
      series: [{}, ...lines.map((line, index) => ({ label: line.label, stroke: COLORS[index % COLORS.length], width: 2, points: { show: days.length <= 31 } }))],
    };
    const chart = new uPlot(options, [x, ...lines.map((line) => line.values)], element);
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(280, element.clientWidth), height: 260 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [days, lines]);
  return (
    <figure className="chart">
      <div ref={container} className="chart-canvas" role="img" aria-label={title} />
      <details className="chart-table">
        <summary>Show the numbers</summary>
        <div className="table-wrap">
          <table className="table compact">
            <caption className="visually-hidden">{title}</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {lines.map((line) => (
                  <th key={line.label} scope="col">
                    {line.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {days.map((day, index) => (
                <tr key={day}>
                  <td className="nowrap">{day}</td>
                  {lines.map((line) => (
                    <td key={line.label}>{line.values[index] ?? 0}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
