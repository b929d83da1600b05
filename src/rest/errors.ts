import { DocumentTooLargeError, NonFiniteNumberError } from '../store/log/change-log.js';
import { isDatabaseUnavailable, isDuplicateKey } from '../store/database/mongo.js';
import { ItemUnprojectableError, PreconditionFailedError, StoreError, WriteConflictError } from '../store/log/store-errors.js';

/** The body every error is sent as: WordPress's `WP_Error` rendered by its REST server. */
export interface RestErrorBody {
  code: string;
  message: string;
  data: { status: number; [key: string]: unknown } | null;
}

/** Any error a route, the dispatcher or the adapter throws to answer with the contract's error shape. */
export class RestError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly data: Record<string, unknown> = {},
    /** Members of the body beside `code`, `message` and `data` (WordPress's `additional_data`). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }

  toBody(): RestErrorBody {
    return { code: this.code, message: this.message, data: { status: this.status, ...this.data }, ...this.extra };
  }
}

export type RestErrorClass = new (data?: Record<string, unknown>) => RestError;

/** Every error code the service can answer with, for the contract test that checks the list. */
export const definedErrorCodes = new Set<string>();
/** The codes defined with a 5xx status: faults of the service, never of the client (a contract test keeps the list). */
export const serverErrorCodes = new Set<string>();

/**
 * Every error defined with a fixed message, once per definition, for the contract test that
 * refuses an error defined twice: a second definition of a code with the same status and message
 * should be the first one, imported.
 */
export const fixedMessageErrors: { code: string; status: number; message: string }[] = [];

function registerCode(code: string, status: number, message?: string): void {
  definedErrorCodes.add(code);
  if (status >= 500) serverErrorCodes.add(code);
  if (message !== undefined) fixedMessageErrors.push({ code, status, message });
}

/** A named error with WordPress's code, wording and status. */
export function defineRestError(code: string, message: string, status: number): RestErrorClass {
  registerCode(code, status, message);
  return class extends RestError {
    constructor(data: Record<string, unknown> = {}) {
      super(code, message, status, data);
    }
  };
}

/** What a parameterized error says about the values it is given. */
export interface ErrorDetails {
  message: string;
  /** Overrides the defined status (401 for anonymous callers, 403 for users). */
  status?: number;
  data?: Record<string, unknown>;
  extra?: Record<string, unknown>;
}

/**
 * A named error whose message or data name values (`The role %s does not exist.`: WordPress's
 * `sprintf` messages). The constructor takes the values `describe` is given.
 */
export function defineRestErrorWith<A extends unknown[]>(
  code: string,
  status: number,
  describe: (...args: A) => string | ErrorDetails,
): new (...args: A) => RestError {
  registerCode(code, status);
  return class extends RestError {
    constructor(...args: A) {
      const details = describe(...args);
      const { message, status: actual = status, data = {}, extra = {} } = typeof details === 'string' ? { message: details } : details;
      super(code, message, actual, data, extra);
    }
  };
}

/**
 * The codes `rest_validate_value_from_schema` answers a value with: each defined here once,
 * for the argument validator to name with the message its check makes.
 */
export const SCHEMA_ERROR_CODES = [
  'rest_invalid_param',
  'rest_invalid_type',
  'rest_not_in_enum',
  'rest_out_of_bounds',
  'rest_too_short',
  'rest_too_long',
  'rest_invalid_pattern',
  'rest_too_few_items',
  'rest_too_many_items',
  'rest_duplicate_items',
  'rest_property_required',
  'rest_additional_properties_forbidden',
  'rest_too_few_properties',
  'rest_too_many_properties',
  'rest_one_of_multiple_matches',
  'rest_no_matching_schema',
  'rest_invalid_multiple',
  'rest_invalid_date',
  'rest_invalid_email',
  'rest_invalid_url',
  'rest_invalid_uuid',
  'rest_invalid_ip',
  'rest_invalid_hex_color',
] as const;
export type SchemaErrorCode = (typeof SCHEMA_ERROR_CODES)[number];
for (const code of SCHEMA_ERROR_CODES) definedErrorCodes.add(code);

