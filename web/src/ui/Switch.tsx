interface SwitchProps {
  checked: boolean;
  onChange: (checked: boolean) => void;
  /** The accessible name: what is switched on or off. */
  label: string;
  /** Shows the label beside the switch; otherwise it is only announced. */
  showLabel?: boolean;
  disabled?: boolean;
  busy?: boolean;
}

export function Switch({ checked, onChange, label, showLabel = false, disabled = false, busy = false }: SwitchProps) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      aria-label={showLabel ? undefined : label}
      aria-busy={busy || undefined}
      disabled={disabled || busy}
      className={`switch${checked ? ' switch-on' : ''}`}
      onClick={() => onChange(!checked)}
    >
      <span className="switch-track" aria-hidden="true">
        <span className="switch-thumb" />
      </span>
      {showLabel ? <span className="switch-label">{label}</span> : null}
    </button>
  );
}
