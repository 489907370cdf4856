import { expectStatus } from './http.ts';

/** Someone a scenario stores as a person: a distinct id and the properties `$set` on them. */
export interface Identified {
  distinctId: string;
  properties: Record<string, unknown>;
}

const BATCH = 100;
const AT_ONCE = 4;

/** `$identify` with `$set` through `/batch/`, 100 per batch, 4 batches at a time. */
export async function identifyPeople(baseUrl: string, token: string, people: readonly Identified[]): Promise<void> {
  const batches: Identified[][] = [];
  for (let i = 0; i < people.length; i += BATCH) batches.push(people.slice(i, i + BATCH));
  let next = 0;
  const sender = async () => {
    while (next < batches.length) {
      const batch = batches[next++];
      const body = JSON.stringify({
        api_key: token,
        batch: batch.map((person) => ({
          event: '$identify',
          distinct_id: person.distinctId,
          timestamp: new Date().toISOString(),
          properties: { $set: person.properties },
        })),
      });
      await expectStatus(200, 'POST', `${baseUrl}/batch/`, {}, body);
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, sender));
}
