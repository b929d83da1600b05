// A theme's stylesheet as the routes of themes and of their global styles take it in their path,
// and the error for one naming no theme: defined once, here, rather than in one resource that the
// other would have to reach into.
import { defineRestError } from '../rest/errors.js';

/** WordPress's stylesheet pattern: one or two path segments, none of `:<>*?"|`. */
export const STYLESHEET_PATTERN = '[^\\/:<>\\*\\?"\\|]+(?:\\/[^\\/:<>\\*\\?"\\|]+)?';
/** A theme's folder, or a folder in a folder of themes (`<group>/<theme>`), as WordPress allows. */
export const STYLESHEET_EXAMPLES = ['cornerstone', 'collection/cornerstone'];

export const ThemeNotFound = defineRestError('rest_theme_not_found', 'Theme not found.', 404);
