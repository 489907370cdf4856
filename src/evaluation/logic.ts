/**
 * Three-valued results: a condition holds, fails, or cannot be evaluated because a flag it depends
 * on is missing (or part of a cycle).
 */
export const MISSING = 'missing' as const;
export type Tri = boolean | typeof MISSING;

export const not = (value: Tri): Tri => (value === MISSING ? MISSING : !value);

/** AND: any false → false; else any missing → missing; else true (`[]` → true). */
export function all(values: Iterable<() => Tri>): Tri {
  let missing = false;
  for (const value of values) {
    const result = value();
    if (result === false) return false;
    if (result === MISSING) missing = true;
  }
  return missing ? MISSING : true;
}

/** OR: any true → true; else any missing → missing; else false (`[]` → false). */
export function any(values: Iterable<() => Tri>): Tri {
  let missing = false;
  for (const value of values) {
    const result = value();
    if (result === true) return true;
    if (result === MISSING) missing = true;
  }
  return missing ? MISSING : false;
}
