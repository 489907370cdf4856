import { Random } from '../lib/random.ts';

/** What posthog-node's `capture()` takes. */
export interface CaptureProps {
  distinctId: string;
  event: string;
  properties: Record<string, unknown>;
}

const EVENTS = [
  ['$pageview', 45],
  ['button clicked', 20],
  ['search performed', 10],
  ['item added to cart', 10],
  ['user logged in', 7],
  ['checkout completed', 5],
  ['signed up', 3],
] as const;

const PAGES = ['/', '/pricing', '/docs', '/blog', '/product/alpha', '/product/beta', '/cart', '/checkout', '/account', '/search'];
const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge'];
const OSES = ['Mac OS X', 'Windows', 'iOS', 'Android', 'Linux'];
const DEVICES = ['Desktop', 'Mobile', 'Tablet'];
const BUTTONS = ['get started', 'buy now', 'learn more', 'subscribe', 'close', 'next'];
const QUERIES = ['shoes', 'red dress', 'gift card', 'laptop stand', 'coffee', 'headphones'];
const PLANS = ['free', 'starter', 'pro', 'enterprise'];
const SOURCES = ['google', 'newsletter', 'twitter', 'direct', 'partner'];

/**
 * Events as a product sends them: a few names ($pageview most), 5–9 properties each (posthog-node
 * adds $lib, $lib_version and $geoip_disable), `$set` on sign-ups and on some other events,
 * distinct ids drawn from a fixed pool with a skew towards the busiest users.
 */
/** The one survey all generated survey events answer (it need not exist: stats count events by id). */
export const HOT_SURVEY_ID = '0190aaaa-0000-7000-8000-00000000cafe';

export class EventGenerator {
  private readonly random: Random;
  private readonly sessions: string[];
  private counter = 0;

  /** `surveyShare`: the fraction of events that are survey shown / sent / dismissed for HOT_SURVEY_ID. */
  constructor(
    private readonly distinctIds: number,
    seed = 42,
    private readonly surveyShare = 0,
  ) {
    this.random = new Random(seed);
    this.sessions = Array.from({ length: distinctIds }, (_, i) => `0190${(i * 7919).toString(16).padStart(8, '0')}-s`);
  }

  next(): CaptureProps {
    const r = this.random;
    this.counter += 1;
    const user = Math.floor(this.distinctIds * r.next() ** 2);
    if (this.surveyShare > 0 && r.chance(this.surveyShare)) return this.surveyEvent(user);
    const event = r.weighted(EVENTS);
    const page = r.pick(PAGES);
    const properties: Record<string, unknown> = {
      $current_url: `https://shop.example.com${page}`,
      $browser: r.pick(BROWSERS),
      $os: r.pick(OSES),
      $device_type: r.pick(DEVICES),
      $session_id: this.sessions[user],
    };
    switch (event) {
      case '$pageview':
        properties.$pathname = page;
        if (r.chance(0.3)) properties.$referrer = `https://${r.pick(SOURCES)}.example.org/`;
        break;
      case 'button clicked':
        properties.button = r.pick(BUTTONS);
        properties.section = r.pick(['hero', 'nav', 'footer', 'modal']);
        properties.variant = r.pick(['control', 'test']);
        break;
      case 'search performed':
        properties.query = r.pick(QUERIES);
        properties.results_count = r.int(200);
        break;
      case 'item added to cart':
        properties.item_id = `sku-${r.int(5000)}`;
        properties.price = Math.round(r.next() * 20000) / 100;
        properties.quantity = 1 + r.int(3);
        properties.currency = 'EUR';
        break;
      case 'user logged in':
        properties.method = r.pick(['password', 'google', 'magic link']);
        break;
      case 'checkout completed':
        properties.order_id = `order-${this.counter}`;
        properties.amount = Math.round(r.next() * 50000) / 100;
        properties.currency = 'EUR';
        properties.items = 1 + r.int(6);
        break;
      case 'signed up':
        properties.plan = r.pick(PLANS);
        properties.utm_source = r.pick(SOURCES);
        properties.$set = { email: `user${user}@example.com`, plan: properties.plan };
        properties.$set_once = { initial_utm_source: properties.utm_source };
        break;
    }
    if (event !== 'signed up' && r.chance(0.05)) {
      properties.$set = { plan: r.pick(PLANS), last_page: page };
    }
    return { distinctId: `user-${user}`, event, properties };
  }

  /** One hot survey: shown, then sent (half of them partial steps of a submission) or dismissed. */
  private surveyEvent(user: number): CaptureProps {
    const r = this.random;
    const base = { $survey_id: HOT_SURVEY_ID, $survey_name: 'Hot survey', $session_id: this.sessions[user] };
    const kind = r.weighted([['survey shown', 50], ['survey sent', 35], ['survey dismissed', 15]] as const);
    const submission = `0190bbbb-0000-7000-8000-${user.toString(16).padStart(12, '0')}`;
    const properties: Record<string, unknown> = { ...base };
    if (kind === 'survey sent') {
      Object.assign(properties, { $survey_submission_id: submission, $survey_completed: r.chance(0.5), $survey_response: r.pick(['yes', 'no', 'maybe']) });
      properties.$set = { [`$survey_responded/${HOT_SURVEY_ID}`]: true };
    } else if (kind === 'survey dismissed') {
      Object.assign(properties, { $survey_submission_id: submission, $survey_partially_completed: r.chance(0.2) });
    }
    return { distinctId: `user-${user}`, event: kind, properties };
  }
}
