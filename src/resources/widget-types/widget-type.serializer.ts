import { type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type WidgetTypeDef } from './widget-type.registry.js';

export function prepareWidgetType(type: WidgetTypeDef, req: RestRequest): Record<string, unknown> {
  const data: Record<string, unknown> = { id: type.id, name: type.name, description: type.description, is_multi: true, classname: type.classname };
  if (req.wants('_links')) {
    const links: Links = {
      collection: [{ href: req.url('/cms/v2/widget-types') }],
      self: [{ href: req.url(`/cms/v2/widget-types/${type.id}`) }],
    };
    data._links = links;
  }
  return data;
}