/** A parameter's value refused by its schema: 400 with the parameter's name. */
export function schemaError(code: SchemaErrorCode, message: string, param?: string): RestError {
  return new RestError(code, message, 400, param === undefined ? {} : { param });
}

/** Who is asking, as far as status codes go: anonymous callers get 401, users 403. */
export interface Caller {
  readonly user: { readonly id: number };
}

export type AuthErrorClass = new (caller: Caller, data?: Record<string, unknown>) => RestError;

/** An error whose status is 401 for anonymous callers and 403 for logged-in ones (`rest_authorization_required_code`). */
export function defineAuthError(code: string, message: string): AuthErrorClass {
  registerCode(code, 403, message);
  return class extends RestError {
    constructor(caller: Caller, data: Record<string, unknown> = {}) {
      super(code, message, caller.user.id > 0 ? 403 : 401, data);
    }
  };
}

export const NoRoute = defineRestError('rest_no_route', 'No route was found matching the URL and request method.', 404);
export const InvalidJson = defineRestError('rest_invalid_json', 'Invalid JSON body passed.', 400);
export const RequestTooLarge = defineRestError('rest_request_too_large', 'The request body is larger than this site accepts.', 413);
export const InvalidMultipart = defineRestError('rest_invalid_multipart', 'Invalid multipart body passed.', 400);
export const InvalidCallback = defineRestError('rest_callback_invalid', 'Invalid JSONP callback function.', 400);
export const InvalidNamespace = defineRestError('rest_invalid_namespace', 'The specified namespace could not be found.', 404);
export const InvalidDate = defineRestError('rest_invalid_date', 'Invalid date.', 400);
export const InternalError = defineRestError('internal_server_error', 'There has been a critical error on this website.', 500);
export const PreconditionFailed = defineRestError('rest_precondition_failed', 'The item has changed since it was read (If-Match does not match its ETag).', 412);
export const WriteConflict = defineRestError('rest_write_conflict', 'The item is being changed by someone else; try again.', 409);
/**
 * A write refused by a unique index that its command did not turn into WordPress's own error
 * (`term_exists`, `existing_user_login`, a de-duplicated slug...): a value the client sent is
 * taken, which is the client's conflict, never a fault of the service.
 */
export const DuplicateValue = defineRestError('rest_duplicate_value', 'A value that must be unique is already taken by another item.', 409);
export const ItemTooLarge = defineRestError('rest_item_too_large', 'The item would be larger than the database can store.', 413);
export const NonFiniteNumber = defineRestError('rest_invalid_param', 'Invalid parameter(s): numbers must be finite.', 400);
/** PHP's `max_input_nesting_level` (64) for query and form keys; `json_decode`'s depth (512) for JSON. */
export const InputTooDeep = defineRestError('rest_invalid_param', 'Invalid parameter(s): nested too deeply.', 400);
/** PHP's `max_input_vars` (1000) for a query string or form body, refused rather than cut short. */
export const TooManyParameters = defineRestErrorWith('rest_invalid_param', 400, (max: number) => `Invalid parameter(s): more than ${max} parameters.`);
export const UnsupportedBodyEncoding = defineRestError('rest_unsupported_encoding', "The request body's charset or Content-Encoding is not supported.", 415);
export const UnreadableBody = defineRestError('rest_invalid_body', 'The request body could not be read.', 400);
export const HeadersTooLarge = defineRestError('rest_headers_too_large', "The request's URL or headers are larger than this site accepts.", 431);
export const MalformedRequest = defineRestError('rest_malformed_request', 'The request is not valid HTTP.', 400);
export const ItemUnavailable = defineRestError('rest_item_unavailable', "The item's change log cannot be applied; it cannot be served until it is repaired.", 500);
// WordPress's `dead_db()` wording; 503 rather than its 500, since retrying later can succeed.
export const DatabaseUnavailable = defineRestError('db_connect_fail', 'Error establishing a database connection.', 503);
// WordPress's maintenance-mode wording, for the moments between listening and serving.
export const ServiceStarting = defineRestError('maintenance', 'Briefly unavailable for scheduled maintenance. Check back in a minute.', 503);
// Live requests (the change feed's long polls and event streams) a client or a process may hold open: `LiveRequests`.
export const TooManyLiveRequests = defineRestError('rest_too_many_live_requests', 'This client holds as many live requests (long polls, event streams) open as it may; close one first.', 429);
export const LiveRequestsFull = defineRestError('rest_live_requests_full', 'The site holds as many live requests open as it can; try again shortly.', 503);
// `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header, as Stripe serves it): `http/idempotency.ts`.
export const IdempotencyKeyInvalid = defineRestError('rest_idempotency_key_invalid', 'The Idempotency-Key header must hold 1 to 255 characters.', 400);
// The draft's 422: the key was first sent with another request (method, route, query or body).
export const IdempotencyKeyReused = defineRestError('rest_idempotency_key_reused', 'This Idempotency-Key was already used for a different request.', 422);
// The draft's 409: the first request with the key is still being answered.
export const IdempotencyKeyInFlight = defineRestError('rest_idempotency_key_in_flight', 'A request with this Idempotency-Key is still being processed; retry it later.', 409);
export const IdempotencyKeyUnresolved = defineRestError(
  'rest_idempotency_key_unresolved',
  'The first request with this Idempotency-Key was not answered to the end, and what it changed cannot be answered again; check the resource, and send a new request with a new key.',
  409,
);
/** Seconds a client refused a live request is asked to wait (`Retry-After`). */
export const RETRY_AFTER_LIVE = 5;
/** Seconds a client is asked to wait (`Retry-After`) after a 503. */
export const RETRY_AFTER_UNAVAILABLE = 1;

