import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ActivityEntry, ActivityPage } from '../api/types.ts';
import { useShownOffset } from '../lib/shown-page.ts';
import { ErrorNotice, Spinner } from '../ui/Feedback.tsx';
import { Pagination } from '../ui/Pagination.tsx';
import { ActivityList } from './ActivityList.tsx';
import { HISTORY_PAGE_SIZE } from './history-page.ts';

interface PagedActivityProps {
  activity: UseQueryResult<ActivityPage>;
  /** 1-based, as the activity endpoints count. */
  page: number;
  onPage: (page: number) => void;
  pageSize?: number;
  loadingLabel?: string;
  /** Name the item each entry is about (the project-wide activity). */
  showItem?: boolean;
  /** Buttons each entry offers (a flag's history: Revert). */
  actions?: (entry: ActivityEntry) => ReactNode;
}

/** One page of activity entries and the pages around it: every history tab and the activity page. */
export function PagedActivity({ activity, page, onPage, pageSize = HISTORY_PAGE_SIZE, loadingLabel = 'Loading history…', showItem = false, actions }: PagedActivityProps) {
  const shownOffset = useShownOffset((page - 1) * pageSize, activity.isPlaceholderData);
  if (activity.isPending) return <Spinner label={loadingLabel} />;
  if (activity.isError) return <ErrorNotice error={activity.error} onRetry={() => void activity.refetch()} />;
  return (
    <>
      <ActivityList entries={activity.data.results} showItem={showItem} actions={actions} />
      <Pagination noun="changes" offset={shownOffset} limit={pageSize} count={activity.data.total_count} onOffsetChange={(offset) => onPage(offset / pageSize + 1)} />
    </>
  );
}
