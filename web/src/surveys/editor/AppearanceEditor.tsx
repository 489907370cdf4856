import { Checkbox, Field, Input, Select } from '../../ui/Field.tsx';
import { withKey } from '../survey-form.ts';
import type { Json } from '../types.ts';

const COLORS: Array<{ key: string; label: string; fallback: string }> = [
  { key: 'backgroundColor', label: 'Background', fallback: '#eeeded' },
  { key: 'borderColor', label: 'Border', fallback: '#c9c6c6' },
  { key: 'submitButtonColor', label: 'Button', fallback: '#000000' },
  { key: 'submitButtonTextColor', label: 'Button text', fallback: '#ffffff' },
  { key: 'ratingButtonColor', label: 'Rating buttons', fallback: '#ffffff' },
  { key: 'ratingButtonActiveColor', label: 'Chosen rating', fallback: '#000000' },
];

const NAMED: Record<string, string> = { black: '#000000', white: '#ffffff' };
const asHex = (value: string, fallback: string): string => (/^#[0-9a-f]{6}$/i.test(value) ? value : (NAMED[value.toLowerCase()] ?? fallback));
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Colours, position, texts and the thank-you message (keys the builder does not show are kept). */
export function AppearanceEditor({ appearance, onChange, error, surveyType }: { appearance: Json | null; onChange: (appearance: Json) => void; error: string | null; surveyType: string }) {
  const value = appearance ?? {};
  const set = (key: string, next: unknown) => onChange(withKey(value, key, next));
  const text = (key: string) => (next: string) => set(key, next === '' ? undefined : next);
  return (
    <div className="stack">
      {error ? (
        <div className="field-error" role="alert">
          {error}
        </div>
      ) : null}
      <div className="color-row">
        {COLORS.map((color) => (
          <Field key={color.key} label={color.label}>
            {(control) => (
              <div className="color-input">
                <input type="color" aria-label={`${color.label} colour picker`} value={asHex(str(value[color.key]), color.fallback)} onChange={(event) => set(color.key, event.target.value)} />
                <Input {...control} className="mono" value={str(value[color.key])} placeholder={color.fallback} onChange={(event) => text(color.key)(event.target.value)} />
              </div>
            )}
          </Field>
        ))}
      </div>
      {surveyType === 'widget' ? (
        <div className="form-grid">
          <Field label="Feedback button" hint="How people open the survey.">
            {(control) => (
              <Select
                {...control}
                options={[
                  { value: 'tab', label: 'A tab on the side of the page' },
                  { value: 'button', label: 'A floating button' },
                  { value: 'selector', label: 'Your own element (CSS selector)' },
                ]}
                value={str(value.widgetType) || 'tab'}
                onChange={(event) => set('widgetType', event.target.value)}
              />
            )}
          </Field>
          {value.widgetType === 'selector' ? (
            <Field label="Element selector">
              {(control) => <Input {...control} className="mono" value={str(value.widgetSelector)} placeholder="#feedback-button" onChange={(event) => text('widgetSelector')(event.target.value)} />}
            </Field>
          ) : (
            <>
              <Field label="Button label">
                {(control) => <Input {...control} value={str(value.widgetLabel)} placeholder="Feedback" onChange={(event) => text('widgetLabel')(event.target.value)} />}
              </Field>
              <Field label="Button colour">
                {(control) => <Input {...control} className="mono" value={str(value.widgetColor)} placeholder="black" onChange={(event) => text('widgetColor')(event.target.value)} />}
              </Field>
            </>
          )}
        </div>
      ) : null}
      <div className="form-grid">
        <Field label="Position">
          {(control) => (
            <Select
              {...control}
              options={[
                { value: 'right', label: 'Bottom right' },
                { value: 'left', label: 'Bottom left' },
                { value: 'center', label: 'Bottom centre' },
              ]}
              value={str(value.position) || 'right'}
              onChange={(event) => set('position', event.target.value)}
            />
          )}
        </Field>
        <Field label="Placeholder" hint="In open-text answers.">
          {(control) => <Input {...control} value={str(value.placeholder)} placeholder="Start typing..." onChange={(event) => text('placeholder')(event.target.value)} />}
        </Field>
        <Field label="Submit button text">
          {(control) => <Input {...control} value={str(value.submitButtonText)} placeholder="Submit" onChange={(event) => text('submitButtonText')(event.target.value)} />}
        </Field>
        <Field label="Delay before showing (seconds)">
          {(control) => (
            <Input
              {...control}
              type="number"
              min={0}
              value={typeof value.surveyPopupDelaySeconds === 'number' ? String(value.surveyPopupDelaySeconds) : ''}
              onChange={(event) => set('surveyPopupDelaySeconds', event.target.value === '' ? undefined : Number(event.target.value))}
            />
          )}
        </Field>
      </div>
      <Checkbox label="Show a thank-you message after the last answer" checked={value.displayThankYouMessage === true} onChange={(event) => set('displayThankYouMessage', event.target.checked)} />
      {value.displayThankYouMessage === true ? (
        <div className="form-grid">
          <Field label="Thank-you header">
            {(control) => <Input {...control} value={str(value.thankYouMessageHeader)} placeholder="Thank you for your feedback!" onChange={(event) => text('thankYouMessageHeader')(event.target.value)} />}
          </Field>
          <Field label="Thank-you text">
            {(control) => <Input {...control} value={str(value.thankYouMessageDescription)} onChange={(event) => text('thankYouMessageDescription')(event.target.value)} />}
          </Field>
          <Field label="Close button text">
            {(control) => <Input {...control} value={str(value.thankYouMessageCloseButtonText)} placeholder="Close" onChange={(event) => text('thankYouMessageCloseButtonText')(event.target.value)} />}
          </Field>
          <Checkbox label="Close it by itself after a few seconds" checked={value.autoDisappear === true} onChange={(event) => set('autoDisappear', event.target.checked ? true : undefined)} />
        </div>
      ) : null}
      <Checkbox label="Shuffle the questions" hint="Not with branching." checked={value.shuffleQuestions === true} onChange={(event) => set('shuffleQuestions', event.target.checked ? true : undefined)} />
      <Checkbox label="Hide “Survey by PostHog”" checked={value.whiteLabel === true} onChange={(event) => set('whiteLabel', event.target.checked ? true : undefined)} />
    </div>
  );
}
