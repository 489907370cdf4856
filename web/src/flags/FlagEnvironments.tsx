import { useQueries, useQuery } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import type { FeatureFlag, Paginated, Project } from '../api/types.ts';
import { useProject } from '../shell/session.ts';
import { ErrorNotice, Spinner } from '../ui/Feedback.tsx';
import { Card } from '../ui/Page.tsx';
import { releaseSummary, variantCount } from './flag-summary.ts';
import { PromoteFlag } from './PromoteFlag.tsx';

/** The flag with this key in `environment`, or null when it has none. */
async function flagIn(environment: number, key: string, signal: AbortSignal): Promise<FeatureFlag | null> {
  const page = await api.get<Paginated<FeatureFlag>>(`/api/environments/${environment}/feature_flags/?search=${encodeURIComponent(key)}&limit=100`, signal);
  return page.results.find((flag) => flag.key === key) ?? null;
}

/** The flag side by side in every environment of the current project: on/off, release, variants, payloads. */
export function FlagEnvironments({ flag }: { flag: FeatureFlag }) {
  const current = useProject();
  const environments = useQuery({
    queryKey: ['environments', current.project_id],
    queryFn: ({ signal }) => api.get<Paginated<Project>>(`/api/projects/${current.project_id}/environments/?limit=100`, signal),
  });
  const list = environments.data?.results ?? [];
  const flags = useQueries({
    queries: list.map((environment) => ({
      queryKey: ['flag-in-environment', environment.id, flag.key],
      queryFn: ({ signal }: { signal: AbortSignal }) => flagIn(environment.id, flag.key, signal),
    })),
  });
  if (environments.isPending) return <Spinner />;
  if (environments.isError) return <ErrorNotice error={environments.error} onRetry={() => void environments.refetch()} />;
  return (
    <Card title="In every environment of this project">
      <div className="table-wrap">
      <table className="table compact flag-environments">
        <thead>
          <tr>
            <th>Environment</th>
            <th>State</th>
            <th>Release</th>
            <th>Variants</th>
            <th>Payloads</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {list.map((environment, index) => {
            const found = flags[index];
            const other = found?.data;
            return (
              <tr key={environment.id} data-environment={environment.name}>
                <td>
                  <span className="environment-swatch" style={{ background: environment.color ?? 'transparent' }} aria-hidden="true" />{' '}
                  {environment.name}
                  {environment.id === current.id ? <span className="muted"> (shown)</span> : null}
                </td>
                {found === undefined || found.isPending ? (
                  <td colSpan={4}>…</td>
                ) : found.isError ? (
                  <td colSpan={4}>Could not be read.</td>
                ) : other === null || other === undefined ? (
                  <td colSpan={4} className="muted">
                    Not in this environment
                  </td>
                ) : (
                  <>
                    <td>{other.active ? 'On' : 'Off'}</td>
                    <td>{releaseSummary(other.filters)}</td>
                    <td>{variantCount(other.filters) || '–'}</td>
                    <td>{Object.keys(other.filters.payloads ?? {}).length || '–'}</td>
                  </>
                )}
                <td>
                  {environment.id !== current.id && found?.isSuccess ? (
                    <PromoteFlag flag={flag} from={current.id} target={environment} targetFlag={found.data} />
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      </div>
    </Card>
  );
}
