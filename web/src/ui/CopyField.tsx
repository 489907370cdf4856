import { useState } from 'react';
import { Field } from './Field.tsx';

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** A read-only value with a copy button; selecting the text works too where the clipboard is closed. */
export function CopyField({ label, value, hint, multiline = false }: { label: string; value: string; hint?: string; multiline?: boolean }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  return (
    <Field label={label} hint={copied === 'no' ? 'Copying is not allowed here: select the text and copy it.' : hint}>
      {(control) => (
        <div className="copy-field">
          {multiline ? (
            <pre className="code-block" tabIndex={0} {...control}>
              {value}
            </pre>
          ) : (
            <input className="input mono" readOnly value={value} onFocus={(event) => event.currentTarget.select()} {...control} />
          )}
          <button
            type="button"
            className="btn btn-secondary btn-sm copy-button"
            onClick={async () => {
              setCopied((await copyText(value)) ? 'yes' : 'no');
              window.setTimeout(() => setCopied(null), 2000);
            }}
          >
            {copied === 'yes' ? 'Copied' : 'Copy'}
          </button>
        </div>
      )}
    </Field>
  );
}
