/**
 * The package's root folder (the nearest one above this module holding a package.json): the same
 * answer whether this file runs from src/ through tsx or bundled into dist/server.mjs, so files
 * shipped beside the code (migrations, the built console) are found from either.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return start;
  }
}

export const PACKAGE_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));
