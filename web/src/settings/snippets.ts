/** Copy-paste set-up code for PostHog's SDKs, pointed at this server. Pure. */

export function posthogJsSnippet(origin: string, token: string): string {
  return `import posthog from 'posthog-js'

posthog.init('${token}', {
  api_host: '${origin}',
})

if (posthog.isFeatureEnabled('my-flag')) {
  // show the new thing
}`;
}

export function posthogNodeSnippet(origin: string, token: string): string {
  return `import { PostHog } from 'posthog-node'

const posthog = new PostHog('${token}', {
  host: '${origin}',
  // For local evaluation, add a personal API key with feature_flag:read:
  // personalApiKey: process.env.POSTHOG_PERSONAL_API_KEY,
})

const enabled = await posthog.isFeatureEnabled('my-flag', 'user-distinct-id')
await posthog.shutdown()`;
}
