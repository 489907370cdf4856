import { useEffect, useState, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { useMutation } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import { errorMessage } from '../api/errors.ts';
import { useToast } from '../ui/Toast.tsx';
import { isActive, NAV_ITEMS } from './nav.ts';
import { displayName, useMe, useProject, useResetSession, useTeams } from './session.ts';

function ProjectSwitcher() {
  const project = useProject();
  const teams = useTeams();
  const reset = useResetSession();
  const toast = useToast();
  const [, navigate] = useLocation();
  const switchProject = useMutation({
    mutationFn: (id: number) => api.patch('/api/users/@me/', { set_current_team: id }),
    onSuccess: async () => {
      await reset();
      navigate('/feature_flags');
    },
    onError: (error) => toast.show(`The project could not be switched: ${errorMessage(error)}`, 'error'),
  });
  if (teams.length <= 1) {
    return (
      <div className="project-switcher" title="Current project">
        <span className="project-switcher-label">Project</span>
        <span className="project-switcher-name">{project.name}</span>
      </div>
    );
  }
  return (
    <label className="project-switcher">
      <span className="project-switcher-label">Project</span>
      <select
        className="input select"
        value={project.id}
        disabled={switchProject.isPending}
        onChange={(event) => switchProject.mutate(Number(event.target.value))}
      >
        {teams.map((team) => (
          <option key={team.id} value={team.id}>
            {team.name}
          </option>
        ))}
      </select>
    </label>
  );
}

function UserMenu() {
  const me = useMe();
  const reset = useResetSession();
  const [, navigate] = useLocation();
  const toast = useToast();
  const signOut = useMutation({
    mutationFn: () => api.post('/api/logout/'),
    onSettled: async (_data, error) => {
      if (error) toast.show(`Signing out failed: ${errorMessage(error)}`, 'error');
      await reset();
      navigate('/');
    },
  });
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
        <div className="content">{children}</div>
      </main>
    </div>
  );
}
