import { Type } from 'typebox';

/** A response with no body (201 of an event-definition create, 204 of deletes): `send()` takes no payload. */
export const NoBody = (description: string) => Type.Unsafe<undefined>({ type: 'null', description });
