/** The two posthog-node versions tested against (current, and 5.29.3 before /flags/definitions), behind one small interface. */
import { PostHog as PostHogCurrent } from 'posthog-node';
import { PostHog as PostHogLegacy } from 'posthog-node-5293';

export type SdkName = 'current' | 'legacy';

export interface SdkPerson {
  distinctId: string;
  personProperties: Record<string, unknown>;
  groups: Record<string, string>;
  groupProperties: Record<string, Record<string, unknown>>;
}

export interface SdkClient {
  version: string;
  /** Local evaluation of every flag; flags the SDK cannot decide locally are absent. */
  all(person: SdkPerson): Promise<{ flags: Record<string, unknown>; payloads: Record<string, unknown> }>;
  flag(key: string, person: SdkPerson): Promise<unknown>;
  payload(key: string, person: SdkPerson): Promise<unknown>;
  shutdown(): Promise<void>;
}

// Both versions share the method names used here; their option types differ slightly.
interface Client {
  reloadFeatureFlags(): Promise<void>;
  isLocalEvaluationReady(): boolean;
  getAllFlagsAndPayloads(distinctId: string, options: object): Promise<{ featureFlags: object; featureFlagPayloads: object }>;
  getFeatureFlag(key: string, distinctId: string, options: object): Promise<unknown>;
  getFeatureFlagPayload(key: string, distinctId: string, matchValue: undefined, options: object): Promise<unknown>;
  shutdown(): Promise<void>;
  getLibraryVersion(): string;
}

export async function startSdk(name: SdkName, host: string): Promise<SdkClient> {
  const options = {
    host,
    personalApiKey: 'phx_test',
    featureFlagsPollingInterval: 60_000,
    flushAt: 1000,
    flushInterval: 0,
    disableGeoip: true,
    fetchRetryCount: 0,
  };
  // Both versions warn on load about flags they cannot evaluate locally; that is expected here.
  const warn = console.warn;
  console.warn = () => {};
  const client = (name === 'current' ? new PostHogCurrent('phc_test', options) : new PostHogLegacy('phc_test', options)) as unknown as Client;
  try {
    await client.reloadFeatureFlags();
  } finally {
    console.warn = warn;
  }
  if (!client.isLocalEvaluationReady()) {
    await client.shutdown();
    throw new Error(`posthog-node (${name}) did not load the flag definitions`);
  }
  const callOptions = (person: SdkPerson) => ({
    personProperties: person.personProperties,
    groups: person.groups,
    groupProperties: person.groupProperties,
    onlyEvaluateLocally: true,
    sendFeatureFlagEvents: false,
  });
  return {
    version: client.getLibraryVersion(),
    async all(person) {
      const result = await client.getAllFlagsAndPayloads(person.distinctId, callOptions(person));
      return {
        flags: result.featureFlags as Record<string, unknown>,
        payloads: result.featureFlagPayloads as Record<string, unknown>,
      };
    },
    flag: (key, person) => client.getFeatureFlag(key, person.distinctId, callOptions(person)),
    payload: (key, person) => client.getFeatureFlagPayload(key, person.distinctId, undefined, callOptions(person)),
    shutdown: () => client.shutdown(),
  };
}
