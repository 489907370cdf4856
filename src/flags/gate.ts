/**
 * Where another area may hold an ordinary flag edit (PATCH/PUT of the API) instead of writing it:
 * the approvals area contributes its gate. A gate runs in the edit's unit of work once the edit
 * has passed every rule, so what it writes (a change request) commits with it while the flag is
 * not written; the route then answers the gate's response.
 */
import type { Membership } from '../accounts/auth/principal.ts';
import type { UserSummary } from '../accounts/users/user-summary.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { ExtensionPoint } from '../kernel/extensions.ts';
import type { RawErrorResponse } from '../kernel/errors.ts';
import type { FlagRecord, FlagValues } from './record.ts';
import type { FlagWriteBody } from './schemas.ts';

export interface FlagEdit {
  projectId: number;
  before: FlagRecord;
  next: FlagValues;
  body: FlagWriteBody;
  actor: UserSummary;
  organizationLevel: Membership['level'] | null;
  httpMethod: 'PATCH' | 'PUT';
}

/** null lets the edit through; a response holds it. */
export type FlagEditGate = (unit: UnitOfWork, edit: FlagEdit) => Promise<RawErrorResponse | null>;

export const FLAG_EDIT_GATES = new ExtensionPoint<FlagEditGate>('flag edit gates');
