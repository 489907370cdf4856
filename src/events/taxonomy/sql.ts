/** SQL rendering a timestamptz as the API's timestamp text (UTC, milliseconds, `Z`), or NULL. */
export const isoSql = (expr: string): string => `to_char(${expr} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Collects WHERE conditions and their parameters; `$n` placeholders are numbered as added. */
export class Conditions {
  readonly params: unknown[] = [];
  private readonly clauses: string[] = [];

  /** Adds a parameter and returns its placeholder. */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** Adds `clause`, built from placeholders obtained by `param`. */
  where(clause: string): void {
    this.clauses.push(clause);
  }

  sql(): string {
    return this.clauses.length ? this.clauses.join(' AND ') : 'TRUE';
  }
}
