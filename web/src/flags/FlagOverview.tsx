import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../api/client.ts';
import { errorMessage } from '../api/errors.ts';
import type { FeatureFlag, FlagFilters } from '../api/types.ts';
import { useProject, useProjectPath } from '../shell/session.ts';
import { formatCount, formatPercent, formatRelative } from '../lib/format.ts';
import { Badge } from '../ui/Badge.tsx';
import { Spinner } from '../ui/Feedback.tsx';
import { Card } from '../ui/Page.tsx';
import { useCohortChoices, useFlagChoices } from './api.ts';
import { describeProperty, type Names } from './describe.ts';
import { FlagTags } from './FlagBadges.tsx';

type Group = NonNullable<FlagFilters['groups']>[number];

function BlastRadius({ group, aggregation }: { group: Group; aggregation: number | null }) {
  const project = useProject();
  const path = useProjectPath();
  const radius = useQuery({
    queryKey: ['blast-radius', project.id, group.properties ?? [], aggregation],
    queryFn: () =>
      api.post<{ users_affected: number; total_users: number }>(path('feature_flags/user_blast_radius/'), {
        condition: { properties: group.properties ?? [] },
        group_type_index: aggregation,
      }),
    staleTime: 60_000,
  });
  const noun = aggregation === null ? 'persons' : 'groups';
  if (radius.isPending) return <span className="muted small">Counting matching {noun}…</span>;
  if (radius.isSuccess && radius.data.total_users === 0) return <span className="muted small">No {noun} are stored yet: they appear as SDKs send events.</span>;
  if (radius.isError) return <span className="muted small">Blast radius unavailable: {errorMessage(radius.error)}</span>;
  const { users_affected: affected, total_users: total } = radius.data;
  const share = total === 0 ? 0 : (affected / total) * 100;
  const rollout = group.rollout_percentage ?? 100;
  return (
    <div className="blast-radius">
      <div className="meter" aria-hidden="true">
        <div className="meter-fill" style={{ width: `${Math.min(100, share)}%` }} />
      </div>
      <span className="small">
        {formatCount(affected)} of {formatCount(total)} {noun} match these filters ({formatPercent(share)})
        {rollout < 100 && affected > 0 ? `; at ${formatPercent(rollout)} about ${formatCount(Math.round((affected * rollout) / 100))} of them get the flag` : ''}.
      </span>
    </div>
  );
}

function Dependents({ flag }: { flag: FeatureFlag }) {
  const project = useProject();
  const path = useProjectPath();
  const dependents = useQuery({
    queryKey: ['flags', project.id, 'one', flag.id, 'dependents'],
    queryFn: () => api.post<{ has_active_dependents: boolean; dependent_flags: Array<{ id: number; key: string; name: string }> }>(path(`feature_flags/${flag.id}/has_active_dependents/`)),
  });
  if (dependents.isPending) return <Spinner label="Looking for dependent flags…" />;
  if (dependents.isError) return <p className="muted">{errorMessage(dependents.error)}</p>;
  if (dependents.data.dependent_flags.length === 0) return <p className="muted">No active flag depends on this one.</p>;
  return (
    <ul className="plain-list">
      {dependents.data.dependent_flags.map((dependent) => (
        <li key={dependent.id}>
          <Link href={`/feature_flags/${dependent.id}`} className="mono">
            {dependent.key}
          </Link>
          {dependent.name ? <span className="muted"> — {dependent.name}</span> : null}
        </li>
      ))}
    </ul>
  );
}

