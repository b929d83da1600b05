import { type ItemSchema } from '../../rest/schema.js';

const everywhere = ['embed', 'view', 'edit'] as const;

export const sidebarSchema: ItemSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'sidebar',
  type: 'object',
  properties: {
    id: { description: 'ID of sidebar.', type: 'string', context: [...everywhere], readonly: true },
    name: { description: 'Unique name identifying the sidebar.', type: 'string', context: [...everywhere], readonly: true },
    description: { description: 'Description of sidebar.', type: 'string', context: [...everywhere], readonly: true },
    class: { description: 'Extra CSS class to assign to the sidebar in the Widgets interface.', type: 'string', context: [...everywhere], readonly: true },
    before_widget: {
      description: "HTML content to prepend to each widget's HTML output when assigned to this sidebar. Default is an opening list item element.",
      type: 'string',
      default: '',
      context: [...everywhere],
      readonly: true,
    },
    after_widget: {
      description: "HTML content to append to each widget's HTML output when assigned to this sidebar. Default is a closing list item element.",
      type: 'string',
      default: '',
      context: [...everywhere],
      readonly: true,
    },
    before_title: {
      description: 'HTML content to prepend to the sidebar title when displayed. Default is an opening h2 element.',
      type: 'string',
      default: '',
      context: [...everywhere],
      readonly: true,
    },
    after_title: {
      description: 'HTML content to append to the sidebar title when displayed. Default is a closing h2 element.',
      type: 'string',
      default: '',
      context: [...everywhere],
      readonly: true,
    },
    status: { description: 'Status of sidebar.', type: 'string', enum: ['active', 'inactive'], context: [...everywhere], readonly: true },
    widgets: { description: 'Nested widgets.', type: 'array', items: { type: 'string' }, default: [], context: [...everywhere] },
  },
};
