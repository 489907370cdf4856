/**
 * The survey as posthog-js draws its popover: the same box, colours, question layouts, rating
 * buttons, choices, submit button, thank-you message and branding, in HTML and CSS of our own (the
 * SDK renders into a shadow root; docs/console.md says how close this is). Colours come from the
 * appearance as style properties (set through the DOM, which the console's CSP allows).
 */
import { useState, type CSSProperties } from 'react';
import type { Json } from './types.ts';
import { isObject, questionType } from './survey-form.ts';

const DEFAULTS = {
  backgroundColor: '#eeeded',
  submitButtonColor: 'black',
  submitButtonTextColor: 'white',
  ratingButtonColor: 'white',
  ratingButtonActiveColor: 'black',
  borderColor: '#c9c6c6',
  textColor: 'black',
  placeholder: 'Start typing...',
  submitButtonText: 'Submit',
  thankYouMessageHeader: 'Thank you for your feedback!',
  thankYouMessageCloseButtonText: 'Close',
};

const THREE_FACES = ['😞', '😐', '🙂'];
const FIVE_FACES = ['😠', '😞', '😐', '🙂', '😄'];

const text = (value: unknown, fallback = ''): string => (typeof value === 'string' && value !== '' ? value : fallback);

/** A colour posthog-js would use for text on `background`: black or white by its lightness. */
export function contrastText(background: string): string {
  const hex = /^#?([0-9a-f]{6}|[0-9a-f]{3})$/i.exec(background.trim());
  if (!hex) return background.trim().toLowerCase() === 'white' ? 'black' : background.trim().toLowerCase() === 'black' ? 'white' : 'black';
  const full = hex[1].length === 3 ? [...hex[1]].map((c) => c + c).join('') : hex[1];
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? 'black' : 'white';
}

function ratingValues(question: Json): number[] {
  const scale = Number(question.scale) || 5;
  if (scale === 10) return Array.from({ length: 11 }, (_, i) => i);
  return Array.from({ length: scale }, (_, i) => i + 1);
}

function QuestionBody({ question, appearance }: { question: Json; appearance: Json }) {
  const [picked, setPicked] = useState<number[]>([]);
  const type = questionType(question);
  const ratingColor = text(appearance.ratingButtonColor, DEFAULTS.ratingButtonColor);
  const activeColor = text(appearance.ratingButtonActiveColor, DEFAULTS.ratingButtonActiveColor);
  const border = text(appearance.borderColor, DEFAULTS.borderColor);
  if (type === 'open') {
    return <textarea className="bw-survey-textarea" rows={4} placeholder={text(appearance.placeholder, DEFAULTS.placeholder)} aria-label="Answer (preview)" style={{ borderColor: border }} />;
  }
  if (type === 'rating') {
    const values = ratingValues(question);
    const emoji = question.display === 'emoji' && (values.length === 3 || values.length === 5);
    const faces = values.length === 3 ? THREE_FACES : FIVE_FACES;
    return (
      <div className="bw-survey-rating">
        <div className={emoji ? 'bw-survey-emojis' : 'bw-survey-numbers'} style={emoji ? undefined : { borderColor: border }}>
          {values.map((value, index) => {
            const active = picked[0] === value;
            const style: CSSProperties = emoji
              ? { opacity: picked.length === 0 || active ? 1 : 0.5 }
              : { backgroundColor: active ? activeColor : ratingColor, color: contrastText(active ? activeColor : ratingColor), borderColor: border };
            return (
              <button key={value} type="button" className={emoji ? 'bw-survey-emoji' : 'bw-survey-number'} style={style} onClick={() => setPicked([value])} aria-pressed={active}>
                {emoji ? faces[index] : value}
              </button>
            );
          })}
        </div>
        <div className="bw-survey-bounds">
          <span>{text(question.lowerBoundLabel)}</span>
          <span>{text(question.upperBoundLabel)}</span>
        </div>
      </div>
    );
  }
  if (type === 'single_choice' || type === 'multiple_choice') {
    const choices = Array.isArray(question.choices) ? question.choices.map((choice) => String(choice)) : [];
    const open = question.hasOpenChoice === true;
    return (
      <div className="bw-survey-choices">
        {choices.map((choice, index) => {
          const active = picked.includes(index);
          const isOpen = open && index === choices.length - 1;
          return (
            <label key={index} className={`bw-survey-choice${active ? ' bw-survey-choice-on' : ''}`} style={{ borderColor: active ? text(appearance.submitButtonColor, 'black') : border }}>
              <input
                type={type === 'single_choice' ? 'radio' : 'checkbox'}
                checked={active}
                onChange={() => setPicked(type === 'single_choice' ? [index] : active ? picked.filter((item) => item !== index) : [...picked, index])}
              />
              <span>{isOpen ? `${choice}:` : choice}</span>
              {isOpen ? <input className="bw-survey-open-choice" aria-label={`${choice} (preview)`} /> : null}
            </label>
          );
        })}
      </div>
    );
  }
  return null;
}

