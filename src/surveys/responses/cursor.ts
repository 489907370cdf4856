/**
 * The responses list's opaque cursor (DRF's CursorPagination convention: `next` and `previous`
 * are URLs carrying it): a position (timestamp in microseconds, uuid) and a direction.
 */
import type { ListPosition } from './list-store.ts';
import { invalidCursor } from '../errors.ts';

export interface Cursor {
  position: ListPosition;
  /** `next`: the rows after the position (older); `previous`: the rows before it (newer). */
  direction: 'next' | 'previous';
}

const FORM = /^(-?\d{1,19})_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_([np])$/;
const MAX_CURSOR_LENGTH = 200;

export function encodeCursor(cursor: Cursor): string {
  const text = `${cursor.position.micros}_${cursor.position.uuid}_${cursor.direction === 'next' ? 'n' : 'p'}`;
  return Buffer.from(text, 'utf8').toString('base64url');
}

export function decodeCursor(raw: string): Cursor {
  if (raw.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(raw)) throw invalidCursor();
  const match = FORM.exec(Buffer.from(raw, 'base64url').toString('utf8'));
  if (!match) throw invalidCursor();
  return { position: { micros: BigInt(match[1]), uuid: match[2] }, direction: match[3] === 'n' ? 'next' : 'previous' };
}
