import type { FastifyInstance } from 'fastify';
import { accounts, type AccountsOptions } from './accounts/plugin.ts';
import { approvals } from './approvals/plugin.ts';
import { cohorts } from './cohorts/plugin.ts';
import { webConsole, type ConsoleOptions } from './console/plugin.ts';
import { dashboards } from './dashboards/plugin.ts';
import { earlyAccess } from './early-access/plugin.ts';
import { ingestion } from './events/ingestion/plugin.ts';
import { eventsList } from './events/list/plugin.ts';
import { experiments, type ExperimentsOptions } from './experiments/plugin.ts';
import { persons } from './events/persons/plugin.ts';
import { taxonomy } from './events/taxonomy/plugin.ts';
import { flags } from './flags/plugin.ts';
import { createServer, kernel, type KernelOptions, type ServerOptions } from './kernel/plugin.ts';
import { openApi } from './openapi/plugin.ts';
import { publicSurface } from './public/plugin.ts';
import { scheduledChanges, type ScheduledChangesOptions } from './scheduled-changes/plugin.ts';
import { sdk, type SdkOptions } from './sdk/plugin.ts';
import { surveys, type SurveysOptions } from './surveys/plugin.ts';
import { webhooks, type WebhooksOptions } from './webhooks/plugin.ts';

/** Each part declares the options it takes. */
export type AppOptions = ServerOptions & KernelOptions & AccountsOptions & SdkOptions & SurveysOptions & WebhooksOptions & ConsoleOptions & ScheduledChangesOptions & ExperimentsOptions;

export type App = FastifyInstance;

/**
 * The kernel, the OpenAPI document, then one plugin per area. An area that uses another's
 * decorations (flag cache, project tokens, authenticator) comes after it; adding an area is one
 * line here.
 */
export async function buildApp(options: AppOptions): Promise<App> {
  const app = createServer(options);
  await app.register(kernel, options);
  await app.register(openApi);
  await app.register(accounts, options);
  await app.register(publicSurface);
  await app.register(flags);
  // Before approvals: its flag guard refuses an edit before a change request is made for it.
  await app.register(earlyAccess);
  await app.register(scheduledChanges, options);
  await app.register(approvals);
  await app.register(cohorts);
  await app.register(dashboards);
  await app.register(ingestion);
  await app.register(sdk, options);
  await app.register(surveys, options);
  await app.register(experiments, options);
  await app.register(persons);
  await app.register(eventsList);
  await app.register(taxonomy);
  await app.register(webhooks, options);
  await app.register(webConsole, options);
  return app;
}