/** The popover with its questions one at a time (as posthog-js shows them), then the thank-you message. */
export function SurveyPreview({ questions, appearance: rawAppearance, surveyType }: { questions: Json[]; appearance: Json | null; surveyType: string }) {
  const appearance = rawAppearance ?? {};
  const [step, setStep] = useState(0);
  const count = questions.length;
  const index = Math.min(step, count);
  const thanks = index >= count && count > 0;
  const background = text(appearance.backgroundColor, DEFAULTS.backgroundColor);
  const textColor = text(appearance.textColor, contrastText(background));
  const submitColor = text(appearance.submitButtonColor, DEFAULTS.submitButtonColor);
  const position = text(appearance.position, 'right');
  const boxStyle: CSSProperties = {
    backgroundColor: background,
    borderColor: text(appearance.borderColor, DEFAULTS.borderColor),
    color: textColor,
    maxWidth: text(appearance.maxWidth) || undefined,
    borderRadius: text(appearance.borderRadius) || undefined,
  };
  const question = thanks || count === 0 ? null : questions[index];
  const submitLabel = question ? text(question.buttonText, text(appearance.submitButtonText, question.type === 'link' ? 'Open' : DEFAULTS.submitButtonText)) : '';
  return (
    <div className="bw-survey-preview">
      <div className="row-between">
        <span className="muted small">
          Preview{surveyType === 'widget' ? ' (opened from its feedback button)' : ''}: {thanks ? 'thank-you message' : count === 0 ? 'no questions' : `question ${index + 1} of ${count}`}
        </span>
        <div className="row">
          <button type="button" className="btn btn-ghost btn-sm" disabled={index === 0} onClick={() => setStep(index - 1)}>
            Back
          </button>
          <button type="button" className="btn btn-ghost btn-sm" disabled={thanks || count === 0} onClick={() => setStep(index + 1)}>
            Next
          </button>
        </div>
      </div>
      <div className={`bw-survey-stage bw-survey-stage-${position}`}>
        <div className="bw-survey-box" style={boxStyle} role="group" aria-label="Survey preview">
          <button type="button" className="bw-survey-cancel" aria-label="Close survey (preview)" onClick={() => setStep(0)} style={{ borderColor: boxStyle.borderColor, backgroundColor: background, color: textColor }}>
            ×
          </button>
          {question ? (
            <div className="bw-survey-question" key={index}>
              <div className="bw-survey-title">{text(question.question, 'Your question')}</div>
              {text(question.description) ? <div className="bw-survey-description">{text(question.description)}</div> : null}
              <QuestionBody question={question} appearance={appearance} />
              <button type="button" className="bw-survey-submit" style={{ backgroundColor: submitColor, color: text(appearance.submitButtonTextColor, contrastText(submitColor)) }} onClick={() => setStep(index + 1)}>
                {submitLabel}
              </button>
            </div>
          ) : thanks ? (
            <div className="bw-survey-question">
              <div className="bw-survey-title">{text(appearance.thankYouMessageHeader, DEFAULTS.thankYouMessageHeader)}</div>
              {text(appearance.thankYouMessageDescription) ? <div className="bw-survey-description">{text(appearance.thankYouMessageDescription)}</div> : null}
              <button type="button" className="bw-survey-submit" style={{ backgroundColor: submitColor, color: text(appearance.submitButtonTextColor, contrastText(submitColor)) }} onClick={() => setStep(0)}>
                {text(appearance.thankYouMessageCloseButtonText, DEFAULTS.thankYouMessageCloseButtonText)}
              </button>
            </div>
          ) : (
            <div className="bw-survey-question muted">Add a question to see it here.</div>
          )}
          {appearance.whiteLabel === true ? null : <div className="bw-survey-branding">Survey by PostHog</div>}
        </div>
      </div>
      {isObject(rawAppearance) && rawAppearance.displayThankYouMessage === false ? <p className="muted small">The thank-you message is off: the survey closes after the last answer.</p> : null}
    </div>
  );
}
