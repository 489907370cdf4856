import { chmodSync, statSync } from 'node:fs';
import path from 'node:path';

function ancestorsOf(target: string): string[] {
  const dirs: string[] = [];
  let current = path.resolve(target);
  for (;;) {
    dirs.unshift(current);
    const parent = path.dirname(current);
    if (parent === current) return dirs;
    current = parent;
  }
}

/**
 * As root, the embedded PostgreSQL runs as an unprivileged system user, which needs search
 * permission on every folder above its data and its binaries. A fresh clone under `mktemp -d`
 * (mode 0700) or /root lacks it, so the missing "others may traverse" bit (o+x: enter, not list)
 * is added to exactly those folders, and each change is reported.
 */
export function grantTraversal(targets: string[], report: (message: string) => void): void {
  const seen = new Set<string>();
  for (const target of targets) {
    for (const dir of ancestorsOf(target)) {
      if (seen.has(dir)) continue;
      seen.add(dir);
      const { mode } = statSync(dir);
      if ((mode & 0o001) !== 0) continue;
      chmodSync(dir, (mode & 0o7777) | 0o001);
      report(`added search permission for others (o+x) to ${dir}, so that the PostgreSQL system user can reach ${target}`);
    }
  }
}
