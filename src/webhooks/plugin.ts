/**
 * The webhooks area: endpoints under /api/projects/{id}/webhooks, the outbox rows written beside
 * each flag, survey and cohort change's activity entry and for each survey response at ingestion,
 * and the delivery worker every process runs (a cluster's API workers leave it to the background
 * process, cluster/background.ts). See docs/webhooks.md.
 */
import { ACTIVITY_FOLLOWERS } from '../accounts/activity/store.ts';
import { EVENT_PROCESSORS } from '../events/pipeline.ts';
import { defineArea } from '../kernel/area.ts';
import { registerInProject } from '../kernel/http/project-scope.ts';
import { DEFAULT_DELIVERY_SETTINGS, DeliveryWorker, type DeliverySettings } from './delivery/worker.ts';
import type { WebhookDeps } from './deps.ts';
import { webhookActivityFollower } from './events/activity-follower.ts';
import { webhookRaisedEventFollower } from './events/raised-follower.ts';
import { RAISED_EVENT_FOLLOWERS } from '../kernel/raised-events.ts';
import { surveyResponseWebhooks } from './events/survey-responses.ts';
import { webhookRoutes } from './routes.ts';
import { SecretBox } from './secrets.ts';

export interface WebhooksOptions {
  /** SECRET_KEY: when set, signing secrets are stored encrypted with a key derived from it. */
  secretKey?: string | null;
  /** WEBHOOK_ALLOWED_HOSTS: hosts a webhook may reach whatever they resolve to, over http too. */
  webhookAllowedHosts?: ReadonlySet<string>;
  /** SITE_URL: the console's base for links in Slack messages. */
  siteUrl?: string | null;
  /**
   * The delivery worker's settings. `intervalMs` absent or 0 (tests): no timer; this process's own
   * outbox writes wake it, and tests run `app.webhookWorker.runOnce()`. server.ts passes 1 000.
   */
  webhookDelivery?: Partial<Omit<DeliverySettings, 'allowedHosts' | 'siteUrl'>>;
  /**
   * Set in a cluster's API workers: another process delivers (cluster/background.ts). This one's
   * worker never starts, and its outbox writes call this instead of waking it.
   */
  webhooksDeliveredElsewhere?: () => void;
}

declare module 'fastify' {
  interface FastifyInstance {
    webhookWorker: DeliveryWorker;
  }
}

export const webhooks = defineArea<WebhooksOptions>('webhooks', ['kernel', 'accounts', 'flags', 'cohorts', 'ingestion', 'surveys'], async (app, options) => {
  const allowedHosts = options.webhookAllowedHosts ?? new Set<string>();
  const secrets = new SecretBox(options.secretKey);
  const settings: DeliverySettings = {
    ...DEFAULT_DELIVERY_SETTINGS,
    ...options.webhookDelivery,
    allowedHosts,
    siteUrl: options.siteUrl ?? null,
  };
  const worker = new DeliveryWorker(app.kernel.units, secrets, settings, app.log);
  const elsewhere = options.webhooksDeliveredElsewhere;
  const wake = elsewhere ?? (() => worker.wake());
  const deps: WebhookDeps = { ...app.kernel, secrets, allowedHosts, resolve: settings.resolve, wake };
  app.decorate('webhookWorker', worker);
  if (!elsewhere) app.addHook('onReady', async () => worker.start());
  app.addHook('onClose', async () => worker.stop());

  app.extensions.contribute(ACTIVITY_FOLLOWERS, webhookActivityFollower(wake));
  app.extensions.contribute(EVENT_PROCESSORS, surveyResponseWebhooks(wake));
  app.extensions.contribute(RAISED_EVENT_FOLLOWERS, webhookRaisedEventFollower(wake));

  await registerInProject(app, '/webhooks', webhookRoutes(deps));
});
