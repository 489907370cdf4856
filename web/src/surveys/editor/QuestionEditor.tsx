import { Button } from '../../ui/Button.tsx';
import { Checkbox, Field, Input, Select, TextArea } from '../../ui/Field.tsx';
import { QUESTION_TYPE_LABELS, QUESTION_TYPES, questionType, withKey, withQuestionType, type QuestionForm, type QuestionType } from '../survey-form.ts';
import type { Json } from '../types.ts';
import { BranchingEditor } from './BranchingEditor.tsx';

interface QuestionEditorProps {
  question: QuestionForm;
  index: number;
  questions: QuestionForm[];
  onChange: (question: QuestionForm) => void;
  onMove: (to: number) => void;
  onRemove: () => void;
  error: string | null;
}

const SCALES: Record<string, Array<{ value: string; label: string }>> = {
  number: [
    { value: '3', label: '1–3' },
    { value: '5', label: '1–5' },
    { value: '7', label: '1–7' },
    { value: '10', label: '0–10 (NPS)' },
  ],
  emoji: [
    { value: '3', label: '3 faces' },
    { value: '5', label: '5 faces' },
  ],
};

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

export function QuestionEditor({ question, index, questions, onChange, onMove, onRemove, error }: QuestionEditorProps) {
  const value = question.value;
  const type = questionType(value);
  const name = `Question ${index + 1}`;
  const set = (key: string, next: unknown) => onChange({ uid: question.uid, value: withKey(value, key, next) });
  const setMany = (changes: Json) => onChange({ uid: question.uid, value: { ...value, ...changes } });
  const choices = Array.isArray(value.choices) ? value.choices.map((choice) => String(choice)) : [];
  const hasOpen = value.hasOpenChoice === true;
  const setChoices = (next: string[]) => set('choices', next);

  return (
    <section className="panel" aria-label={name}>
      <div className="panel-header">
        <h3>{name}</h3>
        <div className="row">
          <Button size="sm" variant="ghost" disabled={index === 0} onClick={() => onMove(index - 1)} aria-label={`Move ${name} up`}>
            ↑
          </Button>
          <Button size="sm" variant="ghost" disabled={index === questions.length - 1} onClick={() => onMove(index + 1)} aria-label={`Move ${name} down`}>
            ↓
          </Button>
          <Button size="sm" variant="ghost" disabled={questions.length === 1} onClick={onRemove} aria-label={`Remove ${name}`}>
            Remove
          </Button>
        </div>
      </div>
      {error ? (
        <div className="field-error" role="alert">
          {error}
        </div>
      ) : null}
      <div className="form-grid">
        <Field label={`${name}: type`}>
          {(control) => (
            <Select
              {...control}
              options={[...QUESTION_TYPES.map((item) => ({ value: item, label: QUESTION_TYPE_LABELS[item] })), ...(type === null ? [{ value: String(value.type), label: String(value.type) }] : [])]}
              value={type ?? String(value.type)}
              onChange={(event) => onChange(withQuestionType(question, event.target.value as QuestionType))}
            />
          )}
        </Field>
        <Field label={`${name}: button text`} hint="Empty: the survey's submit text.">
          {(control) => <Input {...control} value={str(value.buttonText)} onChange={(event) => set('buttonText', event.target.value === '' ? undefined : event.target.value)} />}
        </Field>
      </div>
      <Field label={`${name}: question`}>
        {(control) => <Input {...control} value={str(value.question)} placeholder="What would you like to ask?" onChange={(event) => set('question', event.target.value)} />}
      </Field>
      <Field label={`${name}: description`} hint="Optional; shown under the question.">
        {(control) => <TextArea {...control} rows={2} value={str(value.description)} onChange={(event) => set('description', event.target.value)} />}
      </Field>
      <Checkbox label="Optional (people may skip it)" checked={value.optional === true} onChange={(event) => set('optional', event.target.checked ? true : undefined)} />

      {type === 'link' ? (
        <Field label={`${name}: link`} hint="https:// or mailto: — opened when the button is pressed.">
          {(control) => <Input {...control} className="mono" value={str(value.link)} onChange={(event) => set('link', event.target.value)} />}
        </Field>
      ) : null}

      {type === 'rating' ? (
        <>
          <div className="form-grid">
            <Field label={`${name}: display`}>
              {(control) => (
                <Select
                  {...control}
                  options={[
                    { value: 'number', label: 'Numbers' },
                    { value: 'emoji', label: 'Emoji' },
                  ]}
                  value={value.display === 'emoji' ? 'emoji' : 'number'}
                  onChange={(event) => {
                    const display = event.target.value;
                    const scale = Number(value.scale);
                    const fits = SCALES[display].some((option) => Number(option.value) === scale);
                    setMany({ display, scale: fits ? scale : display === 'emoji' ? 5 : scale, isNpsQuestion: display === 'number' && scale === 10 });
                  }}
                />
              )}
            </Field>
            <Field label={`${name}: scale`}>
              {(control) => (
                <Select
                  {...control}
                  options={SCALES[value.display === 'emoji' ? 'emoji' : 'number']}
                  value={String(value.scale ?? '')}
                  onChange={(event) => setMany({ scale: Number(event.target.value), isNpsQuestion: Number(event.target.value) === 10, ...(value.branching ? { branching: undefined } : {}) })}
                />
              )}
            </Field>
          </div>
          <div className="form-grid">
            <Field label={`${name}: lower bound label`}>
              {(control) => <Input {...control} value={str(value.lowerBoundLabel)} onChange={(event) => set('lowerBoundLabel', event.target.value)} />}
            </Field>
            <Field label={`${name}: upper bound label`}>
              {(control) => <Input {...control} value={str(value.upperBoundLabel)} onChange={(event) => set('upperBoundLabel', event.target.value)} />}
            </Field>
          </div>
        </>
      ) : null}

      {type === 'single_choice' || type === 'multiple_choice' ? (
        <fieldset className="fieldset stack-sm">
          <legend className="field-label">{name}: choices</legend>
          {choices.map((choice, choiceIndex) => {
            const isOpen = hasOpen && choiceIndex === choices.length - 1;
            return (
              <div className="choice-row" key={choiceIndex}>
                <Input
                  aria-label={`${name}, choice ${choiceIndex + 1}${isOpen ? ' (open choice)' : ''}`}
                  value={choice}
                  onChange={(event) => setChoices(choices.map((item, i) => (i === choiceIndex ? event.target.value : item)))}
                />
                {isOpen ? <span className="muted small">open</span> : null}
                <Button
                  size="sm"
                  variant="ghost"
                  disabled={choices.length <= 1}
                  aria-label={`Remove choice ${choiceIndex + 1} of ${name}`}
                  onClick={() => {
                    const next = choices.filter((_, i) => i !== choiceIndex);
                    onChange({ uid: question.uid, value: withKey(withKey(value, 'choices', next), 'hasOpenChoice', isOpen ? undefined : value.hasOpenChoice) });
                  }}
                >
                  ×
                </Button>
              </div>
            );
          })}
          <div className="row">
            <Button size="sm" onClick={() => setChoices(hasOpen ? [...choices.slice(0, -1), `Choice ${choices.length}`, choices[choices.length - 1]] : [...choices, `Choice ${choices.length + 1}`])}>
              + Add choice
            </Button>
            {!hasOpen ? (
              <Button size="sm" onClick={() => setMany({ choices: [...choices, 'Other'], hasOpenChoice: true })}>
                + Add open choice (“Other”)
              </Button>
            ) : null}
          </div>
          <Checkbox label="Shuffle the choices" checked={value.shuffleOptions === true} onChange={(event) => set('shuffleOptions', event.target.checked ? true : undefined)} />
        </fieldset>
      ) : null}

      <BranchingEditor question={question} index={index} questions={questions} onChange={onChange} />
    </section>
  );
}
