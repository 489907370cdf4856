import type { BootstrapResult } from './platform/bootstrap.ts';

/** The lines a person starting the service reads: the URL and, on a first start, the new key. */
export function printStarted(url: string, { generatedKey, projectId }: BootstrapResult): void {
  process.stdout.write(`\nBellwether is running at ${url}\n`);
  if (generatedKey) {
    process.stdout.write(
      `First start: created a personal API key with scope "*" (shown only this once):\n\n    ${generatedKey}\n\n` +
        `Try: curl -H "Authorization: Bearer ${generatedKey}" ${url}/api/projects/${projectId}/feature_flags/\n\n`,
    );
  }
}
