import { validationError } from '../../kernel/errors.ts';

export const propertiesError = (detail: string) => validationError(detail, 'properties');
