import { validationError } from '../../kernel/errors.ts';

export const nameTaken = (name: string) => validationError(`Event definition with name '${name}' already exists`, 'name', 'invalid_input');

export const groupNameTakenError = () => validationError('A property group with this name already exists for this team', 'name', 'unique');

export const doesNotExist = (value: string, attr: string) =>
  validationError(`Invalid pk "${value}" - object does not exist.`, attr, 'does_not_exist');
