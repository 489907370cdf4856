import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, withQuery } from '../api/client.ts';
import type { ActivityPage as ActivityPageData } from '../api/types.ts';
import { useProject, useProjectPath } from '../app/session.ts';
import { useUrlParams } from '../lib/url-state.ts';
import { ErrorNotice, Spinner } from '../ui/Feedback.tsx';
import { PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { Pagination } from '../ui/Pagination.tsx';
import { TabPanel, Tabs } from '../ui/Tabs.tsx';
import { ActivityList } from './ActivityList.tsx';

const SCOPES = [
  { id: 'feature_flags', label: 'Feature flags' },
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
  if (activity.isPending) return <Spinner label="Loading activity…" />;
  if (activity.isError) return <ErrorNotice error={activity.error} onRetry={() => void activity.refetch()} />;
  return (
    <>
      <ActivityList entries={activity.data.results} showItem />
      <Pagination noun="changes" offset={(page - 1) * PAGE_SIZE} limit={PAGE_SIZE} count={activity.data.total_count} onOffsetChange={(offset) => setPage(offset / PAGE_SIZE + 1)} />
    </>
  );
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
