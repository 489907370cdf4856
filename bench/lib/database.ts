import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { registerCleanup } from './cleanup.ts';

/** A fresh database on the machine's PostgreSQL, for one server under test. */
export interface BenchDatabase {
  name: string;
  url: string;
  host: string;
  port: number;
  user: string;
  password: string;
  drop(): Promise<void>;
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function createBenchDatabase(adminUrl: string, label: string): Promise<BenchDatabase> {
  const name = `bench_${label}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const parsed = new URL(adminUrl);
  parsed.pathname = `/${name}`;
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    unregister();
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  };
  const unregister = registerCleanup(drop);
  return {
    name,
    url: parsed.toString(),
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username || 'postgres'),
    password: decodeURIComponent(parsed.password),
    drop,
  };
}
