import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { displayName } from '../app/session.ts';
import { useDebounced } from '../lib/debounce.ts';
import { formatCount, formatDate } from '../lib/format.ts';
import { useUrlParams } from '../lib/url-state.ts';
import { LinkButton } from '../ui/Button.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { ErrorNotice, Spinner } from '../ui/Feedback.tsx';
import { Field, Input, Select } from '../ui/Field.tsx';
import { PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { Pagination } from '../ui/Pagination.tsx';
import { Table, type Column } from '../ui/Table.tsx';
import { SURVEY_PAGE_SIZE, useResponseCounts, useSurveyList, type SurveyListParams } from './api.ts';
import { SurveyStatusBadge } from './SurveyBadges.tsx';
import { SURVEY_TYPE_LABELS } from './status.ts';
import type { Survey } from './types.ts';

const ARCHIVED_OPTIONS = [
  { value: '', label: 'Not archived' },
  { value: 'true', label: 'Archived' },
];

export function SurveysListPage() {
  useDocumentTitle('Surveys');
  const [params, setParams] = useUrlParams();
  const [searchText, setSearchText] = useState(params.get('search') ?? '');
  const search = useDebounced(searchText.trim(), 250);
  useEffect(() => {
    if (search !== (params.get('search') ?? '')) setParams({ search, offset: null });
  }, [search, params, setParams]);

  const listParams: SurveyListParams = {
    search: params.get('search') ?? undefined,
    archived: params.get('archived') ?? undefined,
    offset: Number(params.get('offset') ?? 0) || undefined,
  };
  const list = useSurveyList(listParams);
  const counts = useResponseCounts((list.data?.results ?? []).map((survey) => survey.id));
  const filtered = Boolean(params.get('search') || params.get('archived'));

  const columns: Column<Survey>[] = [
    {
      key: 'name',
      header: 'Name',
      render: (survey) => (
        <div className="flag-cell">
          <Link href={`/surveys/${survey.id}`} className="flag-key">
            {survey.name}
          </Link>
          {survey.description ? <div className="flag-name muted">{survey.description}</div> : null}
        </div>
      ),
    },
    { key: 'status', header: 'Status', render: (survey) => <SurveyStatusBadge survey={survey} /> },
    {
      key: 'responses',
      header: 'Responses',
      align: 'right',
      render: (survey) => (counts.data ? formatCount(counts.data[survey.id] ?? 0) : '…'),
    },
    { key: 'type', header: 'Type', wideOnly: true, render: (survey) => SURVEY_TYPE_LABELS[survey.type] ?? survey.type },
    { key: 'created_by', header: 'Created by', wideOnly: true, render: (survey) => displayName(survey.created_by) },
    { key: 'created_at', header: 'Created', wideOnly: true, render: (survey) => <span className="nowrap">{formatDate(survey.created_at)}</span> },
  ];

  return (
    <>
      <PageHeader
        title="Surveys"
        description="Ask your users questions in your app with posthog-js, and read their answers."
        actions={
          <LinkButton href="/surveys/new" variant="primary">
            New survey
          </LinkButton>
        }
      />
      <div className="filter-bar" role="search">
        <Field label="Search" hideLabel className="filter-search">
          {(control) => <Input {...control} type="search" placeholder="Search by name or description" value={searchText} onChange={(event) => setSearchText(event.target.value)} />}
        </Field>
        <Field label="Archived" hideLabel>
          {(control) => <Select {...control} options={ARCHIVED_OPTIONS} value={params.get('archived') ?? ''} onChange={(event) => setParams({ archived: event.target.value, offset: null })} />}
        </Field>
      </div>
      {list.isPending ? (
        <Spinner label="Loading surveys…" />
      ) : list.isError ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.count === 0 && !filtered ? (
        <EmptyState title="No surveys yet" action={<LinkButton href="/surveys/new" variant="primary">Create your first survey</LinkButton>}>
          A survey asks people a few questions in your app, and collects their answers here.
        </EmptyState>
      ) : (
        <>
          <Table caption="Surveys" columns={columns} rows={list.data.results} rowKey={(survey) => survey.id} busy={list.isFetching && list.isPlaceholderData} empty="No surveys match these filters." />
          <Pagination
            noun="surveys"
            offset={listParams.offset ?? 0}
            limit={SURVEY_PAGE_SIZE}
            count={list.data.count}
            onOffsetChange={(offset) => setParams({ offset: offset ? String(offset) : null })}
          />
        </>
      )}
    </>
  );
}
