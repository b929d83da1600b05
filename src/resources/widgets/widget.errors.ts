import { defineRestError } from '../../rest/errors.js';

export const WidgetNotFound = defineRestError('rest_widget_not_found', 'No widget was found with that id.', 404);
