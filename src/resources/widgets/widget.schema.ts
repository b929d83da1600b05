import { type ArgSpecs } from '../../rest/args.js';
import { type ItemSchema } from '../../rest/schema.js';
import { INACTIVE_SIDEBAR } from './widget.model.js';

const everywhere = ['view', 'edit', 'embed'] as const;

export const widgetSchema: ItemSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'widget',
  type: 'object',
  properties: {
    id: { description: 'Unique identifier for the widget.', type: 'string', context: [...everywhere] },
    id_base: { description: 'The type of the widget. Corresponds to ID in widget-types endpoint.', type: 'string', context: [...everywhere] },
    sidebar: { description: 'The sidebar the widget belongs to.', type: 'string', default: INACTIVE_SIDEBAR, required: true, context: [...everywhere] },
    rendered: { description: 'HTML representation of the widget.', type: 'string', context: [...everywhere], readonly: true },
    rendered_form: { description: 'HTML representation of the widget admin form.', type: 'string', context: ['edit'], readonly: true },
    instance: {
      description: 'Instance settings of the widget, if supported.',
      type: 'object',
      context: ['edit'],
      properties: {
        encoded: { description: 'Base64 encoded representation of the instance settings.', type: 'string', context: ['edit'] },
        hash: { description: 'Cryptographic hash of the instance settings.', type: 'string', context: ['edit'] },
        raw: { description: 'Unencoded instance settings, if supported.', type: 'object', context: ['edit'] },
      },
      response: { type: ['object', 'null'] },
    },
    form_data: {
      description: 'URL-encoded form data from the widget admin form. Used to update a widget that does not support instance. Write only.',
      type: 'string',
      context: [],
    },
  },
};

export const widgetIdArg: ArgSpecs = { id: { description: 'Unique identifier for the widget.', type: 'string' } };

export const widgetListArgs: ArgSpecs = {
  sidebar: { description: 'The sidebar to return widgets for.', type: 'string' },
};

export const forceArg: ArgSpecs = {
  force: { description: 'Whether to force removal of the widget, or move it to the inactive sidebar.', type: 'boolean' },
};
