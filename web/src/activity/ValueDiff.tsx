import { diffValues } from '../lib/diff.ts';
import './diff.css';

/** One field's before → after as a line diff (the history's and a change request's view of a change). */
export function ValueDiff({ label, before, after }: { label: string; before: unknown; after: unknown }) {
  const lines = diffValues(before, after);
  return (
    <div className="change">
      <div className="change-field mono">{label}</div>
      <pre className="diff" aria-label={`Changes to ${label}`}>
        {lines.map((line, index) => (
          <div key={index} className={`diff-line diff-${line.kind}`}>
            <span className="diff-mark" aria-hidden="true">
              {line.kind === 'added' ? '+' : line.kind === 'removed' ? '−' : ' '}
            </span>
            <span className="visually-hidden">{line.kind === 'added' ? 'added: ' : line.kind === 'removed' ? 'removed: ' : ''}</span>
            {line.text}
          </div>
        ))}
      </pre>
    </div>
  );
}
