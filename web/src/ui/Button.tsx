import type { ButtonHTMLAttributes, ReactNode } from 'react';
import { Link } from 'wouter';

export type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'ghost';

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  size?: 'sm' | 'md';
  /** Shows a busy state and blocks clicks while a request runs. */
  loading?: boolean;
  icon?: ReactNode;
}

export function buttonClass(variant: ButtonVariant = 'secondary', size: 'sm' | 'md' = 'md'): string {
  return `btn btn-${variant} btn-${size}`;
}

export function Button({ variant = 'secondary', size = 'md', loading = false, icon, className, children, disabled, type = 'button', ...rest }: ButtonProps) {
  return (
    <button
      type={type}
      className={`${buttonClass(variant, size)}${className ? ` ${className}` : ''}`}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
      {...rest}
    >
      {loading ? <span className="spinner spinner-inline" aria-hidden="true" /> : icon}
      {children}
    </button>
  );
}

/** A link that looks like a button (navigation, not an action). */
export function LinkButton({ href, variant = 'secondary', size = 'md', children }: { href: string; variant?: ButtonVariant; size?: 'sm' | 'md'; children: ReactNode }) {
  return (
    <Link href={href} className={buttonClass(variant, size)}>
      {children}
    </Link>
  );
}
