/**
 * Thrown when the numbers cannot be analysed although validation passed (zero variance, a
 * non-positive baseline mean for a relative Bayesian difference, impossible sums…). The query
 * layer answers it with a 400 "Unable to calculate experiment statistics…".
 */
export class StatisticsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StatisticsError';
  }
}
