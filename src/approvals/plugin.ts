/**
 * The approvals area: approval policies per project, the gate on API edits of flags (contributed
 * to the flags area's FLAG_EDIT_GATES) and change requests with approve / reject / cancel
 * (docs/approvals.md).
 */
import { FLAG_EDIT_GATES } from '../flags/gate.ts';
import { defineArea } from '../kernel/area.ts';
import { registerInProject } from '../kernel/http/project-scope.ts';
import { approvalGate } from './gate.ts';
import { changeRequestRoutes, policyRoutes } from './routes.ts';

export const approvals = defineArea('approvals', ['kernel', 'accounts', 'flags'], async (app) => {
  const deps = { ...app.kernel, flagCache: app.flagCache };
  app.extensions.contribute(FLAG_EDIT_GATES, approvalGate);
  await registerInProject(app, '/approval_policies', policyRoutes(deps));
  await registerInProject(app, '/change_requests', changeRequestRoutes(deps));
});
