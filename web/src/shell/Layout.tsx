import { useEffect, useState, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { isActive, NAV_ITEMS } from './nav.ts';
import type { TeamSummary } from '../api/types.ts';
import { displayName, useMe, useProject, useTeams } from './session.ts';
import { environmentPath } from './EnvironmentScope.tsx';
import { EnvironmentStrip } from './EnvironmentStrip.tsx';
import { useSignOut } from './sign-out.ts';

/** Environments grouped by project, in the organization's order (the project's own name from `projects`). */
function environmentGroups(teams: TeamSummary[], projects: { id: number; name: string }[]) {
  const groups = new Map<number, { name: string; environments: TeamSummary[] }>();
  for (const team of teams) {
    const name = projects.find((p) => p.id === team.project_id)?.name ?? team.name;
    const group = groups.get(team.project_id) ?? { name, environments: [] };
    group.environments.push(team);
    groups.set(team.project_id, group);
  }
  return [...groups.values()];
}

/** The section of `location` (`/feature_flags/12` → `/feature_flags`): what a switch to another environment keeps. */
function sectionOf(location: string): string {
  return NAV_ITEMS.find((item) => isActive(item, location))?.href ?? '/feature_flags';
}

/** The project and environment the console shows, painted in the environment's colour so production is never mistaken for staging. */
function ProjectSwitcher() {
  const project = useProject();
  const teams = useTeams();
  const me = useMe();
  const [location, navigate] = useLocation();
  // The address says the environment: going to another's address switches to it (EnvironmentScope).
  const switchTo = (id: number) => navigate(`~${environmentPath(id, sectionOf(location))}`);
  const groups = environmentGroups(teams, me.organization?.projects ?? []);
  const current = groups.find((g) => g.environments.some((e) => e.id === project.id));
  const several = groups.some((g) => g.environments.length > 1);
  const style = project.color ? { borderLeftColor: project.color } : undefined;
  if (teams.length <= 1) {
    return (
      <div className="project-switcher" title="Current project" style={style} data-colored={project.color ? '' : undefined}>
        <span className="project-switcher-label">Project</span>
        <span className="project-switcher-name">{project.name}</span>
      </div>
    );
  }
  return (
    <label className="project-switcher" style={style} data-colored={project.color ? '' : undefined}>
      <span className="project-switcher-label">{several ? `${current?.name ?? 'Project'}: environment` : 'Project'}</span>
      <select
        className="input select"
        value={project.id}
        onChange={(event) => switchTo(Number(event.target.value))}
      >
        {groups.map((group) =>
          group.environments.length === 1 ? (
            <option key={group.environments[0].id} value={group.environments[0].id}>
              {group.name}
            </option>
          ) : (
            <optgroup key={group.environments[0].id} label={group.name}>
              {group.environments.map((team) => (
                <option key={team.id} value={team.id}>
                  {team.name}
                </option>
              ))}
            </optgroup>
          ),
        )}
      </select>
    </label>
  );
}

function UserMenu() {
  const me = useMe();
  const signOut = useSignOut();
  return (
    <div className="user-menu">
      <div className="user-menu-who">
        <span className="avatar" aria-hidden="true">
          {(me.first_name || me.email).slice(0, 1).toUpperCase()}
        </span>
        <div className="user-menu-text">
          <div className="user-menu-name">{displayName(me)}</div>
          <div className="user-menu-email">{me.email}</div>
        </div>
      </div>
      <div className="row">
        <Link href="/settings/account" className="btn btn-ghost btn-sm">
          Account
        </Link>
        <button type="button" className="btn btn-ghost btn-sm" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
          Sign out
        </button>
      </div>
    </div>
  );
}

export function Layout({ children }: { children: ReactNode }) {
  const [location] = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [location]);
  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="topbar">
        <button
          type="button"
          className="btn btn-ghost menu-button"
          aria-expanded={menuOpen}
          aria-controls="sidebar"
          onClick={() => setMenuOpen((open) => !open)}
        >
          <span aria-hidden="true">☰</span> Menu
        </button>
        <Link href="/feature_flags" className="brand">
          <img src="/favicon.svg" alt="" width={22} height={22} /> Bellwether
        </Link>
      </header>
      <aside id="sidebar" className={`sidebar${menuOpen ? ' sidebar-open' : ''}`}>
        <Link href="/feature_flags" className="brand brand-sidebar">
          <img src="/favicon.svg" alt="" width={24} height={24} /> Bellwether
        </Link>
        <ProjectSwitcher />
        <nav aria-label="Sections">
          <ul className="nav-list">
            {NAV_ITEMS.map((item) => (
              <li key={item.href}>
                <Link href={item.href} className="nav-link" aria-current={isActive(item, location) ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <UserMenu />
      </aside>
      <main id="main" className="main" tabIndex={-1}>
        <EnvironmentStrip />
        <div className="content">{children}</div>
      </main>
    </div>
  );
}
