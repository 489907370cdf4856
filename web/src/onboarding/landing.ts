/**
 * Whether an environment's start page (`/`) is still the checklist: it is until the checklist is
 * complete or dismissed, remembered in this browser per environment (a preference of the person
 * at this browser, not the environment's data), so a finished environment opens on its flags
 * without asking the checklist's questions first.
 */
export type ChecklistEnd = 'complete' | 'dismissed';

const keyOf = (environmentId: number) => `bellwether:checklist:${environmentId}`;

export function checklistEnded(environmentId: number): ChecklistEnd | null {
  try {
    const stored = window.localStorage.getItem(keyOf(environmentId));
    return stored === 'complete' || stored === 'dismissed' ? stored : null;
  } catch {
    return null; // storage refused (a private window's settings): the checklist asks its questions again
  }
}

export function endChecklist(environmentId: number, why: ChecklistEnd | null): void {
  try {
    if (why === null) window.localStorage.removeItem(keyOf(environmentId));
    else window.localStorage.setItem(keyOf(environmentId), why);
  } catch {
    // Not remembered: the start page asks the checklist's questions again next time.
  }
}
