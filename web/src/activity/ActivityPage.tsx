import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, withQuery } from '../api/client.ts';
import type { ActivityPage as ActivityPageData } from '../api/types.ts';
import { useProject, useProjectPath } from '../shell/session.ts';
import { useUrlParams } from '../lib/url-state.ts';
import { PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { TabPanel, Tabs } from '../ui/Tabs.tsx';
import { PagedActivity } from './PagedActivity.tsx';

const SCOPES = [
  { id: 'feature_flags', label: 'Feature flags' },
  { id: 'experiments', label: 'Experiments' },
  { id: 'surveys', label: 'Surveys' },
  { id: 'cohorts', label: 'Cohorts' },
  { id: 'event_definitions', label: 'Event definitions' },
];
const PAGE_SIZE = 25;

function ScopeActivity({ scope }: { scope: string }) {
  const project = useProject();
  const path = useProjectPath();
  const [page, setPage] = useState(1);
  const activity = useQuery({
    queryKey: ['activity', project.id, scope, page],
    queryFn: ({ signal }) => api.get<ActivityPageData>(withQuery(path(`${scope}/activity/`), { page, limit: PAGE_SIZE }), signal),
    placeholderData: (previous) => previous,
  });
  return <PagedActivity activity={activity} page={page} onPage={setPage} pageSize={PAGE_SIZE} loadingLabel="Loading activity…" showItem />;
}

/** Who changed what in the project, newest first. */
export function ActivityPage() {
  useDocumentTitle('Activity');
  const [params, setParams] = useUrlParams();
  const scope = SCOPES.some((item) => item.id === params.get('scope')) ? params.get('scope')! : 'feature_flags';
  return (
    <>
      <PageHeader title="Activity" description="Every change made in this project, with who made it." />
      <Tabs tabs={SCOPES} selected={scope} onSelect={(id) => setParams({ scope: id === 'feature_flags' ? null : id })} label="Activity of" idPrefix="activity" />
      <TabPanel idPrefix="activity" id={scope}>
        <ScopeActivity key={scope} scope={scope} />
      </TabPanel>
    </>
  );
}
