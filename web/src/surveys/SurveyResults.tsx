import { lazy, Suspense, useMemo, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api, withQuery } from '../api/client.ts';
import { errorMessage, isApiError } from '../api/errors.ts';
import { useProjectPath } from '../shell/session.ts';
import { formatCount } from '../lib/format.ts';
import { Button } from '../ui/Button.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { Field, Input } from '../ui/Field.tsx';
import { Card } from '../ui/Page.tsx';
import { useResponsesSample, useSurveyStats, type ResultsFilter } from './api.ts';
import { questionId, questionResult, responsesPerDay, type Bar, type QuestionResult } from './results.ts';
import { isObject } from './survey-form.ts';
import type { Json, Survey, SurveyEventName } from './types.ts';

const TrendChart = lazy(() => import('../charts/TrendChart.tsx'));

/** The responses the per-question charts are drawn from (newest first). */
export const RESULTS_SAMPLE = 2000;

function Bars({ bars, total, label }: { bars: Bar[]; total: number; label: string }) {
  return (
    <ul className="bar-list" aria-label={label}>
      {bars.map((bar) => {
        const share = total > 0 ? (bar.count / total) * 100 : 0;
        return (
          <li key={bar.label} className="bar-item">
            <span className="bar-label">{bar.label}</span>
            <span className="bar-track" aria-hidden="true">
              <span className="bar-fill" style={{ width: `${share}%`, display: 'block' }} />
            </span>
            <span className="bar-count">
              {formatCount(bar.count)} <span className="muted small">({Math.round(share)}%)</span>
            </span>
          </li>
        );
      })}
    </ul>
  );
}

function RatingColumns({ bars }: { bars: Bar[] }) {
  const max = Math.max(1, ...bars.map((bar) => bar.count));
  return (
    <div className="rating-columns" role="img" aria-label={bars.map((bar) => `${bar.label}: ${bar.count}`).join(', ')}>
      {bars.map((bar) => (
        <div key={bar.label} className="rating-column">
          <span className="small">{bar.count}</span>
          <span className="rating-column-bar" style={{ height: `${(bar.count / max) * 100}%` }} />
          <span className="rating-column-label">{bar.label}</span>
        </div>
      ))}
    </div>
  );
}

function OpenAnswers({ answers }: { answers: Array<{ text: string; uuid: string; timestamp: string }> }) {
  const [search, setSearch] = useState('');
  const needle = search.trim().toLowerCase();
  const shown = needle ? answers.filter((answer) => answer.text.toLowerCase().includes(needle)) : answers;
  return (
    <div className="stack-sm">
      <Field label="Search the answers" hideLabel>
        {(control) => <Input {...control} type="search" placeholder="Search the answers" value={search} onChange={(event) => setSearch(event.target.value)} />}
      </Field>
      <span className="muted small">
        {formatCount(shown.length)} of {formatCount(answers.length)} answers
      </span>
      <ul className="open-answers">
        {shown.slice(0, 500).map((answer) => (
          <li key={answer.uuid}>{answer.text}</li>
        ))}
      </ul>
    </div>
  );
}

/** The server's summary of a question's answers (computed locally, no language model), its Markdown shown as plain lines. */
function QuestionSummary({ surveyId, questionId }: { surveyId: string; questionId: string }) {
  const path = useProjectPath();
  const summary = useMutation({
    mutationFn: () => api.post<{ content: string; response_count: number }>(withQuery(path(`surveys/${surveyId}/summarize_responses/`), { question_id: questionId }), { force_refresh: false }),
  });
  if (!summary.data) {
    return (
      <div className="row">
        <Button size="sm" loading={summary.isPending} onClick={() => summary.mutate()}>
          Summarize the answers
        </Button>
        {summary.isError ? <span className="field-error">{errorMessage(summary.error)}</span> : null}
      </div>
    );
  }
  const lines = summary.data.content.split('\n').map((line) => line.replace(/\*\*/g, '').trim()).filter(Boolean);
  return (
    <div className="notice notice-info summary-text">
      <div>
        {lines.map((line, i) => (line.startsWith('- ') ? <div key={i}>• {line.slice(2)}</div> : <p key={i}>{line}</p>))}
      </div>
    </div>
  );
}

function QuestionCard({ question, index, result, surveyId }: { question: Json; index: number; result: QuestionResult; surveyId: string }) {
  const title = `${index + 1}. ${typeof question.question === 'string' ? question.question : 'Question'}`;
  let body;
  if (result.kind === 'rating') {
    body = (
      <div className="stack-sm">
        {result.nps ? (
          <div className="row">
            <span className="nps-score">NPS {result.nps.score}</span>
            <span className="muted small">
              {result.nps.promoters} promoters · {result.nps.passives} passives · {result.nps.detractors} detractors
            </span>
          </div>
        ) : null}
        <RatingColumns bars={result.bars} />
        <span className="muted small">
          {formatCount(result.answered)} answers{result.average !== null ? ` · average ${result.average.toFixed(1)}` : ''}
        </span>
      </div>
    );
  } else if (result.kind === 'choice') {
    body = (
      <div className="stack-sm">
        <Bars bars={result.bars} total={result.answered} label={title} />
        <span className="muted small">{formatCount(result.answered)} answers</span>
        {result.openTexts.length > 0 ? (
          <details>
            <summary>Typed into the open choice ({result.openTexts.length})</summary>
            <ul className="open-answers">
              {result.openTexts.slice(0, 200).map((text, i) => (
                <li key={i}>{text}</li>
              ))}
            </ul>
          </details>
        ) : null}
      </div>
    );
  } else if (result.kind === 'link') {
    body = <p>{formatCount(result.clicked)} people opened the link.</p>;
  } else {
    body =
      result.answers.length === 0 ? (
        <p className="muted">No answers yet.</p>
      ) : (
        <div className="stack-sm">
          <QuestionSummary surveyId={surveyId} questionId={questionId(question, index)} />
          <OpenAnswers answers={result.answers} />
        </div>
      );
  }
  return <Card title={title}>{body}</Card>;
}

