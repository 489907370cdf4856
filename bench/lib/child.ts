import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { registerCleanup } from './cleanup.ts';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ServiceProcess {
  name: string;
  pid: number;
  /** The last lines the process wrote, for error messages. */
  output(): string;
  stop(): Promise<void>;
}

export interface SpawnOptions {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Polled until it answers 200. */
  readyUrl: string;
  readyTimeoutMs?: number;
}

const OUTPUT_LINES = 60;

/** Starts a server as a child process and resolves once its ready URL answers 200. */
export async function spawnService(options: SpawnOptions): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      lines.push(line);
      if (lines.length > OUTPUT_LINES) lines.shift();
    }
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: number | string | null = null;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = code ?? signal ?? 'unknown';
      resolve();
    });
  });

  const stop = async () => {
    unregister();
    if (exited !== null) return;
    child.kill('SIGTERM');
    const stopped = await Promise.race([exit.then(() => true), sleep(10_000).then(() => false)]);
    if (!stopped) {
      child.kill('SIGKILL');
      await exit;
    }
  };
  const unregister = registerCleanup(stop);
  const service: ServiceProcess = { name: options.name, pid: child.pid ?? -1, output: () => lines.join('\n'), stop };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 180_000);
  while (Date.now() < deadline) {
    if (exited !== null) {
      throw new Error(`${options.name} exited (${exited}) before it was ready:\n${service.output()}`);
    }
    try {
      const response = await fetch(options.readyUrl);
      await response.arrayBuffer();
      if (response.status === 200) return service;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  await service.stop();
  throw new Error(`${options.name} was not ready at ${options.readyUrl} within the time limit:\n${service.output()}`);
}
