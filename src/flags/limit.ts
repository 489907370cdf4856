import { tooManyFlags } from './errors.ts';
import { lockAndCountLiveFlags } from './store.ts';
import type { WriteTx } from '../db/unit-of-work.ts';

/**
 * The most live (not deleted) flags a project may hold, survey-owned flags included. Every SDK
 * request evaluates and answers each of them: at this size one evaluation and its answer take
 * about 13.5 ms of the event loop and 2.8 MB (docs/decisions.md).
 */
export const MAX_LIVE_FLAGS_PER_PROJECT = 10_000;

/**
 * Inside the transaction that adds a live flag (create, restore, a survey's own flags): refuses
 * when the project is full. Such writes of one project wait for each other until commit, so two
 * of them cannot both take the last place.
 */
export async function ensureRoomForFlag(client: WriteTx, projectId: number): Promise<void> {
  if ((await lockAndCountLiveFlags(client, projectId)) >= MAX_LIVE_FLAGS_PER_PROJECT) throw tooManyFlags(MAX_LIVE_FLAGS_PER_PROJECT);
}
