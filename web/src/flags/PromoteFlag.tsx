import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import { errorMessage } from '../api/errors.ts';
import type { FeatureFlag, Project } from '../api/types.ts';
import { Button } from '../ui/Button.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { Notice } from '../ui/Feedback.tsx';
import { releaseSummary, variantCount } from './flag-summary.ts';

interface CopyAnswer {
  success: unknown[];
  failed: { project_id: number; errors: string }[];
}

/** What promoting changes in the target, field by field, in words: [field, now, after]. */
export function promotionDifferences(source: FeatureFlag, target: FeatureFlag | null): [string, string, string][] {
  const describe = (flag: FeatureFlag | null): Record<string, string> =>
    flag === null
      ? { State: 'Not there', Release: '–', Variants: '–', Payloads: '–', Conditions: '–' }
      : {
          State: flag.active ? 'On' : 'Off',
          Release: releaseSummary(flag.filters),
          Variants: String(variantCount(flag.filters)),
          Payloads: JSON.stringify(flag.filters.payloads ?? {}),
          Conditions: JSON.stringify(flag.filters.groups ?? []),
        };
  const before = describe(target);
  const after = describe(source);
  return Object.keys(after)
    .filter((field) => before[field] !== after[field])
    .map((field) => [field, before[field], after[field]]);
}

/** What the preview saw in the target, sent back so a target changed since is not overwritten. */
function precondition(seen: FeatureFlag | null): Record<string, string> {
  return seen === null ? { 'if-none-match': '*' } : { 'if-match': `"${seen.version}"` };
}

/** Whether the target's flag now is not the one the preview was made from. */
function changedSince(seen: FeatureFlag | null, now: FeatureFlag | null): boolean {
  return (seen === null) !== (now === null) || (seen !== null && now !== null && (seen.id !== now.id || seen.version !== now.version));
}

/**
 * "Promote to …": copies the flag shown into `target` through copy_flags, after a preview of what
 * changes there. The preview is made from the target's flag as it was when the dialog opened, and
 * the copy is sent with that version (If-Match): a target changed since is refused, not overwritten.
 */
export function PromoteFlag({ flag, from, target, targetFlag }: { flag: FeatureFlag; from: number; target: Project; targetFlag: FeatureFlag | null }) {
  const [seen, setSeen] = useState<{ flag: FeatureFlag | null } | null>(null);
  const client = useQueryClient();
  const targetKey = ['flag-in-environment', target.id, flag.key];
  const promote = useMutation({
    mutationFn: (previewed: FeatureFlag | null) =>
      api.post<CopyAnswer>(
        '/api/organizations/@current/feature_flags/copy_flags/',
        { feature_flag_key: flag.key, from_project: from, target_project_ids: [target.id] },
        precondition(previewed),
      ),
    onSuccess: (answer) => {
      if (answer && answer.failed.length === 0) setSeen(null);
      void client.invalidateQueries({ queryKey: targetKey });
    },
  });
  const open = (now: FeatureFlag | null) => {
    promote.reset();
    setSeen({ flag: now });
  };
  const previewed = seen?.flag ?? null;
  const differences = promotionDifferences(flag, seen ? previewed : targetFlag);
  const refusal = promote.data?.failed[0]?.errors;
  const stale = seen !== null && refusal !== undefined && changedSince(previewed, targetFlag);
  return (
    <>
      <Button size="sm" onClick={() => open(targetFlag)} disabled={promotionDifferences(flag, targetFlag).length === 0}>
        {promotionDifferences(flag, targetFlag).length === 0 ? 'Same' : `Promote to ${target.name}`}
      </Button>
      <Dialog
        open={seen !== null}
        onClose={() => setSeen(null)}
        title={`Promote ${flag.key} to ${target.name}?`}
        footer={
          <>
            <Button onClick={() => setSeen(null)}>Cancel</Button>
            {stale ? (
              <Button variant="primary" onClick={() => open(targetFlag)}>
                Preview again
              </Button>
            ) : (
              <Button variant="primary" loading={promote.isPending} disabled={refusal !== undefined} onClick={() => promote.mutate(previewed)}>
                Promote
              </Button>
            )}
          </>
        }
      >
        <p>{previewed === null ? `${target.name} has no flag ${flag.key}: it is created as shown here.` : `${target.name}'s flag changes:`}</p>
        <ul className="promote-differences">
          {differences.map(([field, now, after]) => (
            <li key={field}>
              <strong>{field}</strong>: <span className="mono">{now}</span> → <span className="mono">{after}</span>
            </li>
          ))}
        </ul>
        {promote.isError ? <Notice tone="error">{errorMessage(promote.error)}</Notice> : null}
        {stale ? (
          <Notice tone="warning">
            <strong>{target.name}'s flag changed since you looked — preview again.</strong> Nothing was promoted. {refusal}
          </Notice>
        ) : refusal ? (
          <Notice tone="error">{refusal}</Notice>
        ) : null}
      </Dialog>
    </>
  );
}
