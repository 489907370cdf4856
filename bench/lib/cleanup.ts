/**
 * What must be undone however the run ends (servers started, databases created), so that a
 * signal arriving mid-start still stops and drops everything. Undone newest first.
 */
const tasks: Array<() => Promise<void>> = [];

export function registerCleanup(task: () => Promise<void>): () => void {
  tasks.push(task);
  return () => {
    const index = tasks.indexOf(task);
    if (index >= 0) tasks.splice(index, 1);
  };
}

export async function runCleanups(log: (line: string) => void): Promise<void> {
  while (tasks.length > 0) {
    const task = tasks.pop()!;
    await task().catch((error: unknown) => log(`cleanup failed: ${(error as Error).message}`));
  }
}
