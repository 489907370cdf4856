/**
 * A band across the top of every page naming the environment shown, in its colour, whenever the
 * project has more than one: production is never mistaken for staging, also on a narrow window
 * where the sidebar's switcher is folded away.
 */
import type { CSSProperties } from 'react';
import { useMe, useProject, useTeams } from './session.ts';

/** Black or white, whichever reads better on `hex` (`#rrggbb`). */
export function textOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16) / 255);
  const linear = (c: number) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const luminance = 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
  return luminance > 0.4 ? '#111111' : '#ffffff';
}

export function EnvironmentStrip() {
  const environment = useProject();
  const teams = useTeams();
  const me = useMe();
  const siblings = teams.filter((team) => team.project_id === environment.project_id);
  if (siblings.length <= 1) return null;
  const project = me.organization?.projects?.find((each) => each.id === environment.project_id)?.name;
  const color = environment.color ?? null;
  const style: CSSProperties | undefined = color ? { background: color, color: textOn(color) } : undefined;
  return (
    <div className="environment-strip" style={style} data-colored={color ? '' : undefined} role="note" aria-label="Environment shown">
      <span className="environment-strip-name">{environment.name}</span>
      {project ? <span className="environment-strip-project">{project}</span> : null}
    </div>
  );
}
