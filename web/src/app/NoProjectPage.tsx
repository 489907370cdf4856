import { AuthCard } from '../auth/AuthCard.tsx';
import { environmentPath } from '../shell/EnvironmentScope.tsx';
import { displayName, useMe } from '../shell/session.ts';
import { useSignOut } from '../shell/sign-out.ts';
import { NewProjectCard } from '../settings/NewProjectCard.tsx';
import { LinkButton } from '../ui/Button.tsx';
import { useDocumentTitle } from '../ui/Page.tsx';

/**
 * The signed-in person has no current environment: they left or were removed from the one they
 * had, or their organization has no project yet. They open one they can reach, create the first
 * project (admins), or sign out; the rest of the console needs an environment.
 */
export function NoProjectPage() {
  useDocumentTitle('No project');
  const me = useMe();
  const signOut = useSignOut();
  const teams = me.organization?.teams ?? [];
  return (
    <AuthCard title="No project to open">
      {teams.length > 0 ? (
        <>
          <p className="muted">
            {displayName(me)}, you have no current environment. Open one of {me.organization?.name ?? 'your organization'}'s:
          </p>
          <div className="row">
            {teams.map((team) => (
              <LinkButton key={team.id} href={`~${environmentPath(team.id)}`}>
                Open {team.name}
              </LinkButton>
            ))}
          </div>
        </>
      ) : me.organization ? (
        <>
          <p className="muted">{me.organization.name} has no project yet. An admin creates the first one here.</p>
          <NewProjectCard />
        </>
      ) : (
        <p className="muted">
          You are not a member of any organization now. Ask an admin of your team's organization to invite you ({me.email}).
        </p>
      )}
      <div>
        <button type="button" className="btn btn-ghost btn-sm" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
          Sign out
        </button>
      </div>
    </AuthCard>
  );
}
