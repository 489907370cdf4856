/**
 * `format: slack`: Slack's incoming-webhook JSON, a sentence a person reads and a link to the
 * console page (SITE_URL). `text` is the notification's fallback; the blocks show the same.
 */
import type { KnownBlock } from '@slack/types';
import type { WebhookMessage } from '../outbox.ts';

export interface SlackMessage {
  text: string;
  blocks: KnownBlock[];
}

/** Slack's limit on a section's text. */
const SECTION_TEXT_LIMIT = 3000;

interface Named {
  id?: unknown;
  key?: unknown;
  name?: unknown;
  active?: unknown;
}

function actorName(data: Record<string, unknown>): string {
  const actor = data.actor as { first_name?: string; email?: string } | null | undefined;
  return actor?.first_name || actor?.email || 'Bellwether';
}

/** Slack's mrkdwn treats &, < and > as markup. */
function escape(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

function flagSentence(message: WebhookMessage, who: string, flag: Named): string {
  const key = `*${escape(String(flag.key ?? flag.id))}*`;
  const served = typeof message.data.served_persons_24h === 'number' ? ` (served ${message.data.served_persons_24h.toLocaleString('en-US')} persons in the last 24 h)` : '';
  if (message.type === 'feature_flag.created') return `${who} created the feature flag ${key}`;
  if (message.type === 'feature_flag.deleted') return `${who} deleted the feature flag ${key}${served}`;
  const changes = (message.data.changes as { field: string; after: unknown }[] | undefined) ?? [];
  const active = changes.find((change) => change.field === 'active');
  if (active) return `${who} turned ${active.after === true ? 'on' : 'off'} ${key}${served}`;
  const fields = changes.map((change) => change.field).filter((field) => field !== 'version');
  return `${who} changed ${key}${fields.length ? ` (${escape(fields.join(', '))})` : ''}`;
}

function sentence(message: WebhookMessage): { text: string; path: string | null } {
  const who = escape(actorName(message.data));
  const object = (message.data.object ?? {}) as Named;
  const name = `*${escape(String(object.name ?? object.id ?? ''))}*`;
  switch (message.type) {
    case 'feature_flag.created':
    case 'feature_flag.updated':
    case 'feature_flag.deleted':
      return { text: flagSentence(message, who, object), path: `/feature_flags/${String(object.id)}` };
    case 'survey.created':
      return { text: `${who} created the survey ${name}`, path: `/surveys/${String(object.id)}` };
    case 'survey.launched':
      return { text: `${who} launched the survey ${name}`, path: `/surveys/${String(object.id)}` };
    case 'survey.stopped':
      return { text: `${who} stopped the survey ${name}`, path: `/surveys/${String(object.id)}` };
    case 'survey.response': {
      const survey = (message.data.survey ?? {}) as Named;
      const answers = Object.values(((object as { answers?: Record<string, unknown> }).answers ?? {}) as Record<string, unknown>).filter((a) => a !== null);
      const first = answers.length ? `: “${escape(cut(Array.isArray(answers[0]) ? answers[0].join(', ') : String(answers[0]), 500))}”` : '';
      return { text: `New response to the survey *${escape(String(survey.name ?? ''))}*${first}`, path: `/surveys/${String(survey.id)}` };
    }
    case 'cohort.updated':
      return { text: `${who} updated the cohort ${name}`, path: `/cohorts/${String(object.id)}` };
    case 'webhook.ping':
      return { text: 'Test message from Bellwether: this channel receives its notifications.', path: '/settings/webhooks' };
    default:
      return { text: `${who}: ${escape(message.type)}`, path: null };
  }
}

/** The Slack body of a message; `siteUrl` null leaves the link out. */
export function slackMessage(message: WebhookMessage, siteUrl: string | null): SlackMessage {
  const { text, path } = sentence(message);
  const line = cut(text, SECTION_TEXT_LIMIT);
  const blocks: KnownBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text: line } }];
  if (siteUrl !== null && path !== null) {
    const project = (message.data.project ?? {}) as { name?: string };
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: cut(`<${siteUrl}${path}|Open in Bellwether>${project.name ? ` · ${escape(project.name)}` : ''}`, SECTION_TEXT_LIMIT) }],
    });
  }
  return { text: line, blocks };
}
