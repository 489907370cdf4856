/** Reverting a history entry: its `before` values written as a new change, against the flag's version. */
import { useState } from 'react';
import { errorMessage } from '../api/errors.ts';
import type { ActivityEntry, FeatureFlag } from '../api/types.ts';
import { formatDateTime } from '../lib/format.ts';
import { Button } from '../ui/Button.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { Notice } from '../ui/Feedback.tsx';
import { useToast } from '../ui/Toast.tsx';
import { useUpdateFlag } from './api.ts';
import { revertChanges } from './revert.ts';

function describeValue(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'nothing' : text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

/** `button(entry)` for each history entry, and the one confirmation dialog they open. */
export function useFlagRevert(flag: FeatureFlag) {
  const [entry, setEntry] = useState<ActivityEntry | null>(null);
  const update = useUpdateFlag(flag.id);
  const toast = useToast();
  const changes = entry ? revertChanges(entry) : null;

  function close() {
    setEntry(null);
    update.reset();
  }

  const button = (candidate: ActivityEntry) =>
    flag.can_edit && revertChanges(candidate) !== null ? (
      <Button size="sm" variant="ghost" onClick={() => setEntry(candidate)} aria-label={`Revert the change of ${formatDateTime(candidate.created_at)}`}>
        Revert
      </Button>
    ) : null;

  const dialog = (
    <Dialog
      open={entry !== null}
      onClose={close}
      title={entry?.activity === 'created' ? `Undo creating ${flag.key}?` : `Revert this change to ${flag.key}?`}
      footer={
        <>
          <Button onClick={close}>Cancel</Button>
          <Button
            variant="danger"
            loading={update.isPending}
            onClick={() =>
              changes &&
              update.mutate(
                { changes, version: flag.version },
                {
                  onSuccess: (saved) => {
                    close();
                    toast.show(`Reverted: "${saved.key}" is at version ${saved.version}.`);
                  },
                },
              )
            }
          >
            Revert
          </Button>
        </>
      }
    >
      {entry && changes ? (
        <>
          <p>
            A new change sets {entry.activity === 'created' ? 'the flag to deleted (you can restore it)' : 'these fields back to what they were before it'}:
          </p>
          <ul className="revert-fields">
            {Object.entries(changes).map(([field, value]) => (
              <li key={field}>
                <span className="mono">{field}</span> → <span className="mono">{describeValue(value)}</span>
              </li>
            ))}
          </ul>
          <p className="muted small">It applies only if nobody changed the flag since this page loaded it (version {flag.version}).</p>
        </>
      ) : null}
      {update.isError ? <Notice tone="error">{errorMessage(update.error)}</Notice> : null}
    </Dialog>
  );
  return { button, dialog };
}
