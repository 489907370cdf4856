import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const UNLEASH_VERSION = '7.5.1';

/** Git-ignored: the peer never becomes a dependency of the project. */
export const UNLEASH_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../.peers/unleash');

function installedVersion(): string | null {
  const manifest = path.join(UNLEASH_DIR, 'node_modules/unleash-server/package.json');
  if (!existsSync(manifest)) return null;
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version ?? null;
}

/**
 * Installs unleash-server into bench/.peers/unleash unless that version is already there
 * (about 40 s the first time). Install scripts stay off: Unleash runs without them.
 * Returns the path of the package's entry module.
 */
export async function ensureUnleashInstalled(log: (line: string) => void): Promise<string> {
  if (installedVersion() !== UNLEASH_VERSION) {
    mkdirSync(UNLEASH_DIR, { recursive: true });
    log(`installing unleash-server@${UNLEASH_VERSION} into ${path.relative(process.cwd(), UNLEASH_DIR)} (about 40 s, once)`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const args = ['install', `unleash-server@${UNLEASH_VERSION}`, '--prefix', UNLEASH_DIR, '--save-exact', '--ignore-scripts', '--no-audit', '--no-fund'];
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(npm, args, { stdio: ['ignore', 'inherit', 'inherit'] });
      child.once('error', reject);
      child.once('exit', resolve);
    });
    if (code !== 0) throw new Error(`npm ${args.join(' ')} failed with exit code ${code}`);
    const version = installedVersion();
    if (version !== UNLEASH_VERSION) throw new Error(`expected unleash-server ${UNLEASH_VERSION} after install, found ${version}`);
  }
  return createRequire(path.join(UNLEASH_DIR, 'package.json')).resolve('unleash-server');
}
