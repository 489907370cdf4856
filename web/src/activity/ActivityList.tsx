import { useState, type ReactNode } from 'react';
import type { ActivityChange, ActivityEntry } from '../api/types.ts';
import { authorOf } from './author.ts';
import { diffValues } from '../lib/diff.ts';
import { formatDateTime, formatRelative } from '../lib/format.ts';
import { EmptyState } from '../ui/EmptyState.tsx';
import './activity.css';

const ITEM_NOUNS: Record<string, string> = { FeatureFlag: 'the flag ', Cohort: 'the cohort ', Survey: 'the survey ', EventDefinition: 'the event ' };
const VERBS: Record<string, string> = { created: 'created', updated: 'changed', deleted: 'deleted', restored: 'restored' };

function ChangeDiff({ change }: { change: ActivityChange }) {
  const lines = diffValues(change.before, change.after);
  return (
    <div className="change">
      <div className="change-field mono">{change.field ?? change.type}</div>
      <pre className="diff" aria-label={`Changes to ${change.field ?? change.type}`}>
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

/** `actions`: buttons an entry offers beside "Show changes" (a flag's history: Revert). */
type EntryActions = (entry: ActivityEntry) => ReactNode;

function Entry({ entry, showItem, actions }: { entry: ActivityEntry; showItem: boolean; actions?: EntryActions }) {
  const changes = entry.detail.changes ?? [];
  const [open, setOpen] = useState(false);
  const who = authorOf(entry);
  const verb = VERBS[entry.activity] ?? entry.activity;
  const fields = changes.map((change) => change.field).filter(Boolean);
  return (
    <li className="activity-entry">
      <div className="activity-head">
        <span className="avatar" aria-hidden="true">
          {who.slice(0, 1).toUpperCase()}
        </span>
        <div className="grow">
          <div>
            <strong>{who}</strong> {verb}{' '}
            {showItem ? (
              <>
                {ITEM_NOUNS[entry.scope] ?? `${entry.scope} `}
                <strong className="mono">{entry.detail.name ?? entry.item_id}</strong>
              </>
            ) : (
              'this'
            )}
            {fields.length > 0 ? <span className="muted"> ({fields.join(', ')})</span> : null}
          </div>
          <div className="muted small" title={formatDateTime(entry.created_at)}>
            {formatRelative(entry.created_at)}
          </div>
        </div>
        {changes.length > 0 ? (
          <button type="button" className="btn btn-ghost btn-sm" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? 'Hide changes' : 'Show changes'}
          </button>
        ) : null}
        {actions?.(entry)}
      </div>
      {open ? (
        <div className="activity-changes">
          {changes.map((change, index) => (
            <ChangeDiff key={index} change={change} />
          ))}
        </div>
      ) : null}
    </li>
  );
}

export function ActivityList({ entries, showItem = false, actions }: { entries: ActivityEntry[]; showItem?: boolean; actions?: EntryActions }) {
  if (entries.length === 0) return <EmptyState title="No activity yet">Changes appear here with who made them.</EmptyState>;
  return (
    <ol className="activity-list">
      {entries.map((entry) => (
        <Entry key={entry.id} entry={entry} showItem={showItem} actions={actions} />
      ))}
    </ol>
  );
}
