import { useEffect, useMemo, useState } from 'react';
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../api/client.ts';
import { errorMessage, isApiError } from '../api/errors.ts';
import { useProject, useProjectPath } from '../shell/session.ts';
import { useDebounced } from '../lib/debounce.ts';
import { formatDateTime } from '../lib/format.ts';
import { Badge } from '../ui/Badge.tsx';
import { Button } from '../ui/Button.tsx';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { Field, Input } from '../ui/Field.tsx';
import { Table, type Column } from '../ui/Table.tsx';
import { useToast } from '../ui/Toast.tsx';
import { responsesPath, sameOrigin, surveyKeys, type ResultsFilter } from './api.ts';
import { answerText, questionId } from './results.ts';
import { isObject } from './survey-form.ts';
import type { ResponsesPage, Survey, SurveyResponseItem } from './types.ts';

const PAGE = 50;

/** Who answered, as the CSV names them: the e-mail where known (else name or username), the distinct id under it. */
function ResponsePerson({ row }: { row: SurveyResponseItem }) {
  const properties = row.person?.properties ?? {};
  const known = ['email', 'name', 'username'].map((key) => properties[key]).find((value) => typeof value === 'string' && value !== '');
  const label = typeof known === 'string' ? known : row.distinct_id;
  return (
    <span className="response-person">
      {row.person?.id ? <Link href={`/persons/${row.person.id}`}>{label}</Link> : <span>{label}</span>}
      {label !== row.distinct_id ? <span className="muted small mono">{row.distinct_id}</span> : null}
    </span>
  );
}

/** The responses, newest first, with a search in open answers, archive/unarchive and the CSV download. */
export function ResponsesTable({ survey, filter }: { survey: Survey; filter: ResultsFilter }) {
  const project = useProject();
  const path = useProjectPath();
  const client = useQueryClient();
  const toast = useToast();
  const [searchText, setSearchText] = useState('');
  const search = useDebounced(searchText.trim(), 300);
  const [searchUsed, setSearchUsed] = useState(search);
  useEffect(() => setSearchUsed(search), [search]);
  const responses = useInfiniteQuery({
    queryKey: [...surveyKeys.results(project.id, survey.id), 'table', filter, searchUsed],
    queryFn: ({ pageParam, signal }) => api.get<ResponsesPage>(pageParam ?? responsesPath(path, survey.id, filter, { limit: PAGE, search: searchUsed || undefined }), signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => (last.next ? sameOrigin(last.next) : null),
  });
  const archive = useMutation({
    mutationFn: ({ uuid, archived }: { uuid: string; archived: boolean }) => api.post(path(`surveys/${survey.id}/responses/${uuid}/${archived ? 'archive' : 'unarchive'}/`)),
    onSuccess: (_, { archived }) => {
      toast.show(archived ? 'Response archived.' : 'Response restored.');
      void client.invalidateQueries({ queryKey: surveyKeys.results(project.id, survey.id) });
    },
    onError: (error) => toast.show(`Not changed: ${errorMessage(error)}`, 'error'),
  });
  const questions = useMemo(() => (Array.isArray(survey.questions) ? survey.questions.filter(isObject) : []), [survey.questions]);
  const columns: Column<SurveyResponseItem>[] = [
    { key: 'timestamp', header: 'Time', render: (row) => <span className="nowrap">{formatDateTime(row.timestamp)}</span> },
    {
      key: 'person',
      header: 'Person',
      render: (row) => <ResponsePerson row={row} />,
    },
    ...questions.map((question, index) => ({
      key: `q${index}`,
      header: typeof question.question === 'string' ? question.question : `Question ${index + 1}`,
      wideOnly: index > 0,
      render: (row: SurveyResponseItem) => <span className="response-answer">{answerText(row.answers[questionId(question, index)])}</span>,
    })),
    {
      key: 'state',
      header: 'State',
      render: (row) => (
        <span className="row">
          {row.partial ? <Badge tone="warning">Partial</Badge> : null}
          {row.archived ? <Badge>Archived</Badge> : null}
        </span>
      ),
    },
    {
      key: 'actions',
      header: <span className="visually-hidden">Actions</span>,
      align: 'right',
      render: (row) => (
        <Button size="sm" variant="ghost" loading={archive.isPending && archive.variables?.uuid === row.uuid} onClick={() => archive.mutate({ uuid: row.uuid, archived: !row.archived })}>
          {row.archived ? 'Unarchive' : 'Archive'}
        </Button>
      ),
    },
  ];
  const rows = responses.data?.pages.flatMap((page) => page.results) ?? [];
  return (
    <div className="stack">
      <div className="filter-bar">
        <Field label="Search in open answers" hideLabel className="filter-search">
          {(control) => <Input {...control} type="search" maxLength={200} placeholder="Search in open answers" value={searchText} onChange={(event) => setSearchText(event.target.value)} />}
        </Field>
        <a className="btn btn-secondary btn-md" href={responsesPath(path, survey.id, filter, { format: 'csv', search: searchUsed || undefined })} download>
          Download CSV
        </a>
      </div>
      {responses.isPending ? (
        <Spinner label="Loading responses…" />
      ) : responses.isError && isApiError(responses.error) && responses.error.status === 404 ? (
        <Notice>This server does not list individual responses yet (GET …/responses/).</Notice>
      ) : responses.isError ? (
        <ErrorNotice error={responses.error} onRetry={() => void responses.refetch()} title="The responses could not be loaded" />
      ) : (
        <>
          <div className="responses-table">
          <Table caption="Responses" columns={columns} rows={rows} rowKey={(row) => row.uuid} empty="No responses match." busy={responses.isFetching && !responses.isFetchingNextPage} />
          </div>
          {responses.hasNextPage ? (
            <div>
              <Button loading={responses.isFetchingNextPage} onClick={() => void responses.fetchNextPage()}>
                Load more
              </Button>
            </div>
          ) : null}
        </>
      )}
    </div>
  );
}
