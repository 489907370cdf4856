/** The events API as the console reads it. */
import type { ItemOf } from '../api/types.ts';

export type EventItem = ItemOf<'events_list'>;
