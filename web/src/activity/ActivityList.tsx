import { useState, type ReactNode } from 'react';
import { Link } from 'wouter';
import type { ActivityEntry } from '../api/types.ts';
import { authorOf } from './author.ts';
import { ValueDiff } from './ValueDiff.tsx';
import { formatDateTime, formatRelative } from '../lib/format.ts';
import { EmptyState } from '../ui/EmptyState.tsx';
import './activity.css';

const ITEM_NOUNS: Record<string, string> = { FeatureFlag: 'the flag ', Cohort: 'the cohort ', Survey: 'the survey ', Experiment: 'the experiment ', EventDefinition: 'the event ' };
/** The console page of each kind of item an entry can name. */
const ITEM_PAGES: Record<string, string> = { FeatureFlag: '/feature_flags/', Cohort: '/cohorts/', Survey: '/surveys/', Experiment: '/experiments/', EventDefinition: '/data-management/events/' };

function ItemName({ entry }: { entry: ActivityEntry }) {
  const name = <strong className="mono">{entry.detail.name ?? entry.item_id}</strong>;
  const page = ITEM_PAGES[entry.scope];
  return page && entry.item_id ? <Link href={`${page}${encodeURIComponent(entry.item_id)}`}>{name}</Link> : name;
}
const VERBS: Record<string, string> = { created: 'created', updated: 'changed', deleted: 'deleted', restored: 'restored' };

/** An entry the scheduled-change executor wrote (as the schedule's creator): `detail.trigger.job_type`. */
function scheduled(entry: ActivityEntry): boolean {
  const trigger = entry.detail.trigger;
  return typeof trigger === 'object' && trigger !== null && (trigger as { job_type?: unknown }).job_type === 'scheduled_change';
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
                <ItemName entry={entry} />
              </>
            ) : (
              'this'
            )}
            {fields.length > 0 ? <span className="muted"> ({fields.join(', ')})</span> : null}
            {scheduled(entry) ? <span className="muted"> by a scheduled change</span> : null}
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
            <ValueDiff key={index} label={change.field ?? change.type} before={change.before} after={change.after} />
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