/**
 * What the client is told for anything thrown: a RestError as it is; the store's own errors as
 * below; a database that cannot be reached or did not answer in time, 503 (the request may be
 * retried); a write a unique index refused, 409; anything else, 500.
 */
export function asRestError(error: unknown): RestError {
  if (error instanceof RestError) return error;
  if (error instanceof StoreError) return fromStoreError(error);
  if (isDatabaseUnavailable(error)) return new DatabaseUnavailable({ retry_after: RETRY_AFTER_UNAVAILABLE });
  if (isDuplicateKey(error)) return new DuplicateValue();
  return new InternalError();
}

function fromStoreError(error: StoreError): RestError {
  if (error instanceof PreconditionFailedError) return new PreconditionFailed();
  if (error instanceof WriteConflictError) return new WriteConflict();
  if (error instanceof DocumentTooLargeError) return new ItemTooLarge({ bytes: error.bytes });
  if (error instanceof NonFiniteNumberError) return new NonFiniteNumber({ param: error.field });
  if (error instanceof ItemUnprojectableError) return new ItemUnavailable();
  return new InternalError();
}

/** Whether the answer to an error says all there is to say (a RestError, or an error of the store's), so that it is not logged as a fault. */
export function isAnswerable(error: unknown): boolean {
  return error instanceof RestError || error instanceof StoreError;
}

export const Forbidden = defineAuthError('rest_forbidden', 'Sorry, you are not allowed to do that.');
export const ForbiddenContext = defineAuthError('rest_forbidden_context', 'Sorry, you are not allowed to edit this item.');

definedErrorCodes.add('rest_missing_callback_param');
definedErrorCodes.add('rest_invalid_param');

export function missingParams(names: string[]): RestError {
  return new RestError('rest_missing_callback_param', `Missing parameter(s): ${names.join(', ')}`, 400, {
    params: names,
  });
}

/** Several refusals at once, as a `WP_Error` holding more than one code: the first, the rest in `additional_errors`. */
export function combinedErrors([first, ...rest]: [RestError, ...RestError[]]): RestError {
  if (!rest.length) return first;
  return new RestError(first.code, first.message, first.status, first.data, { ...first.extra, additional_errors: rest.map((error) => error.toBody()) });
}

export function invalidParams(problems: Record<string, RestError>): RestError {
  const names = Object.keys(problems);
  // Parameter names may be a client's (`__proto__`): they stay keys.
  const params: Record<string, string> = Object.create(null);
  const details: Record<string, RestErrorBody> = Object.create(null);
  for (const name of names) {
    params[name] = problems[name].message;
    details[name] = problems[name].toBody();
  }
  return new RestError('rest_invalid_param', `Invalid parameter(s): ${names.join(', ')}`, 400, { params, details });
}
