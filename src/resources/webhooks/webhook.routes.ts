import { randomBytes } from 'node:crypto';
import { can } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { invalidParams } from '../../rest/errors.js';
import { argsFromSchema, collectionArgs, contextArg } from '../../rest/item-schema.js';
import { pageOf, pageWindow } from '../../rest/pagination.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { created, RestResponse } from '../../rest/rest-response.js';
import { CREATABLE, DELETABLE, defineRoutes, EDITABLE, READABLE, type Permission } from '../../rest/route.js';
import { changeLog } from '../../store/log/change-log.js';
import { attempt } from './webhook.deliverer.js';
import { CannotManageWebhooks, DeliveryInvalidId, PingNotRedeliverable, WebhookInvalidId, WebhooksTrashNotSupported, WebhookTargetRefused } from './webhook.errors.js';
import { ATTEMPTS_KEPT, DELIVERY_STATES, deliveriesCollection, webhooksCollection, type DeliveryDoc, type DeliveryState, type WebhookDoc } from './webhook.model.js';
import { PING_TYPE, pingPayload } from './webhook.payload.js';
import { deliverySchema, webhookSchema } from './webhook.schema.js';
import { generateSecret, secretsInForce } from './webhook.signature.js';
import { targetPolicy, targetRefusal } from './webhook.targets.js';

/** How long a rotated-out secret still signs, beside the new one, unless the rotation says otherwise. */
const PREVIOUS_SECRET_SECONDS = 24 * 3600;

const canManageWebhooks: Permission<Deps> = (req) => {
  if (!can(req.user, 'manage_options')) throw new CannotManageWebhooks(req);
  return true;
};

const gmt = (date: Date | null | undefined) => (date ? date.toISOString().slice(0, 19) : null);
const webhookHref = (req: RestRequest, id: string) => req.url(`/cms/v2/webhooks/${id}`);

function prepareWebhook(doc: WebhookDoc, req: RestRequest, secret?: string): Record<string, unknown> {
  const data: Record<string, unknown> = {
    id: doc._id,
    url: doc.url,
    events: doc.events,
    active: doc.active,
    disabled_reason: doc.disabled_reason,
    position: doc.cursor,
    created: gmt(doc.created),
  };
  if (secret) data.secret = secret;
  if (req.wants('_links')) {
    data._links = { self: [{ href: webhookHref(req, doc._id) }], collection: [{ href: req.url('/cms/v2/webhooks') }], 'wp:items': [{ href: `${webhookHref(req, doc._id)}/deliveries` }] };
  }
  return data;
}

function prepareDelivery(doc: DeliveryDoc, req: RestRequest): Record<string, unknown> {
  const data: Record<string, unknown> = {
    id: doc._id,
    webhook: doc.endpoint,
    type: doc.type,
    position: doc.position,
    item: doc.stream === null ? null : { id: doc.stream, type: doc.stream_type },
    version: doc.version,
    status: doc.state,
    attempts: doc.attempts,
    next_attempt: gmt(doc.next_attempt_at),
    last_status: doc.last_status,
    created: gmt(doc.created),
    payload: doc.payload,
    log: doc.log.map((entry) => ({ ...entry, at: gmt(entry.at) })),
  };
  if (req.wants('_links')) {
    data._links = { self: [{ href: `${webhookHref(req, doc.endpoint)}/deliveries/${doc._id}` }], up: [{ href: webhookHref(req, doc.endpoint) }] };
  }
  return data;
}

async function findWebhook(req: RestRequest, deps: Deps): Promise<WebhookDoc> {
  const doc = await webhooksCollection(deps.store.db).findOne({ _id: String(req.params.id) });
  if (!doc) throw new WebhookInvalidId();
  return doc;
}

async function findDelivery(req: RestRequest, deps: Deps): Promise<DeliveryDoc> {
  const doc = await deliveriesCollection(deps.store.db).findOne({ _id: String(req.params.delivery), endpoint: String(req.params.id) });
  if (!doc) throw new DeliveryInvalidId();
  return doc;
}

/** Refuses a URL whose scheme is not http(s) or whose host resolves to an address the policy refuses. */
async function assertTarget(url: string, deps: Deps): Promise<void> {
  const refusal = await targetRefusal(url, targetPolicy(deps.config.webhooksAllowAddresses), deps.config.webhooksTimeoutMs);
  if (refusal) throw invalidParams({ url: new WebhookTargetRefused(refusal) });
}

const idArg = { id: { description: 'Unique identifier for the endpoint.', type: 'string' } } as const;
const deliveryArg = { delivery: { description: 'The delivery (message) id.', type: 'string' } } as const;
const base = '/webhooks';
const one = `${base}/(?P<id>ep_[0-9a-f]{16})`;
const oneDelivery = `${one}/deliveries/(?P<delivery>msg_[0-9a-z_]{1,80})`;

