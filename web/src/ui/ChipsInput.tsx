import { useState, type KeyboardEvent } from 'react';
import type { ControlProps } from './Field.tsx';

interface ChipsInputProps extends ControlProps {
  values: string[];
  onChange: (values: string[]) => void;
  placeholder?: string;
}

/** A list of values typed one at a time: Enter (or a comma) adds, Backspace on empty removes the last. */
export function ChipsInput({ values, onChange, placeholder = 'Type a value and press Enter', ...control }: ChipsInputProps) {
  const [draft, setDraft] = useState('');
  const add = (raw: string) => {
    const value = raw.trim();
    if (value && !values.includes(value)) onChange([...values, value]);
    setDraft('');
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' || (event.key === ',' && draft.trim() !== '')) {
      event.preventDefault();
      add(draft);
    } else if (event.key === 'Backspace' && draft === '' && values.length > 0) {
      onChange(values.slice(0, -1));
    }
  };
  return (
    <div className="chips-input" aria-invalid={control['aria-invalid']}>
      {values.map((value, index) => (
        <span key={`${value}-${index}`} className="chip">
          <span className="chip-text">{value}</span>
          <button type="button" className="chip-remove" aria-label={`Remove ${value}`} onClick={() => onChange(values.filter((_, i) => i !== index))}>
            ×
          </button>
        </span>
      ))}
      <input
        {...control}
        className="chips-input-field"
        value={draft}
        placeholder={values.length === 0 ? placeholder : ''}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
        onBlur={() => draft.trim() && add(draft)}
      />
    </div>
  );
}
