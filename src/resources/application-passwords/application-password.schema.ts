import { type ItemSchema } from '../../rest/schema.js';

const ALL = ['view', 'embed', 'edit'] as const;

export const applicationPasswordSchema: ItemSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'application-password',
  type: 'object',
  properties: {
    uuid: { description: 'The unique identifier for the application password.', type: 'string', format: 'uuid', context: [...ALL], readonly: true },
    app_id: {
      description: 'A UUID provided by the application to uniquely identify it.',
      type: 'string',
      anyOf: [{ type: 'string', format: 'uuid' }, { type: 'string', enum: [''] }],
      context: [...ALL],
    },
    name: { description: 'The name of the application password.', type: 'string', required: true, context: [...ALL], minLength: 1, pattern: '.*\\S.*' },
    password: { description: 'The generated password. Only available after adding an application.', type: 'string', context: ['edit'], readonly: true },
    created: { description: 'The GMT date the application password was created.', type: 'string', format: 'date-time', context: ['view', 'edit'], readonly: true },
    last_used: { description: 'The GMT date the application password was last used.', type: ['string', 'null'], format: 'date-time', context: ['view', 'edit'], readonly: true },
    last_ip: { description: 'The IP address the application password was last used by.', type: ['string', 'null'], format: 'ip', context: ['view', 'edit'], readonly: true },
  },
};
