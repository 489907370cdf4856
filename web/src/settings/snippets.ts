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

export function posthogPythonSnippet(origin: string, token: string): string {
  return `# pip install posthog
from posthog import Posthog

posthog = Posthog('${token}', host='${origin}')

posthog.capture(distinct_id='user-distinct-id', event='first event')
enabled = posthog.feature_enabled('my-flag', 'user-distinct-id')
posthog.shutdown()`;
}

export function posthogGoSnippet(origin: string, token: string): string {
  return `// go get github.com/posthog/posthog-go
package main

import (
\t"fmt"

\t"github.com/posthog/posthog-go"
)

func main() {
\tclient, err := posthog.NewWithConfig("${token}", posthog.Config{Endpoint: "${origin}"})
\tif err != nil {
\t\tpanic(err)
\t}
\tdefer client.Close()

\tclient.Enqueue(posthog.Capture{DistinctId: "user-distinct-id", Event: "first event"})

\t// true or false (a multivariate flag answers its variant's key)
\tenabled, err := client.IsFeatureEnabled(posthog.FeatureFlagPayload{Key: "my-flag", DistinctId: "user-distinct-id"})
\tif err == nil && enabled == true {
\t\tfmt.Println("my-flag is on")
\t}
}`;
}

export function posthogRubySnippet(origin: string, token: string): string {
  return `# gem install posthog-ruby
require 'posthog'

posthog = PostHog::Client.new(api_key: '${token}', host: '${origin}')

posthog.capture(distinct_id: 'user-distinct-id', event: 'first event')
enabled = posthog.is_feature_enabled('my-flag', 'user-distinct-id')
posthog.shutdown`;
}

export function ofrepSnippet(origin: string, token: string): string {
  return `// npm install @openfeature/server-sdk @openfeature/ofrep-provider
import { OpenFeature } from '@openfeature/server-sdk'
import { OFREPProvider } from '@openfeature/ofrep-provider'

await OpenFeature.setProviderAndWait(
  new OFREPProvider({ baseUrl: '${origin}', headers: { Authorization: 'Bearer ${token}' } }),
)
const client = OpenFeature.getClient()
const enabled = await client.getBooleanValue('my-flag', false, { targetingKey: 'user-distinct-id' })`;
}

export function curlSnippet(origin: string, token: string): string {
  return `# send an event
curl -X POST '${origin}/i/v0/e/' -H 'Content-Type: application/json' \\
  -d '{"api_key": "${token}", "event": "first event", "distinct_id": "user-distinct-id"}'

# every flag for a person
curl -X POST '${origin}/flags/?v=2' -H 'Content-Type: application/json' \\
  -d '{"api_key": "${token}", "distinct_id": "user-distinct-id"}'`;
}

export interface SdkSnippet {
  id: string;
  label: string;
  code: (origin: string, token: string) => string;
}

/** Every SDK the onboarding checklist offers, in the order shown. */
export const SDK_SNIPPETS: SdkSnippet[] = [
  { id: 'js', label: 'posthog-js', code: posthogJsSnippet },
  { id: 'node', label: 'posthog-node', code: posthogNodeSnippet },
  { id: 'python', label: 'posthog-python', code: posthogPythonSnippet },
  { id: 'go', label: 'posthog-go', code: posthogGoSnippet },
  { id: 'ruby', label: 'posthog-ruby', code: posthogRubySnippet },
  { id: 'ofrep', label: 'OpenFeature (OFREP)', code: ofrepSnippet },
  { id: 'curl', label: 'curl', code: curlSnippet },
];
