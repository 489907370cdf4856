// Starts Unleash from the package installed on demand in bench/.peers/unleash.
// Run by bench/peers/unleash.ts in a child process; settings come from the environment.
import { pathToFileURL } from 'node:url';

const required = (name) => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is required`);
  return value;
};

const { start } = await import(pathToFileURL(required('UNLEASH_SERVER_ENTRY')).href);

await start({
  db: {
    host: required('BENCH_DB_HOST'),
    port: Number(required('BENCH_DB_PORT')),
    user: required('BENCH_DB_USER'),
    password: process.env.BENCH_DB_PASSWORD ?? '',
    database: required('BENCH_DB_NAME'),
    ssl: false,
  },
  server: { port: Number(required('BENCH_PORT')) },
  logLevel: 'warn',
});