export const webhookRoutes = defineRoutes<Deps>('cms/v2', [
  {
    path: base,
    schema: webhookSchema,
    endpoints: [
      {
        methods: READABLE,
        args: { context: contextArg(webhookSchema), ...collectionArgs() },
        permission: canManageWebhooks,
        response: { body: 'items' },
        handler: async (req, deps) => {
          const window = pageWindow(req.params);
          const webhooks = webhooksCollection(deps.store.db);
          const [docs, total] = await Promise.all([
            webhooks.find({}).sort({ created: 1, _id: 1 }).skip(window.skip).limit(window.perPage).toArray(),
            webhooks.estimatedDocumentCount(),
          ]);
          return pageOf(docs.map((doc) => prepareWebhook(doc, req)), total, window);
        },
      },
      {
        methods: CREATABLE,
        args: argsFromSchema(webhookSchema, 'create'),
        permission: canManageWebhooks,
        response: { status: 201 },
        answerContext: 'edit',
        handler: async (req, deps) => {
          const url = String(req.params.url);
          await assertTarget(url, deps);
          const secret = generateSecret();
          const now = deps.clock();
          // Events from the end of the log as it is now; earlier ones only by a replay.
          const cursor = (await changeLog(deps.store.db).firstFreePosition()) - 1;
          const doc: WebhookDoc = {
            _id: `ep_${randomBytes(8).toString('hex')}`,
            url,
            events: [...new Set(req.params.events as string[])],
            active: req.params.active !== false,
            disabled_reason: null,
            secrets: [{ key: secret, created: now }],
            created: now,
            cursor,
            generation: 0,
          };
          await webhooksCollection(deps.store.db).insertOne(doc);
          return created(prepareWebhook(doc, req, secret), webhookHref(req, doc._id));
        },
      },
    ],
  },
  {
    path: one,
    schema: webhookSchema,
    endpoints: [
      {
        methods: READABLE,
        args: { ...idArg, context: contextArg(webhookSchema) },
        permission: canManageWebhooks,
        handler: async (req, deps) => prepareWebhook(await findWebhook(req, deps), req),
      },
      {
        methods: EDITABLE,
        args: { ...idArg, ...argsFromSchema(webhookSchema, 'update') },
        permission: canManageWebhooks,
        handler: async (req, deps) => {
          const doc = await findWebhook(req, deps);
          const changes: Partial<WebhookDoc> = {};
          if (req.params.url !== undefined) {
            changes.url = String(req.params.url);
            await assertTarget(changes.url, deps);
          }
          if (req.params.events !== undefined) changes.events = [...new Set(req.params.events as string[])];
          if (req.params.active !== undefined) {
            changes.active = req.params.active === true;
            if (changes.active) changes.disabled_reason = null;
          }
          if (Object.keys(changes).length) await webhooksCollection(deps.store.db).updateOne({ _id: doc._id }, { $set: changes });
          return prepareWebhook({ ...doc, ...changes }, req);
        },
      },
      {
        methods: DELETABLE,
        args: { ...idArg, force: { description: 'Required to be true, as webhooks do not support trashing.', type: 'boolean', default: false } },
        permission: canManageWebhooks,
        handler: async (req, deps) => {
          const doc = await findWebhook(req, deps);
          if (req.params.force !== true) throw new WebhooksTrashNotSupported();
          await webhooksCollection(deps.store.db).deleteOne({ _id: doc._id });
          await deliveriesCollection(deps.store.db).deleteMany({ endpoint: doc._id });
          const previous = prepareWebhook(doc, req);
          delete previous._links;
          return { deleted: true, previous };
        },
      },
    ],
  },
  {
    path: `${one}/secret`,
    schema: webhookSchema,
    endpoints: [
      {
        methods: CREATABLE,
        args: {
          ...idArg,
          previous_valid_for: {
            description: 'Seconds the secret being replaced still signs, beside the new one (0: it stops at once).',
            type: 'integer',
            minimum: 0,
            maximum: 7 * 24 * 3600,
            default: PREVIOUS_SECRET_SECONDS,
          },
        },
        permission: canManageWebhooks,
        answerContext: 'edit',
        handler: async (req, deps) => {
          const doc = await findWebhook(req, deps);
          const now = deps.clock();
          const secret = generateSecret();
          const until = new Date(now.getTime() + Number(req.params.previous_valid_for) * 1000);
          // The secrets still in force stop at `until` at the latest; the new one signs from now on.
          const previous = secretsInForce(doc.secrets, now).map((kept) => ({ ...kept, expires: kept.expires && kept.expires < until ? kept.expires : until }));
          const secrets = [...previous.filter((kept) => kept.expires > now), { key: secret, created: now }];
          await webhooksCollection(deps.store.db).updateOne({ _id: doc._id }, { $set: { secrets } });
          return prepareWebhook({ ...doc, secrets }, req, secret);
        },
      },
    ],
  },
  {
    path: `${one}/ping`,
    schema: deliverySchema,
    endpoints: [
      {
        methods: CREATABLE,
        args: { ...idArg },
        permission: canManageWebhooks,
        handler: async (req, deps) => {
          const endpoint = await findWebhook(req, deps);
          const now = deps.clock();
          const delivery: DeliveryDoc = {
            _id: `msg_${endpoint._id.slice(3)}_ping_${randomBytes(6).toString('hex')}`,
            endpoint: endpoint._id,
            type: PING_TYPE,
            position: null,
            generation: endpoint.generation,
            stream: null,
            stream_type: null,
            version: null,
            payload: pingPayload(endpoint._id, now),
            state: 'pending',
            attempts: 0,
            retries: 0,
            next_attempt_at: null,
            created: now,
            updated: now,
            last_status: null,
            log: [],
          };
          const { outcome, entry } = await attempt(endpoint, delivery, {
            policy: targetPolicy(deps.config.webhooksAllowAddresses),
            timeoutMs: deps.config.webhooksTimeoutMs,
            clock: deps.clock,
          });
          const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
          const sent: DeliveryDoc = { ...delivery, state: ok ? 'delivered' : 'failed', attempts: 1, last_status: outcome.status, log: [entry], updated: deps.clock() };
          await deliveriesCollection(deps.store.db).insertOne(sent);
          return prepareDelivery(sent, req);
        },
      },
    ],
  },
  {
    path: `${one}/replay`,
    schema: webhookSchema,
    endpoints: [
      {
        methods: CREATABLE,
        args: { ...idArg, position: { description: 'The first change-log position delivered again.', type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, required: true } },
        permission: canManageWebhooks,
        handler: async (req, deps) => {
          const doc = await findWebhook(req, deps);
          // A new generation: the replayed events are new messages, queued after those already queued.
          const changes = { cursor: Number(req.params.position) - 1, generation: doc.generation + 1 };
          await webhooksCollection(deps.store.db).updateOne({ _id: doc._id }, { $set: changes });
          return new RestResponse(prepareWebhook({ ...doc, ...changes }, req), 202);
        },
      },
    ],
  },
  {
    path: `${one}/deliveries`,
    schema: deliverySchema,
    endpoints: [
      {
        methods: READABLE,
        args: {
          ...idArg,
          context: contextArg(deliverySchema),
          ...collectionArgs(),
          status: { description: 'Only deliveries in this state (`failed`: the dead-letter list).', type: 'string', enum: [...DELIVERY_STATES] },
        },
        permission: canManageWebhooks,
        response: { body: 'items' },
        handler: async (req, deps) => {
          const endpoint = await findWebhook(req, deps);
          const window = pageWindow(req.params);
          const state = req.params.status as DeliveryState | undefined;
          const filter = state === 'failed' ? { dead: endpoint._id } : state ? { endpoint: endpoint._id, state } : { endpoint: endpoint._id };
          const deliveries = deliveriesCollection(deps.store.db);
          const [docs, total] = await Promise.all([
            deliveries.find(filter).sort({ created: -1, _id: -1 }).skip(window.skip).limit(window.perPage).toArray(),
            deliveries.countDocuments(filter),
          ]);
          return pageOf(docs.map((doc) => prepareDelivery(doc, req)), total, window);
        },
      },
    ],
  },
  {
    path: oneDelivery,
    schema: deliverySchema,
    endpoints: [
      {
        methods: READABLE,
        args: { ...idArg, ...deliveryArg, context: contextArg(deliverySchema) },
        permission: canManageWebhooks,
        handler: async (req, deps) => prepareDelivery(await findDelivery(req, deps), req),
      },
    ],
  },
  {
    path: `${oneDelivery}/redeliver`,
    schema: deliverySchema,
    endpoints: [
      {
        methods: CREATABLE,
        args: { ...idArg, ...deliveryArg },
        permission: canManageWebhooks,
        handler: async (req, deps) => {
          const doc = await findDelivery(req, deps);
          if (doc.type === PING_TYPE) throw new PingNotRedeliverable();
          const now = deps.clock();
          // The same message again (same webhook-id), due now, with the whole retry schedule before it.
          const changes = { state: 'pending' as const, queue: doc.endpoint, retries: 0, next_attempt_at: now, updated: now, log: doc.log.slice(-ATTEMPTS_KEPT) };
          await deliveriesCollection(deps.store.db).updateOne({ _id: doc._id }, { $set: changes, $unset: { dead: '' } });
          return new RestResponse(prepareDelivery({ ...doc, ...changes }, req), 202);
        },
      },
    ],
  },
]);
