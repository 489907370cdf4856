import { Link } from 'wouter';
import { displayName } from '../shell/session.ts';
import { formatCount, formatDate } from '../lib/format.ts';
import { useListPage } from '../lib/list-page.ts';
import { LinkButton } from '../ui/Button.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { FilterSelect, ListResults, ListToolbar } from '../ui/ListPage.tsx';
import { PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import type { Column } from '../ui/Table.tsx';
import { SURVEY_PAGE_SIZE, useResponseCounts, useSurveyList, type SurveyListParams } from './api.ts';
import { SurveyStatusBadge } from './SurveyBadges.tsx';
import { SURVEY_TYPE_LABELS } from './status.ts';
import type { Survey } from './types.ts';

const FILTER_KEYS = ['search', 'archived'];
const ARCHIVED_OPTIONS = [
  { value: '', label: 'Not archived' },
  { value: 'true', label: 'Archived' },
];

export function SurveysListPage() {
  useDocumentTitle('Surveys');
  const list = useListPage(FILTER_KEYS);
  const listParams: SurveyListParams = {
    search: list.value('search') || undefined,
    archived: list.value('archived') || undefined,
    offset: list.offset || undefined,
  };
  const surveys = useSurveyList(listParams);
  const counts = useResponseCounts((surveys.data?.results ?? []).map((survey) => survey.id));

  const columns: Column<Survey>[] = [
    {
      key: 'name',
      header: 'Name',
      render: (survey) => (
        <div className="list-cell">
          <Link href={`/surveys/${survey.id}`} className="list-title">
            {survey.name}
          </Link>
          {survey.description ? <div className="list-subtitle muted">{survey.description}</div> : null}
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
      <ListToolbar list={list} searchPlaceholder="Search by name or description">
        <FilterSelect list={list} name="archived" label="Archived" options={ARCHIVED_OPTIONS} />
      </ListToolbar>
      <ListResults
        list={list}
        query={surveys}
        noun="surveys"
        pageSize={SURVEY_PAGE_SIZE}
        caption="Surveys"
        columns={columns}
        rowKey={(survey) => survey.id}
        noMatch="No surveys match these filters."
        emptyState={
          <EmptyState title="No surveys yet" action={<LinkButton href="/surveys/new" variant="primary">Create your first survey</LinkButton>}>
            A survey asks people a few questions in your app, and collects their answers here.
          </EmptyState>
        }
      />
    </>
  );
}
