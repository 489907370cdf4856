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

/** "Promote to …": copies the flag shown into `target` through copy_flags, after a preview of what changes there. */
export function PromoteFlag({ flag, from, target, targetFlag }: { flag: FeatureFlag; from: number; target: Project; targetFlag: FeatureFlag | null }) {
  const [open, setOpen] = useState(false);
  const client = useQueryClient();
  const differences = promotionDifferences(flag, targetFlag);
  const promote = useMutation({
    mutationFn: () =>
      api.post<CopyAnswer>('/api/organizations/@current/feature_flags/copy_flags/', {
        feature_flag_key: flag.key,
        from_project: from,
        target_project_ids: [target.id],
      }),
    onSuccess: (answer) => {
      if (answer && answer.failed.length === 0) {
        setOpen(false);
        void client.invalidateQueries({ queryKey: ['flag-in-environment', target.id, flag.key] });
      }
    },
  });
  const refusal = promote.data?.failed[0]?.errors;
  return (
    <>
      <Button size="sm" onClick={() => setOpen(true)} disabled={differences.length === 0}>
        {differences.length === 0 ? 'Same' : `Promote to ${target.name}`}
      </Button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title={`Promote ${flag.key} to ${target.name}?`}
        footer={
          <>
            <Button onClick={() => setOpen(false)}>Cancel</Button>
            <Button variant="primary" loading={promote.isPending} onClick={() => promote.mutate()}>
              Promote
            </Button>
          </>
        }
      >
        <p>{targetFlag === null ? `${target.name} has no flag ${flag.key}: it is created as shown here.` : `${target.name}'s flag changes:`}</p>
        <ul className="promote-differences">
          {differences.map(([field, now, after]) => (
            <li key={field}>
              <strong>{field}</strong>: <span className="mono">{now}</span> → <span className="mono">{after}</span>
            </li>
          ))}
        </ul>
        {promote.isError ? <Notice tone="error">{errorMessage(promote.error)}</Notice> : null}
        {refusal ? <Notice tone="error">{refusal}</Notice> : null}
      </Dialog>
    </>
  );
}
