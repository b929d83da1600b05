export { autosaveRoutes, type AutosavingType } from './autosave.routes.js';