function Funnel({ stats }: { stats: Partial<Record<SurveyEventName, { total_count: number; unique_persons: number }>> }) {
  const shown = stats['survey shown']?.unique_persons ?? 0;
  const bars: Bar[] = [
    { label: 'Shown', count: shown },
    { label: 'Dismissed', count: stats['survey dismissed']?.unique_persons ?? 0 },
    { label: 'Sent', count: stats['survey sent']?.unique_persons ?? 0 },
  ];
  return <Bars bars={bars} total={Math.max(shown, ...bars.map((bar) => bar.count))} label="Shown, dismissed and sent, unique persons" />;
}

function Headline({ survey }: { survey: Survey }) {
  const path = useProjectPath();
  const headline = useMutation({ mutationFn: () => api.post<{ headline: string; responses_sampled: number }>(path(`surveys/${survey.id}/summary_headline/`), { force_refresh: false }) });
  return (
    <div className="row-between">
      {headline.data ? <p>{headline.data.headline}</p> : headline.isError ? <Notice tone="error">{errorMessage(headline.error)}</Notice> : <span className="muted">A one-sentence summary of the answers, computed here.</span>}
      <Button size="sm" loading={headline.isPending} onClick={() => headline.mutate()}>
        {headline.data ? 'Refresh summary' : 'Summarize'}
      </Button>
    </div>
  );
}

export function SurveyResults({ survey, filter }: { survey: Survey; filter: ResultsFilter }) {
  const stats = useSurveyStats(survey.id, filter);
  const sample = useResponsesSample(survey.id, filter, RESULTS_SAMPLE);
  const questions = useMemo(() => (Array.isArray(survey.questions) ? survey.questions.filter(isObject) : []), [survey.questions]);
  const results = useMemo(() => (sample.data ? questions.map((question, index) => questionResult(question, index, sample.data.results)) : []), [questions, sample.data]);
  const perDay = useMemo(() => (sample.data ? responsesPerDay(sample.data.results, filter.date_from, filter.date_to, 7) : null), [sample.data, filter.date_from, filter.date_to]);
  const lines = useMemo(() => (perDay ? [{ label: 'Responses', values: perDay.values }] : []), [perDay]);

  return (
    <div className="stack">
      <Card title="Summary">
        {stats.isPending ? (
          <Spinner label="Counting…" />
        ) : stats.isError ? (
          <ErrorNotice error={stats.error} onRetry={() => void stats.refetch()} />
        ) : (
          <div className="stack">
            <div className="stat-tiles">
              <div className="stat-tile">
                <div className="muted small">Responses</div>
                <div className="stat-tile-value">{formatCount(stats.data.stats['survey sent']?.total_count ?? 0)}</div>
              </div>
              <div className="stat-tile">
                <div className="muted small">Shown to</div>
                <div className="stat-tile-value">{formatCount(stats.data.stats['survey shown']?.unique_persons ?? 0)}</div>
              </div>
              <div className="stat-tile">
                <div className="muted small">Response rate</div>
                <div className="stat-tile-value">{Math.round(stats.data.rates.unique_users_response_rate * 10) / 10}%</div>
              </div>
              <div className="stat-tile">
                <div className="muted small">Dismissal rate</div>
                <div className="stat-tile-value">{Math.round(stats.data.rates.unique_users_dismissal_rate * 10) / 10}%</div>
              </div>
            </div>
            <Funnel stats={stats.data.stats} />
            <Headline survey={survey} />
          </div>
        )}
      </Card>
      {sample.isPending ? (
        <Spinner label="Loading responses…" />
      ) : sample.isError ? (
        isApiError(sample.error) && sample.error.status === 404 ? (
          <Notice>This server does not list individual responses yet (GET …/responses/): the counts above are exact; per-question charts appear once it does.</Notice>
        ) : (
          <ErrorNotice error={sample.error} onRetry={() => void sample.refetch()} title="The responses could not be loaded" />
        )
      ) : sample.data.results.length === 0 ? (
        <EmptyState title="No responses yet">Answers appear here as people send them{filter.date_from || filter.date_to ? ' (in the chosen dates)' : ''}.</EmptyState>
      ) : (
        <>
          {!sample.data.complete ? <Notice>The charts below show the latest {formatCount(RESULTS_SAMPLE)} responses; the counts above are over all of them.</Notice> : null}
          <Card title="Responses over time">
            {perDay && perDay.days.length > 0 ? (
              <Suspense fallback={<Spinner label="Drawing the chart…" />}>
                <TrendChart days={perDay.days} lines={lines} title="Responses per day" />
              </Suspense>
            ) : null}
          </Card>
          {questions.map((question, index) => (
            <QuestionCard key={index} question={question} index={index} result={results[index]} surveyId={survey.id} />
          ))}
        </>
      )}
    </div>
  );
}
