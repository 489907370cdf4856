import { Field, Select, type Option } from '../../ui/Field.tsx';
import { isObject, responseBuckets, withKey, type QuestionForm } from '../survey-form.ts';
import type { Json } from '../types.ts';

/**
 * Where the survey goes after this question (PostHog's `branching`): the next question, the end, a
 * chosen question, or per answer (single choice: each choice; rating: its buckets).
 */
export function BranchingEditor({ question, index, questions, onChange }: { question: QuestionForm; index: number; questions: QuestionForm[]; onChange: (question: QuestionForm) => void }) {
  const branching = isObject(question.value.branching) ? question.value.branching : null;
  const buckets = responseBuckets(question.value);
  const kind = branching ? String(branching.type) : 'next_question';
  const later: Option[] = questions
    .map((item, i) => ({ value: String(i), label: `Question ${i + 1}: ${String(item.value.question ?? '').slice(0, 40) || '…'}` }))
    .filter((_, i) => i > index);
  const targetOptions: Option[] = [{ value: 'next', label: 'Next question' }, ...later, { value: 'end', label: 'End the survey' }];
  const set = (next: Json | undefined) => onChange({ uid: question.uid, value: withKey(question.value, 'branching', next) });
  const name = `Question ${index + 1}`;
  const kinds: Option[] = [
    { value: 'next_question', label: 'Go to the next question' },
    { value: 'end', label: 'End the survey' },
    { value: 'specific_question', label: 'Go to a question', disabled: later.length === 0 },
    ...(buckets.length > 0 ? [{ value: 'response_based', label: 'Depends on the answer' }] : []),
  ];
  const responseValues = branching && isObject(branching.responseValues) ? branching.responseValues : {};
  return (
    <div className="stack-sm">
      <Field label={`${name}: after this question`}>
        {(control) => (
          <Select
            {...control}
            options={kinds}
            value={kind}
            onChange={(event) => {
              const type = event.target.value;
              if (type === 'next_question') set(undefined);
              else if (type === 'end') set({ type: 'end' });
              else if (type === 'specific_question') set({ type: 'specific_question', index: Number(later[0]?.value ?? index + 1) });
              else set({ type: 'response_based', responseValues: {} });
            }}
          />
        )}
      </Field>
      {kind === 'specific_question' && branching ? (
        <Field label={`${name}: go to`}>
          {(control) => <Select {...control} options={later} value={String(branching.index)} onChange={(event) => set({ ...branching, index: Number(event.target.value) })} />}
        </Field>
      ) : null}
      {kind === 'response_based' && branching
        ? buckets.map((bucket) => {
            const target = responseValues[bucket.key];
            return (
              <div className="branch-row" key={bucket.key}>
                <span className="small">{bucket.label}</span>
                <Select
                  aria-label={`${name}: after “${bucket.label}”`}
                  options={targetOptions}
                  value={target === undefined ? 'next' : String(target)}
                  onChange={(event) => {
                    const choice = event.target.value;
                    const values: Json = withKey(responseValues, bucket.key, choice === 'next' ? undefined : choice === 'end' ? 'end' : Number(choice));
                    set({ ...branching, responseValues: values });
                  }}
                />
              </div>
            );
          })
        : null}
    </div>
  );
}
