// The API reference: Swagger UI, whose prebuilt bundle the page loads just before this file,
// rendering the service's own OpenAPI document.

/** The options of Swagger UI this page sets (its README, "Configuration"). */
interface SwaggerUiOptions {
  url: string;
  domNode: HTMLElement;
  presets: unknown[];
  layout: 'BaseLayout';
  deepLinking: boolean;
  /** `null` sends the document to no outside validator (the page's CSP would refuse its badge). */
  validatorUrl: null;
  requestInterceptor: (request: { credentials?: RequestCredentials }) => unknown;
}

declare const SwaggerUIBundle: ((options: SwaggerUiOptions) => unknown) & { presets: { apis: unknown } };

export {};

// Found from the page's address, as the history page finds the API, so that a prefix in front of
// the service (a proxy serving it under /cms/) is kept.
const OPENAPI_DOCUMENT = new URL('../cms-json/openapi.json', window.location.href);

const reference = document.getElementById('reference')!;
reference.replaceChildren();
SwaggerUIBundle({
  url: OPENAPI_DOCUMENT.href,
  domNode: reference,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  deepLinking: true,
  validatorUrl: null,
  // "Try it out" sends what a script sends: credentials typed into "Authorize", never the
  // history page's session cookie (which, without its nonce, the API refuses anyway).
  requestInterceptor: (request) => {
    request.credentials = 'omit';
    return request;
  },
});
