import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode, type SelectHTMLAttributes } from 'react';
import { Button, type ButtonProps } from './Button.tsx';
import { Select, type Option } from './Field.tsx';

const MARGIN = 8;
const GAP = 6;

/**
 * A control the signed-in person may not use, with why. The control says it is disabled
 * (aria-disabled, so that it stays focusable and its reason can be reached by keyboard), is
 * described by the reason, and shows it as a tip on hover and on focus (Escape hides it). The tip
 * is placed in the window (position fixed), so a table that scrolls sideways does not clip it.
 */
function WithReason({ reason, children }: { reason: string; children: (describedBy: string) => ReactNode }) {
  const id = useId();
  const anchor = useRef<HTMLSpanElement>(null);
  const tip = useRef<HTMLSpanElement>(null);
  const [open, setOpen] = useState(false);
  const [place, setPlace] = useState<{ top: number; left: number } | null>(null);

  useLayoutEffect(() => {
    if (!open || !anchor.current || !tip.current) return setPlace(null);
    const box = anchor.current.getBoundingClientRect();
    const { offsetWidth: width, offsetHeight: height } = tip.current;
    const left = Math.max(MARGIN, Math.min(box.right - width, window.innerWidth - MARGIN - width));
    const below = box.bottom + GAP;
    setPlace({ left, top: below + height > window.innerHeight - MARGIN ? box.top - GAP - height : below });
  }, [open]);

  useEffect(() => {
    if (!open) return;
    const close = () => setOpen(false);
    const onKey = (event: globalThis.KeyboardEvent) => event.key === 'Escape' && close();
    window.addEventListener('scroll', close, true);
    window.addEventListener('resize', close);
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('scroll', close, true);
      window.removeEventListener('resize', close);
      window.removeEventListener('keydown', onKey);
    };
  }, [open]);

  return (
    <span
      ref={anchor}
      className="has-reason"
      onMouseEnter={() => setOpen(true)}
      onMouseLeave={() => setOpen(false)}
      onFocus={() => setOpen(true)}
      onBlur={() => setOpen(false)}
    >
      {children(id)}
      <span ref={tip} id={id} role="tooltip" className={`reason-tip${place ? ' reason-tip-open' : ''}`} style={place ?? undefined}>
        {reason}
      </span>
    </span>
  );
}

/** A Button, or (with a `reason`) the same button disabled with that reason. */
export function RestrictedButton({ reason, ...props }: ButtonProps & { reason: string | null }) {
  if (reason === null) return <Button {...props} />;
  const { onClick: _onClick, loading: _loading, disabled: _disabled, type: _type, ...rest } = props;
  return (
    <WithReason reason={reason}>
      {(describedBy) => <Button {...rest} type="button" aria-disabled="true" aria-describedby={describedBy} onClick={(event) => event.preventDefault()} />}
    </WithReason>
  );
}

/** Keys that would change or open a select; Tab still moves on. */
function blockChange(event: KeyboardEvent<HTMLSelectElement>): void {
  if (event.key !== 'Tab' && event.key !== 'Escape') event.preventDefault();
}

/** A Select, or (with a `reason`) the same select showing its value, disabled with that reason. */
export function RestrictedSelect({ reason, ...props }: SelectHTMLAttributes<HTMLSelectElement> & { options: Option[]; reason: string | null }) {
  if (reason === null) return <Select {...props} />;
  const { onChange: _onChange, disabled: _disabled, ...rest } = props;
  return (
    <WithReason reason={reason}>
      {(describedBy) => (
        <Select
          {...rest}
          aria-disabled="true"
          aria-describedby={[props['aria-describedby'], describedBy].filter(Boolean).join(' ')}
          onChange={() => undefined}
          onKeyDown={blockChange}
        />
      )}
    </WithReason>
  );
}
