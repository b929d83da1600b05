/**
 * Where the API reference is served: beside `/cms-admin/`, outside the API's own prefix, so that
 * it is no route of the API and the OpenAPI document it renders does not list it. A file of its
 * own so that the primary process names it without loading Express.
 */
export const API_REFERENCE_PATH = '/cms-api-reference';