export function FlagOverview({ flag }: { flag: FeatureFlag }) {
  const cohorts = useCohortChoices();
  const flags = useFlagChoices();
  const names: Names = {
    cohort: (id) => cohorts.data?.find((cohort) => String(cohort.id) === id)?.name ?? `cohort ${id}`,
    flag: (id) => flags.data?.find((item) => String(item.id) === id)?.key ?? `#${id}`,
  };
  const filters = flag.filters;
  const variants = filters.multivariate?.variants ?? [];
  const payloads = filters.payloads ?? {};
  const aggregation = filters.aggregation_group_type_index ?? null;
  const groups = filters.groups ?? [];
  const dependsOn = [...new Set(groups.flatMap((group) => (group.properties ?? []).filter((property) => property.type === 'flag').map((property) => String(property.key))))];

  return (
    <div className="overview-grid">
      <div className="stack">
        <Card title="Served value">
          {variants.length === 0 ? (
            <>
              <p>
                Boolean: <code>true</code> for those the conditions release it to, <code>false</code> for everyone else.
              </p>
              {payloads.true !== undefined ? (
                <div>
                  <div className="field-label">Payload</div>
                  <pre className="code-block">{String(payloads.true)}</pre>
                </div>
              ) : null}
            </>
          ) : (
            <table className="table compact">
              <caption className="visually-hidden">Variants</caption>
              <thead>
                <tr>
                  <th scope="col">Variant</th>
                  <th scope="col">Rollout</th>
                  <th scope="col">Payload</th>
                </tr>
              </thead>
              <tbody>
                {variants.map((variant) => (
                  <tr key={variant.key}>
                    <td>
                      <span className="mono">{variant.key}</span>
                      {variant.name ? <div className="muted small">{variant.name}</div> : null}
                    </td>
                    <td>{formatPercent(variant.rollout_percentage)}</td>
                    <td>{payloads[variant.key] !== undefined ? <code className="payload-preview">{String(payloads[variant.key])}</code> : <span className="muted">—</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Card>

        <Card title="Release conditions">
          {groups.length === 0 ? <p className="muted">No condition sets: the flag is off for everyone.</p> : null}
          {groups.map((group, index) => (
            <div key={index} className="panel condition-summary">
              <div className="row-between">
                <h3>Condition set {index + 1}</h3>
                <span className="row">
                  {group.variant ? <Badge tone="info">serves “{group.variant}”</Badge> : null}
                  <Badge tone="primary">{formatPercent(group.rollout_percentage)} rollout</Badge>
                </span>
              </div>
              {group.description ? <p className="muted">{group.description}</p> : null}
              {(group.properties ?? []).length === 0 ? (
                <p>Everyone{aggregation !== null ? ' (every group)' : ''}</p>
              ) : (
                <ul className="plain-list conditions-list">
                  {(group.properties ?? []).map((property, p) => (
                    <li key={p}>
                      {p > 0 ? <span className="muted">and </span> : null}
                      {describeProperty(property, names)}
                    </li>
                  ))}
                </ul>
              )}
              <BlastRadius group={group} aggregation={aggregation} />
            </div>
          ))}
        </Card>
      </div>
      <div className="stack">
        <Card title="Details">
          <dl className="definition-list">
            <dt>Evaluated by</dt>
            <dd>{flag.evaluation_runtime === 'server' ? 'Server SDKs only' : flag.evaluation_runtime === 'client' ? 'Client SDKs only' : 'Client and server SDKs'}</dd>
            <dt>Match by</dt>
            <dd>{aggregation === null ? 'Persons' : `Group type ${aggregation}`}</dd>
            <dt>Persist across sign-in</dt>
            <dd>{flag.ensure_experience_continuity ? 'Yes' : 'No'}</dd>
            <dt>Last called</dt>
            <dd>{formatRelative(flag.last_called_at)}</dd>
            <dt>Tags</dt>
            <dd>{flag.tags.length ? <FlagTags tags={flag.tags} evaluationTags={flag.evaluation_tags} /> : <span className="muted">none</span>}</dd>
            <dt>Version</dt>
            <dd>{flag.version}</dd>
          </dl>
        </Card>
        <Card title="Flags that depend on it">
          <Dependents flag={flag} />
        </Card>
        {dependsOn.length > 0 ? (
          <Card title="Depends on">
            <ul className="plain-list">
              {dependsOn.map((id) => (
                <li key={id}>
                  <Link href={`/feature_flags/${id}`} className="mono">
                    {names.flag(id)}
                  </Link>
                </li>
              ))}
            </ul>
          </Card>
        ) : null}
      </div>
    </div>
  );
}
