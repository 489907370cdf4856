/** The project and the actor every message names. */
import type { ReadHandle } from '../../db/pool.ts';

export interface MessageContext {
  project: { id: number; name: string };
  actor: { id: number; uuid: string; first_name: string; email: string } | null;
}

export async function messageContext(db: ReadHandle, projectId: number, userId: number | null): Promise<MessageContext> {
  const { rows } = await db.query<{ project: MessageContext['project']; actor: MessageContext['actor'] }>(
    `SELECT json_build_object('id', p.id, 'name', p.name) AS project,
            (SELECT json_build_object('id', u.id, 'uuid', u.uuid, 'first_name', u.first_name, 'email', u.email) FROM users u WHERE u.id = $2) AS actor
       FROM projects p WHERE p.id = $1`,
    [projectId, userId],
  );
  return rows[0] ?? { project: { id: projectId, name: '' }, actor: null };
}
