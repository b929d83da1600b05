import { type Deps } from '../../deps.js';
import { asOfAnswer, requestedPosition } from '../../rest/as-of.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { RestResponse } from '../../rest/rest-response.js';
import { stateAt } from '../../store/history/as-of.js';
import { templateHistory } from './template.history.js';
import { canManageTemplates, TemplateNotFound } from './template.permissions.js';
import { prepareTemplate } from './template.serializer.js';
import { viewOfDoc, type TemplateView } from './template.view.js';

/**
 * `GET /templates/<theme>//<slug>?as_of=...`: the template as it stood then, through the same
 * serializer as a live read. Its past is its history, so it asks what the history routes ask
 * (`edit_theme_options`); a theme file not customized now has none to read, as `/history` says.
 */
export async function getTemplateAt(req: RestRequest, deps: Deps, current: TemplateView): Promise<RestResponse> {
  canManageTemplates(req, deps);
  if (!current.doc) throw new TemplateNotFound();
  const position = (await requestedPosition(req, deps.store.db, deps.clock()))!;
  const doc = await stateAt(deps.store.db, templateHistory, current.doc._id, position, current.doc);
  if (!doc) throw new TemplateNotFound();
  return asOfAnswer(new RestResponse(await prepareTemplate(viewOfDoc(deps, doc), req, deps)), position, `${doc._id}@${position}:${req.context}`);
}
