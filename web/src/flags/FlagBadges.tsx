import type { FeatureFlag } from '../api/types.ts';
import { Badge, Tag } from '../ui/Badge.tsx';

const STATUS_HINTS: Record<string, string> = {
  stale: 'Rolled out to everyone for over 30 days: its code can probably be cleaned up.',
  inactive: 'Not evaluated for 30 days (or never, and older than 30 days).',
};

/** Disabled, deleted, stale or inactive: what needs a person's attention. */
export function FlagStatusBadges({ flag }: { flag: Pick<FeatureFlag, 'active' | 'deleted' | 'status'> }) {
  return (
    <>
      {flag.deleted ? <Badge tone="danger">Deleted</Badge> : null}
      {!flag.deleted && !flag.active ? <Badge>Disabled</Badge> : null}
      {!flag.deleted && flag.active ? <Badge tone="success">Enabled</Badge> : null}
      {flag.status === 'stale' ? (
        <Badge tone="warning" title={STATUS_HINTS.stale}>
          Stale
        </Badge>
      ) : null}
      {flag.status === 'inactive' ? (
        <Badge tone="warning" title={STATUS_HINTS.inactive}>
          Inactive
        </Badge>
      ) : null}
    </>
  );
}

export function FlagTags({ tags, evaluationTags = [] }: { tags: string[]; evaluationTags?: string[] }) {
  if (tags.length === 0) return null;
  return (
    <span className="tag-list">
      {tags.map((tag) => (
        <Tag key={tag}>
          {tag}
          {evaluationTags.includes(tag) ? <span title="Evaluation tag"> ⚑</span> : null}
        </Tag>
      ))}
    </span>
  );
}
