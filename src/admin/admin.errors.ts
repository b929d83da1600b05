import { defineRestError } from '../rest/errors.js';

export const NotSignedIn = defineRestError('cms_not_signed_in', 'You are not signed in.', 401);
