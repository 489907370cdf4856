/** Turning off a flag that served persons lately asks first, saying how many it served. */
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import type { FeatureFlag, PersonsServed } from '../api/types.ts';
import { formatCount } from '../lib/format.ts';
import { useProject, useProjectPath } from '../shell/session.ts';
import { Button } from '../ui/Button.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { flagKeys } from './api.ts';

function useServedQuery() {
  const project = useProject();
  const path = useProjectPath();
  return (id: number) => ({
    queryKey: [...flagKeys.one(project.id, id), 'persons-served'] as const,
    queryFn: ({ signal }: { signal: AbortSignal }) => api.get<PersonsServed>(path(`feature_flags/${id}/persons_served/`), signal),
    staleTime: 0,
  });
}

/** The count while a confirmation is open (null until known or when it could not be read). */
export function usePersonsServed(id: number, enabled: boolean): number | null {
  const query = useServedQuery();
  const served = useQuery({ ...query(id), enabled });
  return served.data?.persons ?? null;
}

export function servedSentence(key: string, persons: number | null): string {
  if (persons === null) return `Bellwether could not count how many persons ${key} served lately.`;
  return `${key} served ${formatCount(persons)} ${persons === 1 ? 'person' : 'persons'} in the last 24 hours.`;
}

interface PendingOff {
  flag: FeatureFlag;
  persons: number | null;
}

/**
 * `request(flag, apply)`: turns a flag off at once when nobody called it in the last 24 hours,
 * otherwise opens `dialog` and applies only on confirmation.
 */
export function useConfirmTurnOff() {
  const client = useQueryClient();
  const query = useServedQuery();
  const [pending, setPending] = useState<(PendingOff & { apply: () => void }) | null>(null);
  const [checking, setChecking] = useState<number | null>(null);

  async function request(flag: FeatureFlag, apply: () => void): Promise<void> {
    setChecking(flag.id);
    let persons: number | null;
    try {
      persons = (await client.fetchQuery(query(flag.id))).persons;
    } catch {
      persons = null;
    } finally {
      setChecking(null);
    }
    if (persons === 0) apply();
    else setPending({ flag, persons, apply });
  }

  const dialog = (
    <Dialog
      open={pending !== null}
      onClose={() => setPending(null)}
      title={pending ? `Turn off ${pending.flag.key}?` : ''}
      footer={
        <>
          <Button onClick={() => setPending(null)}>Cancel</Button>
          <Button
            variant="danger"
            onClick={() => {
              pending?.apply();
              setPending(null);
            }}
          >
            Turn off
          </Button>
        </>
      }
    >
      {pending ? (
        <>
          <p>
            <strong>{servedSentence(pending.flag.key, pending.persons)}</strong>
          </p>
          <p>Once off, every SDK evaluates it as false for everyone within seconds.</p>
        </>
      ) : null}
    </Dialog>
  );
  return { request, checking, dialog };
}
